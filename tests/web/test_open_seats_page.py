"""The open seats page ``/tables/open`` (issue #35): the tables seeking players, for a
signed-in member, in every language; names and numbers only, never a tile."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from server.tables import projection
from server.tables.models import Table
from tests.server.conftest import client_for, new_member
from tests.web.conftest import signed_in

pytestmark = pytest.mark.django_db

LANGS = ("en", "es", "ru", "ms")


def translated(lang: str, text: str) -> str:
    with translation.override(lang):
        return translation.gettext(text)


def test_the_page_lists_the_open_seeks_without_a_tile_in_every_language():
    ann = new_member()
    made = client_for(ann).post(
        "/api/tables/open", {"wanted": "people", "max_level": 30}, format="json"
    )
    assert made.status_code == 201, made.content
    code = made.json()["table"]
    hand = projection.project(Table.objects.get(code=code)).match.seat_view(1)["hand"]
    reader = signed_in(new_member("bob"))
    for lang in LANGS:
        reader.cookies["django_language"] = lang
        page = reader.get("/tables/open", HTTP_ACCEPT_LANGUAGE=lang)
        assert page.status_code == 200
        body = page.content.decode()
        assert f'data-table="{code}"' in body and ann.username in body
        assert translated(lang, "Open seats") in body
        assert translated(lang, "people") in body
        if lang != "en":
            assert translated(lang, "Open seats") != "Open seats"
        assert not any(f">{tile}<" in body or f" {tile} " in body for tile in hand)


def test_the_page_asks_a_visitor_to_sign_in():
    page = Client().get("/tables/open")
    assert page.status_code == 302 and "/signin" in page["Location"]


def test_an_empty_list_says_so():
    page = signed_in(new_member()).get("/tables/open", HTTP_ACCEPT_LANGUAGE="en")
    assert "No table is looking for players now." in page.content.decode()


def test_sit_down_leads_to_the_join_page_where_the_seek_decides():
    ann = new_member()
    made = (
        client_for(ann)
        .post("/api/tables/open", {"wanted": "people", "min_level": 10}, format="json")
        .json()
    )
    code = made["table"]
    bob = new_member("bob")
    browser = signed_in(bob)
    page = browser.get("/tables/open", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'href="/tables/{code}/join"' in page
    # bob is rated nowhere (level 0): the seek's range refuses him, in a sentence
    refused = browser.post(f"/tables/{code}/join", {"seat": 2}, HTTP_ACCEPT_LANGUAGE="en")
    assert "This table is looking for players of another level." in refused.content.decode()
    assert not Table.objects.get(code=code).seats.filter(player=bob).exists()
    # a seek for anyone: he sits down and is sent to the table's play page
    other = client_for(new_member()).post("/api/tables/open", {"wanted": "any"}, format="json")
    code = other.json()["table"]
    taken = browser.post(f"/tables/{code}/join", {"seat": 2})
    assert taken.status_code == 302 and taken["Location"].endswith(f"/tables/{code}/play")
    assert Table.objects.get(code=code).seats.get(number=2).player_id == bob.pk
