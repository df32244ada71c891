"""Who really played, on the pages (issue #33, point 3), in-process: a league match whose
seat 3 went to a hosted computer player after its drawn player's 3 decisions. The match
page (its facts, the replay's seat names and log), the drawn player's and the
substitute's pages name the substitution where it happened; a live duplicate round's
table stays hidden as before (docs/league.md, "Duplicate rounds")."""

from __future__ import annotations

import html
import random

import pytest
from django.test import Client

from server.league import analysis_queue
from server.league.models import LeagueMatch
from server.tables.models import Seat
from tests.league.test_league_api import League
from tests.league.test_substitutes import play_on
from tests.league.test_who_played import SEAT, play_until_decisions

pytestmark = pytest.mark.django_db


@pytest.fixture
def substituted():
    league = League(members=4)
    league.start_round()
    match = LeagueMatch.objects.get(season_id=league.season)
    drawn = Seat.objects.get(table=match.table, number=SEAT).player
    play_until_decisions(match.table, SEAT, 3, random.Random(5))
    answer = league.org_api.post(
        f"/api/matches/{match.pk}/substitute",
        {"seat": SEAT, "by": {"level": "strong"}},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    substitute = Seat.objects.get(table=match.table, number=SEAT).player
    play_on(match.table, random.Random(6))
    match.refresh_from_db()
    assert match.status == "finished"
    return match, drawn, substitute


def test_the_match_page_and_its_replay_name_the_substitute_where_it_happened(substituted):
    match, drawn, substitute = substituted
    held = Client().get(f"/api/matches/{match.pk}").json()["seat_holders"]
    new = next(h for h in held if h["seat"] == SEAT and h["reason"])
    sentence = (
        f"From hand {new['from_hand']}, move {new['from_move']} — seat {SEAT}: "
        f"{substitute.username} for {drawn.username}"
    )
    body = html.unescape(Client().get(f"/matches/{match.pk}").content.decode())
    # the facts: one line, linked to the replay's step
    assert 'id="who-played"' in body and sentence in body
    assert f'href="#step-{new["from_step"] + 1}" data-jump="{new["from_step"]}"' in body
    # the log: on the line of the first event after the handover (the log's nth line)
    lines = body.split('<ol class="log" id="log">')[1].split("</ol>")[0].split("<li ")
    assert sentence in lines[new["from_step"] + 1]
    assert sum(sentence in line for line in lines) == 1
    # the seat's name changes at that step: both holders, each with its span of steps
    assert f'data-holder-from="0" data-holder-until="{new["from_step"]}">{drawn.username}' in body
    assert f'data-holder-from="{new["from_step"]}"' in body
    assert "<style" not in body and " style=" not in body  # CSP-friendly


def test_both_player_pages_list_the_substitution_and_count_their_own_decisions(substituted):
    match, drawn, substitute = substituted
    analysis_queue.work(iterations=2)
    for person in (drawn, substitute):
        body = html.unescape(Client().get(f"/players/{person.username}").content.decode())
        assert 'id="substitutions"' in body
        assert f"{substitute.username} for {drawn.username}" in body
        assert f'href="/matches/{match.pk}#step-' in body
        decisions = Client().get(f"/api/players/{person.username}").json()["accuracy"]
        assert f"{decisions['decisions']} decisions" in body
    drawn_page = Client().get(f"/api/players/{drawn.username}").json()
    assert drawn_page["accuracy"]["decisions"] == 3


def test_a_match_without_a_handover_shows_no_substitution(substituted):
    match, drawn, _ = substituted
    other = League(members=4)
    other.start_round()
    plain = LeagueMatch.objects.get(season_id=other.season)
    play_on(plain.table, random.Random(3))
    body = Client().get(f"/matches/{plain.pk}").content.decode()
    assert 'id="who-played"' not in body and "data-holder-from" not in body
    held = Client().get(f"/api/matches/{plain.pk}").json()["seat_holders"]
    assert [h["seat"] for h in held] == [1, 2, 3, 4]
    assert all(h["reason"] is None and h["hands"] == held[0]["hands"] for h in held)
