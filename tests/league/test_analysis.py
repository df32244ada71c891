"""The background analysis of finished matches: queue, claim, store, serve."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from engine import load_record
from engine.analysis import ANALYSIS_VERSION, analyse
from engine.replay import steps
from server.league import analysis_queue
from server.league.models import LeagueMatch, MatchAnalysis, SeatAccuracy
from server.league.selectors import engine_events
from tests.league.conftest import client_for, new_member
from tests.league.test_league_api import League, error

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

ITERATIONS = 3


def finished_match() -> tuple[League, LeagueMatch]:
    league = League(members=4)
    league.start_round()
    league.play_round(1)
    return league, LeagueMatch.objects.get(season_id=league.season)


def test_a_finished_match_is_analysed_in_the_background_and_served():
    league, match = finished_match()
    api = league.org_api
    error(api.get(f"/api/matches/{match.pk}/analysis"), 409, "analysis_not_ready")
    assert analysis_queue.work(iterations=ITERATIONS) == 1
    assert analysis_queue.work(iterations=ITERATIONS) == 0  # nothing left
    row = MatchAnalysis.objects.get(match=match)
    assert row.status == "done" and row.version == ANALYSIS_VERSION and row.attempts == 1
    expected = analyse(engine_events(match), iterations=ITERATIONS, seed=match.pk)
    answer = api.get(f"/api/matches/{match.pk}/analysis").json()
    assert answer["decisions"] == json.loads(json.dumps(expected["decisions"]))
    assert answer["thresholds"] == {"good": 0.02, "inaccuracy": 0.05, "mistake": 0.1}
    for d in answer["decisions"]:
        assert d["mark"] in ("good", "inaccuracy", "mistake", "blunder")
    # anyone who may read the record may read the analysis (a public club: anonymous too)
    assert APIClient().get(f"/api/matches/{match.pk}/analysis").status_code == 200
    # per seat rows, summed into the player's accuracy
    seats = SeatAccuracy.objects.filter(match=match)
    assert sum(r.decisions for r in seats) == len(expected["decisions"])
    player = seats[0].player
    profile = api.get(f"/api/players/{player.username}").json()
    mine = [d for d in expected["decisions"] if d["seat"] == seats[0].seat]
    assert profile["accuracy"]["decisions"] == len(mine)
    assert profile["accuracy"]["matches"] == 1
    best = sum(1 for d in mine if d["loss"] <= 0.01)
    assert profile["accuracy"]["best_share"] == round(best / len(mine), 4)


def test_the_record_carries_the_analysis_as_an_extra_field_old_readers_ignore():
    league, match = finished_match()
    plain = league.org_api.get(f"/api/matches/{match.pk}/record").content.decode()
    assert (
        plain == league.org_api.get(f"/api/matches/{match.pk}/record?analysis=1").content.decode()
    )
    analysis_queue.work(iterations=ITERATIONS)
    text = league.org_api.get(f"/api/matches/{match.pk}/record?analysis=1").content.decode()
    lines = [json.loads(line) for line in text.splitlines()]
    annotated = [line for line in lines if "analysis" in line]
    assert annotated and all(line["type"] in ("play", "choose_opener") for line in annotated)
    assert {"best", "loss", "mark", "team_a"} <= set(annotated[0]["analysis"])
    # the engine folds the extended record to the same end
    assert [s.phase for s in steps(load_record(text))][-1] == "match_over"
    assert len(load_record(text)) == len(load_record(plain))


def test_an_older_version_is_analysed_again_and_claims_never_overlap():
    _, match = finished_match()
    analysis_queue.do_enqueue()
    first = analysis_queue.claim()
    assert first is not None and first.status == "running"
    assert analysis_queue.claim() is None  # the only row is taken
    analysis_queue.do_analyse(first, iterations=ITERATIONS)
    MatchAnalysis.objects.filter(pk=first.pk).update(version=ANALYSIS_VERSION - 1)
    assert analysis_queue.do_enqueue() == 1
    assert MatchAnalysis.objects.get(pk=first.pk).status == "pending"
    call_command("analyse_matches", "--iterations", str(ITERATIONS), "--nice", "0")
    row = MatchAnalysis.objects.get(pk=first.pk)
    assert row.status == "done" and row.version == ANALYSIS_VERSION
    assert SeatAccuracy.objects.filter(analysis=row).count() == 4  # rewritten, not doubled


def test_live_and_annulled_matches_have_no_analysis():
    league = League(members=4)
    league.start_round()
    match = LeagueMatch.objects.get(season_id=league.season)
    error(league.org_api.get(f"/api/matches/{match.pk}/analysis"), 409, "match_in_progress")
    response = league.org_api.post(
        f"/api/matches/{match.pk}/annul", {"reason": "stuck"}, format="json"
    )
    assert response.status_code == 200, response.content
    analysis_queue.work(iterations=ITERATIONS)
    assert not MatchAnalysis.objects.filter(match=match).exists()
    error(league.org_api.get(f"/api/matches/{match.pk}/analysis"), 409, "not_analysed")
    outsider = new_member("o")
    assert client_for(outsider).get("/api/matches/999999/analysis").status_code == 404
