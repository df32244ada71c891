"""A club whose history has every kind of match the server keeps: finished, annulled,
taken over by a substitute, forfeited, a duplicate season's, a casual one finished, and a
casual one still in play. The backups' and the account closure's tests build it."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from django.utils import timezone

from server.league.models import LeagueMatch
from server.tables import projection
from server.tables.models import Table
from tests.league.conftest import client_for, new_member, play_out
from tests.league.test_duplicate import DuplicateLeague
from tests.league.test_league_api import League
from tests.league.test_substitutes import play_on

FOUR_HUMANS = {"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]}


@dataclass
class Eventful:
    league: League
    duplicate: DuplicateLeague
    casual_finished: Table
    casual_live: Table
    annulled: LeagueMatch
    substituted: LeagueMatch
    forfeited: LeagueMatch


def ok(response, status=200):
    assert response.status_code == status, response.content
    return response.json()


def eventful_club(seed: int = 1) -> Eventful:
    rng = random.Random(seed)
    league = League(members=8)
    # round 1: one match played out, the other annulled half-way
    league.start_round()
    first, second = LeagueMatch.objects.filter(season_id=league.season, round__number=1)
    play_out(first.table, rng)
    play_out(second.table, rng, stop_after=25)
    ok(league.org_api.post(f"/api/matches/{second.pk}/annul", {"reason": "power cut"}, "json"))
    # round 2: a substitute takes a seat mid-match; the other match is forfeited
    league.start_round()
    sub, lost = LeagueMatch.objects.filter(season_id=league.season, round__number=2)
    play_out(sub.table, rng, stop_after=15)
    ok(
        league.org_api.post(
            f"/api/matches/{sub.pk}/substitute",
            {"seat": 2, "by": {"level": "strong"}, "reason": "left early"},
            "json",
        )
    )
    play_on(sub.table, rng)
    play_out(lost.table, rng, stop_after=10)
    past = (timezone.now() - dt.timedelta(seconds=1)).isoformat()
    ok(league.org_api.patch(league.season_url("/rounds/2"), {"deadline": past}, "json"))
    ok(
        league.org_api.post(
            f"/api/matches/{lost.pk}/forfeit", {"seat": 3, "reason": "gone"}, "json"
        )
    )
    # a duplicate season elsewhere: every table the same deals
    duplicate = DuplicateLeague(members=8)
    duplicate.start_round()
    duplicate.play_round(1, seed=seed)
    # casual tables: one finished, one in play
    owner = new_member("casual")
    api = client_for(owner)
    finished = Table.objects.get(code=ok(api.post("/api/tables", FOUR_HUMANS, "json"), 201)["code"])
    play_out(finished, rng)
    live = Table.objects.get(code=ok(api.post("/api/tables", FOUR_HUMANS, "json"), 201)["code"])
    play_out(live, rng, stop_after=30)
    for m in (second, sub, lost):
        m.refresh_from_db()
    assert second.status == "annulled" and sub.status == "finished" and lost.forfeited_by
    assert projection.project(live).match.phase != "match_over"
    return Eventful(league, duplicate, finished, live, second, sub, lost)
