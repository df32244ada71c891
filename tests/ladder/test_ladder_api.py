"""``/api/ladder``: joining (bot or owner only), versions, leaving, the public reads."""

from __future__ import annotations

import random

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from server.ladder import tick
from server.ladder.models import Entry, Version
from tests.ladder.conftest import play_leg, playing_legs
from tests.server.conftest import client_for, new_bot, new_member

pytestmark = pytest.mark.django_db


def test_join_version_leave_and_public_reads(fast_ladder):
    owner, stranger = new_member("author"), new_member("stranger")
    bot, other = new_bot(owner), new_bot(new_member("rival"))
    url = f"/api/ladder/bots/{bot.username}"
    # only the bot or its owner; a house player or someone else's bot: refused, nothing made
    assert client_for(stranger).post(url, {"version": "1.0"}, format="json").status_code == 403
    assert APIClient().post(url, {"version": "1.0"}, format="json").status_code == 401
    assert not Entry.objects.filter(bot=bot).exists()
    bad = client_for(owner).post(url, {"version": "no spaces"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "validation_error"
    assert (
        client_for(owner)
        .post(url, {"version": "1.0", "matches_per_day": 1000}, format="json")
        .status_code
        == 400
    )

    joined = client_for(bot).post(url, {"version": "1.0", "matches_per_day": 10}, format="json")
    assert joined.status_code == 200, joined.content
    body = joined.json()
    assert (
        body["version"] == "1.0"
        and body["owner"] == owner.username
        and body["matches_per_day"] == 10
    )
    assert body["interval"][0] == pytest.approx(body["rating"])
    house = APIClient().get("/api/ladder").json()["results"]
    assert {r["house_level"] for r in house if r["house_level"]} == {"random", "medium"}
    anchor = next(r["bot"] for r in house if r["house_level"])
    refused = client_for(owner).post(f"/api/ladder/bots/{anchor}", {"version": "x"}, format="json")
    assert refused.status_code == 403

    client_for(other).post(f"/api/ladder/bots/{other.username}", {"version": "a"}, format="json")
    tick.ladder_step(timezone.now())
    levels = {bot.pk: "medium", other.pk: "random"}
    while legs := playing_legs():
        for leg in legs:
            play_leg(leg, levels, random.Random(1))
    rated = APIClient().get(f"/api/ladder/bots/{bot.username}").json()
    assert rated["pairs"] == 1 and rated["mu"] != 25.0

    # a new version starts from the old rating, less sure
    again = client_for(owner).post(url, {"version": "2.0"}, format="json").json()
    assert again["version"] == "2.0" and again["versions"] == 2
    assert again["mu"] == pytest.approx(rated["mu"]) and again["sigma"] > rated["sigma"]
    assert again["pairs"] == 0 and [v["name"] for v in again["all_versions"]] == ["2.0", "1.0"]

    matches = APIClient().get("/api/ladder/matches", {"bot": bot.username}).json()
    assert matches["count"] == 1
    (pair,) = matches["results"]
    assert pair["status"] == "done" and [leg["number"] for leg in pair["legs"]] == [1, 2]
    assert "deal_seed" not in str(pair)
    one = APIClient().get(f"/api/ladder/matches/{pair['id']}").json()
    assert one == pair
    # the legs are public: their replays and their live tables
    for leg in pair["legs"]:
        assert APIClient().get(f"/api/matches/{leg['match']}/record").status_code == 200
        assert APIClient().get(f"/api/tables/{leg['table']}/spectate").status_code == 200

    left = client_for(owner).delete(url).json()
    assert left["active"] is False
    assert Version.objects.filter(entry__bot=bot).count() == 2
    assert APIClient().get("/api/ladder/matches/99999").status_code == 404
