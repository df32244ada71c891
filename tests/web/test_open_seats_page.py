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
