"""Closing an account closes what it offered others (issue #35 with #36): its open seeks,
the challenges it made or was invited to, its bots' published terms and their ladder
entries. A closed account's seek is listed no more (its table stays an ordinary casual
table, as after a cancel) and no challenge waits on someone who is gone."""

from __future__ import annotations

import pytest

from server.accounts.models import User
from server.ladder.models import Entry
from server.matchmaking.models import BotTerms, Challenge, Seek
from tests.matchmaking.test_challenges import publish
from tests.server.conftest import PASSWORD, client_for, new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

CLOSE = {"password": PASSWORD, "confirm": "close my account"}


def made(answer, status=201):
    assert answer.status_code == status, answer.content
    return answer.json()


def test_closing_an_account_closes_its_seeks_challenges_terms_and_ladder_entries():
    ann, bob, cid, dan = new_member(), new_member("bob"), new_member("cid"), new_member("dan")
    ann_bot, other_bot = new_bot(ann), new_bot(new_member("owner"))
    for bot in (ann_bot, other_bot):
        publish(bot, opponents="any", partners="any")
    api = client_for(ann)
    seek = made(api.post("/api/tables/open", {"wanted": "any"}, format="json"))
    hers = made(
        api.post(
            "/api/challenges",
            {"partner": bob.username, "opponents": [cid.username, other_bot.username]},
            format="json",
        )
    )
    invited = made(
        client_for(bob).post(
            "/api/challenges",
            {"partner": cid.username, "opponents": [ann.username, dan.username]},
            format="json",
        )
    )
    to_her_bot = made(
        client_for(cid).post(
            "/api/challenges",
            {"partner": dan.username, "opponents": [bob.username, ann_bot.username]},
            format="json",
        )
    )
    untouched = made(
        client_for(cid).post(
            "/api/challenges",
            {"partner": dan.username, "opponents": [bob.username, other_bot.username]},
            format="json",
        )
    )
    made(
        client_for(ann).post(
            f"/api/ladder/bots/{ann_bot.username}", {"version": "1.0"}, format="json"
        ),
        200,
    )
    reader = client_for(new_member("eve"))
    assert [s["id"] for s in reader.get("/api/tables/open").json()["seeks"]] == [seek["id"]]

    # her seat at her own seek's table counts as a table in play until she leaves it
    refused = made(api.post("/api/me/close", CLOSE, format="json"), 409)
    assert refused["code"] == "account_in_play"
    made(api.post(f"/api/tables/{seek['table']}/seats/1/leave", {}, format="json"), 200)
    closed = made(api.post("/api/me/close", CLOSE, format="json"), 200)
    assert closed["bots"] == 1

    assert Seek.objects.get(pk=seek["id"]).status == "cancelled"
    assert reader.get("/api/tables/open").json()["seeks"] == []
    for gone in (hers, invited, to_her_bot):
        assert Challenge.objects.get(pk=gone["id"]).status == "cancelled", gone
    assert Challenge.objects.get(pk=untouched["id"]).status == "pending"
    assert not BotTerms.objects.filter(bot=ann_bot).exists()
    assert BotTerms.objects.filter(bot=other_bot).exists()
    assert not Entry.objects.get(bot=ann_bot).active
    # the others hear of it: the challenges they were in are no longer waiting
    waiting = client_for(bob).get("/api/challenges").json()["challenges"]
    assert {c["id"]: c["status"] for c in waiting}.get(invited["id"]) in (None, "cancelled")
    assert User.objects.get(pk=ann.pk).username.startswith("ghost-")
