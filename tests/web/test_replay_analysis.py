"""The replay page's analysis panel, in-process: without JavaScript the mistakes list and
the per-hand graphs are plain HTML (links to #step-N); the script gets the same data."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from server.league import analysis_queue
from server.league.models import LeagueMatch, MatchAnalysis, SeatAccuracy
from tests.web.conftest import signed_in

pytestmark = pytest.mark.django_db


def analysis_json(body: str) -> dict:
    found = re.search(
        r'<script id="replay-analysis" type="application/json">(.*?)</script>', body, re.S
    )
    return json.loads(found.group(1)) if found else {}


def test_the_replay_shows_the_analysis_once_it_is_computed(finished):
    client = signed_in(finished.owner)
    before = client.get(f"/tables/{finished.code}/replay").content.decode()
    assert "is not ready yet" in before and 'id="replay-analysis"' not in before
    assert analysis_queue.work(iterations=3) == 1
    match = LeagueMatch.objects.get(table__code=finished.code)
    report = MatchAnalysis.objects.get(match=match).report
    body = client.get(f"/tables/{finished.code}/replay").content.decode()
    data = analysis_json(body)
    assert sorted(int(k) for k in data) == sorted(d["at"] for d in report["decisions"])
    first = report["decisions"][0]
    shown = data[str(first["at"])]
    assert shown["loss"] == first["loss"] and shown["mark"] == first["mark"]
    assert shown["seat"] == first["seat"]
    # one graph per hand, a point per decision, each linked to its step
    assert body.count('<figure class="graph"') == match.hands
    assert body.count("data-point=") == len(report["decisions"])
    assert f'href="#step-{first["at"] + 1}"' in body
    serious = [d for d in report["decisions"] if d["mark"] in ("mistake", "blunder")]
    assert body.count("data-mistake=") == len(serious)
    assert "<style" not in body and " style=" not in body  # CSP-friendly
    assert "<script>" not in body


def test_the_player_page_shows_the_accuracy_over_analysed_matches(finished):
    client = signed_in(finished.owner)
    name = finished.owner.username
    assert "No analysed match yet." in client.get(f"/players/{name}").content.decode()
    assert analysis_queue.work(iterations=3) == 1
    row = SeatAccuracy.objects.get(player=finished.owner)
    body = client.get(f"/players/{name}").content.decode()
    assert f'data-best-share="{round(row.best_moves / row.decisions, 4)}"' in body
    assert f"{row.decisions} decisions" in body
    # a casual match is its players' own: an anonymous visitor's page counts nothing
    assert "No analysed match yet." in Client().get(f"/players/{name}").content.decode()
