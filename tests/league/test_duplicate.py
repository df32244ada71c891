"""Duplicate rounds: the same deals at every table, hidden until the round ends, and the
duplicate score on a worked example."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from django.test import Client
from rest_framework.test import APIClient

from server.league.duplicate_scoring import Play, duplicate_scores, round_deals
from server.league.models import LeagueMatch, RatingPoint, Round, StandingRow
from server.tables.models import Event
from tests.league.conftest import add_member, client_for, new_club, new_member, play_out
from tests.league.test_league_api import League

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def test_the_duplicate_score_on_the_worked_example_of_docs_league_md():
    # Deal 1 at three tables: team A's value +2 (a Dékabès), -1 (team B won), +1.
    # Par 2/3: team A scores +4/3, -5/3, +1/3; team B the opposite.
    deal_1 = [
        Play(("ana", "ben"), ("cat", "dan"), 2),
        Play(("eve", "fay"), ("gus", "hal"), -1),
        Play(("ivy", "jon"), ("kim", "lee"), 1),
    ]
    # Deal 2 at one table only: no comparison, no score.
    deal_2 = [Play(("ana", "ben"), ("cat", "dan"), 2)]
    scores = duplicate_scores([deal_1, deal_2])
    assert scores["ana"] == scores["ben"] == Fraction(4, 3)
    assert scores["cat"] == Fraction(-4, 3)
    assert scores["eve"] == Fraction(-5, 3) and scores["gus"] == Fraction(5, 3)
    assert scores["ivy"] == Fraction(1, 3) and scores["kim"] == Fraction(-1, 3)
    assert sum(scores.values()) == 0


class DuplicateLeague(League):
    def __init__(self, members=8):
        self.organizer = new_member("org")
        self.club, self.org_api = new_club(self.organizer)
        self.members = [new_member("m") for _ in range(members)]
        for user in self.members:
            add_member(self.club, self.org_api, user)
        response = self.org_api.post(
            self.url("/seasons"),
            {"name": "Dup", "format": "individual", "seed": 7, "duplicate": True},
            format="json",
        )
        assert response.status_code == 201, response.content
        assert response.json()["duplicate"] is True
        self.season = response.json()["id"]


def first_deals(match: LeagueMatch) -> dict[int, dict]:
    """Each hand's first deal at a table: {hand number: hands}, redeals left out."""
    deals, hand, pending = {}, 0, False
    for payload in (
        Event.objects.filter(table=match.table).order_by("seq").values_list("payload", flat=True)
    ):
        if payload["type"] == "deal":
            if not pending:
                hand += 1
                deals[hand] = payload["hands"]
            pending = False
        elif payload["type"] == "claim_redeal":
            pending = True
    return deals


def test_every_table_plays_the_same_deals_and_other_tables_stay_hidden_until_the_end():
    league = DuplicateLeague()
    league.start_round()
    one, two = LeagueMatch.objects.filter(season_id=league.season).order_by("table_number")
    assert one.table.deal_seed and one.table.deal_seed == two.table.deal_seed
    assert one.table.secret_seed != two.table.secret_seed
    play_out(one.table, random.Random(1))
    play_out(two.table, random.Random(2), stop_after=30)
    one.refresh_from_db()
    assert one.status == "finished"
    # the first hand's deal is the same at both tables, seat for seat
    assert first_deals(one)[1] == first_deals(two)[1]
    # hidden from the players of the round (table two), anonymous readers and the public
    # pages; their own table stays theirs
    player_two = client_for(two.seats.get(number=1).player)
    assert player_two.get(f"/api/matches/{one.pk}").status_code == 404
    assert player_two.get(f"/api/matches/{one.pk}/record").status_code == 404
    assert player_two.get(f"/api/matches/{two.pk}").status_code == 200
    listed = player_two.get(f"/api/matches?club={league.club.slug}").json()["results"]
    assert [m["id"] for m in listed] == [two.pk]
    tables = player_two.get(league.season_url("/rounds/1/tables")).json()["results"]
    assert [m["id"] for m in tables] == [two.pk]
    assert APIClient().get(f"/api/matches/{one.pk}").status_code == 404
    assert Client().get(f"/matches/{one.pk}").status_code == 404
    # the organizer, seated nowhere in the round, oversees every table
    assert league.org_api.get(f"/api/matches/{one.pk}").status_code == 200
    # no standings, no rating from the round yet
    assert not StandingRow.objects.filter(season_id=league.season, played__gt=0).exists()
    assert not RatingPoint.objects.filter(match__season_id=league.season).exists()
    page = Client().get(f"/clubs/{league.club.slug}/seasons/{league.season}/rounds/1/deals")
    assert (
        page.status_code == 200 and "stays hidden until the round is over" in page.content.decode()
    )
    # the round ends: everything shows
    play_out(two.table, random.Random(3))
    assert Round.objects.get(season_id=league.season, number=1).status == "finished"
    assert player_two.get(f"/api/matches/{one.pk}").status_code == 200
    assert RatingPoint.objects.filter(match__season_id=league.season).count() == 8
    standings = league.org_api.get(league.season_url("/standings")).json()
    rows = standings["results"] if "results" in standings else standings["rows"]
    assert all("duplicate" in row for row in rows)
    assert abs(sum(row["duplicate"] for row in rows)) < 1e-3  # zero-sum, deal by deal
    standings_page = (
        Client().get(f"/clubs/{league.club.slug}/standings?season={league.season}").content.decode()
    )
    assert standings_page.count("data-duplicate=") == len(rows)
    assert f"/seasons/{league.season}/rounds/1/deals" in standings_page
    deals = round_deals(Round.objects.get(season_id=league.season, number=1))
    assert deals and all(len({p.deal for p in d.plays}) == 1 for d in deals)
    assert len(deals[0].plays) == 2  # both tables played the first deal
    body = (
        Client()
        .get(f"/clubs/{league.club.slug}/seasons/{league.season}/rounds/1/deals")
        .content.decode()
    )
    assert body.count('data-table="1"') == len(
        [d for d in deals if 1 in {p.table_number for p in d.plays}]
    )
    # the same deals at the same hand, as long as neither table redealt
    deals_one, deals_two = first_deals(one), first_deals(two)
    for hand in set(deals_one) & set(deals_two):
        assert deals_one[hand] == deals_two[hand]
