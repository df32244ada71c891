"""The browser table's page and its authentication, in-process (issue #32): who gets the
page, what it carries (no token, no tile), and that the site's session reaches the seat
API only from the site itself — a request that carries the session cookie without the
page's CSRF token, or from another origin, is refused and changes nothing; the seat
socket takes the session only from a same-origin connection."""

from __future__ import annotations

import json
import random
import re

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from clients.table.screens import ends_before_last_tile
from server.tables import projection
from server.tables.models import Event
from tests.server.conftest import PASSWORD, Players, new_member
from tests.web.conftest import signed_in


def csrf_client(user) -> Client:
    """A browser as Django's CSRF check sees it: the session, and CSRF enforced."""
    client = Client(enforce_csrf_checks=True)
    assert client.login(username=user.username, password=PASSWORD)
    return client


def page_setup(client: Client, code: str) -> dict:
    page = client.get(f"/tables/{code}/play")
    assert page.status_code == 200
    html = page.content.decode()
    start = html.index('<script id="play-setup" type="application/json">')
    text = html[start:].split(">", 1)[1].split("</script>", 1)[0]
    return json.loads(text)


def events(p: Players) -> int:
    return Event.objects.filter(table=p.table).count()


@pytest.mark.django_db
def test_the_page_is_for_seat_holders_only_and_carries_no_token_nor_tile():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    owner = signed_in(p.owner)
    page = owner.get(f"/tables/{p.code}/play")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Content-Security-Policy" in page.headers and "<script>" not in html
    assert 'type="module" src="/static/web/play/main.js"' in html
    assert " style=" not in html and " onclick" not in html
    setup = page_setup(owner, p.code)
    assert setup["seats"] == [1] and setup["code"] == p.code
    assert setup["words"]["numbers"][5] == "five"
    assert "Token" not in html and "token" not in json.dumps(setup).lower()
    hand = projection.project(p.table).match.seat_view(1)["hand"]
    outside_prototypes = re.sub(r"<template.*?</template>", "", html, flags=re.S)
    # The page's own data is the same for every deal: its words (the rules name 6-6, the
    # opening tile) and the seats; the hand comes from the API only.
    start = outside_prototypes.index('<script id="play-setup" type="application/json">')
    end = outside_prototypes.index("</script>", start)
    outside_setup = outside_prototypes[:start] + outside_prototypes[end:]
    assert not [t for t in hand if t in outside_setup]
    assert not [
        t for t in hand if t in json.dumps({k: v for k, v in setup.items() if k != "words"})
    ]
    assert signed_in(new_member("zed")).get(f"/tables/{p.code}/play").status_code == 404
    assert signed_in(new_member("zed")).get("/tables/NOPE42/play").status_code == 404
    assert Client().get(f"/tables/{p.code}/play").status_code == 302  # sign in first


@pytest.mark.django_db
@pytest.mark.parametrize("language,word", [("es", "cinco"), ("ru", "пять"), ("ms", "lima")])
def test_the_page_speaks_the_visitor_s_language(language, word):
    p = Players(kinds=("human", "bot", "bot", "bot"))
    client = signed_in(p.owner)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    assert page_setup(client, p.code)["words"]["numbers"][5] == word


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "tiles", "pips"),
    [
        (
            "en",
            {1: "%(n)s tile", 2: "%(n)s tiles", 0: "%(n)s tiles"},
            {1: "%(n)s pip", 21: "%(n)s pips"},
        ),
        ("es", {1: "%(n)s ficha", 5: "%(n)s fichas"}, {1: "%(n)s punto", 69: "%(n)s puntos"}),
        (
            "ru",
            {1: "%(n)s кость", 3: "%(n)s кости", 5: "%(n)s костей", 0: "%(n)s костей"},
            {21: "%(n)s очко", 22: "%(n)s очка", 11: "%(n)s очков", 69: "%(n)s очков"},
        ),
    ],
)
def test_counts_on_the_page_take_the_language_s_plural_forms(language, tiles, pips):
    """The script picks the words of a count by its number (it holds no plural rule):
    every count a hand can show has its words, 0-7 tiles and 0-69 pips."""
    p = Players(kinds=("human", "bot", "bot", "bot"))
    client = signed_in(p.owner)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    words = page_setup(client, p.code)["words"]
    assert (len(words["tiles_left"]), len(words["pips"])) == (8, 70)
    assert {n: words["tiles_left"][n] for n in tiles} == tiles
    assert {n: words["pips"][n] for n in pips} == pips


@pytest.mark.django_db
def test_the_session_acts_only_with_the_page_s_csrf_token_and_from_the_site():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    browser = csrf_client(p.owner)
    seat = f"/api/tables/{p.code}/seats/1"
    read = browser.get(seat)  # a read needs no token (another site cannot read it)
    assert read.status_code == 200 and read.json()["seat"] == 1
    version = read.json()["version"]
    accept = {"type": "accept", "expected_version": version}
    before = events(p)

    # the session cookie alone (what a forged form or fetch from another site carries)
    forged = browser.post(f"{seat}/actions", accept, content_type="application/json")
    assert forged.status_code == 403 and forged.json()["code"] == "csrf_failed"
    # the token from the page, but sent from another site's page
    token = page_setup(browser, p.code)["csrf"]
    foreign = browser.post(
        f"{seat}/actions",
        accept,
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
        HTTP_ORIGIN="http://evil.example",
    )
    assert foreign.status_code == 403 and foreign.json()["code"] == "csrf_failed"
    left = browser.post(f"{seat}/leave", {}, content_type="application/json")
    assert left.status_code == 403 and left.json()["code"] == "csrf_failed"
    assert events(p) == before  # nothing changed

    done = browser.post(
        f"{seat}/actions",
        accept,
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
        HTTP_IDEMPOTENCY_KEY="page-1",
    )
    assert done.status_code == 200 and done.json()["version"] > version
    assert events(p) > before
    # programs keep their tokens: no CSRF token needed with one
    assert p.owner_api.get(seat).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_seat_socket_takes_the_session_only_from_the_site_itself():
    from server.asgi import application

    p = Players(kinds=("human", "bot", "bot", "bot"))
    browser = signed_in(p.owner)
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"

    async def close_code(origin: str | None) -> int | None:
        headers = [(b"host", b"127.0.0.1:8000"), (b"cookie", cookie.encode())]
        if origin is not None:
            headers.append((b"origin", origin.encode()))
        socket = WebsocketCommunicator(application, f"/ws/tables/{p.code}", headers=headers)
        connected, _ = await socket.connect()
        assert connected
        if await socket.receive_nothing(1):
            await socket.disconnect()
            return None  # open, and following the seat
        message = await socket.receive_output(1)
        if message.get("type") == "websocket.close":
            return message["code"]
        await socket.disconnect()
        return None

    assert async_to_sync(close_code)("http://127.0.0.1:8000") is None  # the page: open
    assert async_to_sync(close_code)("http://evil.example") == 4403  # another site
    assert async_to_sync(close_code)("http://localhost:9999") == 4401  # not this site
    assert async_to_sync(close_code)(None) == 4401  # a cookie without an Origin


@pytest.mark.django_db
def test_the_seat_answer_names_the_ends_the_last_tile_met():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    rng = random.Random(4)
    seen = 0
    while p.step(rng) is not None and seen < 3:
        body = p.seat(1)
        last = body["view"]["last_hand"]
        ends = body["last_tile_ends"]
        expected = ends_before_last_tile(last) if last and last["result"] == "domino" else None
        assert ends == (
            None if expected is None else {"tile": expected[0], "ends": list(expected[1:])}
        )
        seen = len(body["view"]["results"])
