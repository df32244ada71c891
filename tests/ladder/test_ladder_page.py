"""The ladder's public page: its bots by rating, recent matches with their legs' replays
and, while a leg is played, its live table; in every language."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.utils import timezone

from server.ladder import tick
from server.ladder.entries import do_enter
from server.ladder.models import Leg, Pair
from tests.ladder.conftest import play_leg, playing_legs
from tests.server.conftest import new_bot, new_member

pytestmark = pytest.mark.django_db


def test_the_ladder_page_lists_bots_matches_replays_and_live_legs(fast_ladder):
    empty = Client().get("/ladder").content.decode()
    assert "No bot is on the ladder yet." in empty
    bots = [new_bot(new_member("author")) for _ in range(2)]
    for bot in bots:
        do_enter(user=bot, name=bot.username, version="1.0")
    levels = {bots[0].pk: "medium", bots[1].pk: "random"}
    tick.ladder_step(timezone.now())
    (first,) = playing_legs()
    play_leg(first, levels, random.Random(2))  # leg 2 opens
    (live,) = playing_legs()

    page = Client().get("/ladder")
    assert page.status_code == 200
    html = page.content.decode()
    for bot in bots:
        assert f'data-bot="{bot.username}"' in html
    assert "house · random" in html and "house · medium" in html
    assert f"/matches/{first.match_id}" in html  # leg 1 over: its replay
    assert f"/tables/{live.match.table.code}/watch" in html  # leg 2: watch it live
    assert "<script>" not in html and "style=" not in html  # the strict CSP
    assert "/ladder" in Client().get("/").content.decode()  # the home page leads there

    while legs := playing_legs():
        for leg in legs:
            play_leg(leg, levels, random.Random(3))
    pair = Pair.objects.get()
    assert pair.status == "done"
    html = Client().get("/ladder").content.decode()
    for leg in Leg.objects.filter(pair=pair):
        assert f"/matches/{leg.match_id}" in html
    assert Client().get(f"/matches/{first.match_id}").status_code == 200  # public replay
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es").get("/ladder").content.decode()
    assert "Escalera de bots" in spanish
