"""The web pages in-process (Django's test client): sessions, CSRF, error pages,
languages, and what a visitor may see of a table."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from engine import Match, load_record
from server.accounts.models import User
from server.tables import selectors as table_selectors
from tests.server.conftest import PASSWORD, Players, new_member
from tests.web.conftest import advance_to_hand, signed_in, tiles_in

pytestmark = pytest.mark.django_db

LANGS = ("en", "es", "ru", "ms")


def translated(lang: str, text: str) -> str:
    with translation.override(lang):
        return translation.gettext(text)


# -- accounts -----------------------------------------------------------------------------
def test_register_signs_in_with_a_session_on_the_same_account_as_the_api():
    client = Client(enforce_csrf_checks=True)
    page = client.get("/register")
    token = page.cookies["csrftoken"].value
    response = client.post(
        "/register", {"username": "carla", "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    home = client.get("/")
    assert 'title="Your data">carla</a>' in home.content.decode()
    api = APIClient().post(
        "/api/auth/token", {"username": "carla", "password": PASSWORD}, format="json"
    )
    assert api.status_code == 200 and api.json()["username"] == "carla"


def test_registration_refusals_are_form_errors_and_create_nothing():
    new_member("dora")
    taken = User.objects.get(username__startswith="dora").username
    client = Client()
    before = User.objects.count()
    for data, text in (
        ({"username": taken, "password": PASSWORD}, "This name is taken."),
        ({"username": "x!", "password": PASSWORD}, "Latin letters a-z (no accents)"),
        ({"username": "edgar", "password": "short"}, "too short"),
    ):
        response = client.post("/register", data)
        assert response.status_code == 200
        assert text in response.content.decode()
    assert User.objects.count() == before


def test_sign_in_and_sign_out_need_a_csrf_token():
    user = new_member("fay")
    client = Client(enforce_csrf_checks=True)
    refused = client.post("/signin", {"username": user.username, "password": PASSWORD})
    assert refused.status_code == 403
    body = refused.content.decode()
    assert 'class="site-header"' in body and "Form expired" in body and "Traceback" not in body
    token = client.get("/signin").cookies["csrftoken"].value
    ok = client.post(
        "/signin", {"username": user.username, "password": PASSWORD, "csrfmiddlewaretoken": token}
    )
    assert ok.status_code == 302
    assert client.post("/signout").status_code == 403  # no token: still signed in
    assert user.username in client.get("/").content.decode()
    token = client.cookies["csrftoken"].value
    assert client.post("/signout", {"csrfmiddlewaretoken": token}).status_code == 302
    assert user.username not in client.get("/").content.decode()


def test_a_bot_account_cannot_sign_in():
    owner = new_member("gus")
    bot = User(username="gusbot", is_bot=True, bot_owner=owner)
    bot.set_unusable_password()
    bot.save()
    response = Client().post("/signin", {"username": "gusbot", "password": ""})
    assert response.status_code == 200 and "_auth_user_id" not in Client().session


# -- error pages --------------------------------------------------------------------------
def test_unknown_pages_are_a_404_page_and_the_api_keeps_json(settings):
    settings.DEBUG = False  # as served: DJANGO_DEBUG unset
    page = Client().get("/no/such/page")
    assert page.status_code == 404
    body = page.content.decode()
    assert 'class="site-header"' in body and "Page not found" in body and "Traceback" not in body
    api = Client().get("/api/no-such-thing")
    assert api.status_code == 404 and api.json()["code"] == "not_found"


def test_a_server_error_is_a_page_without_a_traceback(settings):
    from server.web import errors

    response = errors.server_error(Client().get("/").wsgi_request)
    body = response.content.decode()
    assert response.status_code == 500 and "Server error" in body and "Traceback" not in body


# -- languages ----------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
def test_accept_language_chooses_the_page_language(lang):
    page = Client(HTTP_ACCEPT_LANGUAGE=f"{lang},en;q=0.5").get("/")
    body = page.content.decode()
    assert f'<html lang="{lang}">' in body
    for text in ("Sign in", "Register", "Dékabès club"):
        assert translated(lang, text) in body
    if lang != "en":
        assert translated(lang, "Sign in") != "Sign in"


def test_the_switcher_keeps_the_chosen_language():
    client = Client(HTTP_ACCEPT_LANGUAGE="es")
    response = client.post("/language", {"language": "ru", "next": "/signin"})
    assert response.status_code == 302 and response["Location"] == "/signin"
    assert translated("ru", "Sign in") in client.get("/signin").content.decode()


def test_every_page_string_has_a_translation_in_every_catalogue():
    from server.web import i18n

    assert i18n.check() == []


def test_the_catalogue_check_finds_an_untranslated_string(tmp_path, monkeypatch):
    from server.web import i18n

    extra = tmp_path / "extra.html"
    extra.write_text('{% load i18n %}<p>{% translate "A string nobody translated" %}</p>')
    sources = i18n.source_files()
    monkeypatch.setattr(i18n, "source_files", lambda: sources + [extra])
    problems = i18n.check()
    for lang in LANGS:
        assert f"{lang}: no entry for 'A string nobody translated'" in problems


# -- tables and replays -------------------------------------------------------------------
def test_the_replay_folds_one_frame_per_record_event_and_each_hand_ends_as_the_engine_says(
    finished,
):
    client = signed_in(finished.owner)
    page = client.get(f"/tables/{finished.code}/replay")
    assert page.status_code == 200
    body = page.content.decode()
    frames = json.loads(
        re.search(
            r'<script id="replay-frames" type="application/json">(.*?)</script>', body, re.S
        ).group(1)
    )
    record = finished.owner_api.get(f"/api/tables/{finished.code}/record").content.decode()
    events = load_record(record)
    assert len(frames) == len(events)
    ended = 0
    for index in range(len(events)):
        if events[index].get("type") not in ("play", "pass"):
            continue
        before = Match.from_events(events[:index]).results
        after = Match.from_events(events[: index + 1])
        if len(after.results) == len(before):
            continue
        ended += 1
        last = after.seat_view(1)["last_hand"]
        assert frames[index]["line"] == [[t["a"], t["b"], t["seat"]] for t in last["line"]]
        assert frames[index]["hands"] == [last["hands"][str(s)] for s in (1, 2, 3, 4)]
        assert frames[index]["scores"] == [
            after.summary()["scores"]["A"],
            after.summary()["scores"]["B"],
        ]
    assert ended == len(Match.from_events(events).results) and ended >= 1
    final = Match.from_events(events).summary()["scores"]
    assert f'data-final="A">{final["A"]}<' in body and f'data-final="B">{final["B"]}<' in body


def test_the_record_download_is_the_api_s_record(finished):
    client = signed_in(finished.owner)
    download = client.get(f"/tables/{finished.code}/record")
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    assert download.content.decode() == table_selectors.record_text(finished.table)


def test_strangers_and_visitors_get_a_404_for_another_member_s_table(finished):
    for client in (Client(), signed_in(new_member("hal"))):
        for path in (f"/tables/{finished.code}/replay", f"/tables/{finished.code}/record"):
            response = client.get(path)
            assert response.status_code == 404
            assert not tiles_in(response.content.decode())


def test_no_tile_of_a_live_hand_is_reachable_from_any_page():
    live = advance_to_hand(Players(kinds=("human", "bot", "bot", "bot")), hand_no=2)
    owner = signed_in(live.owner)
    pages = {
        path: owner.get(path)
        for path in ("/", f"/tables/{live.code}/replay", f"/tables/{live.code}/record", "/signin")
    }
    assert pages[f"/tables/{live.code}/replay"].status_code == 200
    assert pages[f"/tables/{live.code}/record"].status_code == 409
    for path, response in pages.items():
        body = response.content.decode()
        assert not tiles_in(body), (path, tiles_in(body))
        assert "replay-frames" not in body
    scores = live.seat(1)["view"]["scores"]
    replay = pages[f"/tables/{live.code}/replay"].content.decode()
    assert "still being played" in replay
    assert (
        f"<strong>{scores['A']}</strong>" in replay and f"<strong>{scores['B']}</strong>" in replay
    )


def test_a_replay_page_is_sent_compressed(finished):
    client = signed_in(finished.owner)
    plain = client.get(f"/tables/{finished.code}/replay")
    packed = client.get(f"/tables/{finished.code}/replay", HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert len(packed.content) < len(plain.content) / 4


def test_the_sign_in_page_shares_the_api_s_login_throttle(settings):
    from django.core.cache import cache

    cache.clear()
    rates = dict(settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}))
    rates.update({"login_name": "2/minute", "login_address": "100/minute"})
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    from rest_framework.settings import api_settings

    api_settings.reload()
    try:
        user = new_member("ivy")
        client = Client()
        for _ in range(2):
            assert (
                client.post(
                    "/signin", {"username": user.username, "password": "wrong one!"}
                ).status_code
                == 200
            )
        refused = client.post("/signin", {"username": user.username, "password": PASSWORD})
        assert refused.status_code == 429 and refused["Retry-After"]
        assert "Too many attempts" in refused.content.decode()
        api = APIClient().post(
            "/api/auth/token", {"username": user.username, "password": PASSWORD}, format="json"
        )
        assert api.status_code == 429  # one count for the page and the API
    finally:
        cache.clear()
        api_settings.reload()
