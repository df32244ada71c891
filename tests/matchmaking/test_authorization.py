"""The authorization matrix of every matchmaking endpoint (issue #35): who may call each
one, and that every refusal changes nothing (the matchmaking rows, the seats, the
tables and the quota ledger are the same after it)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from server.matchmaking.models import BotTerms, Challenge, ChallengeSeat, QuotaUse, Seek
from server.tables.models import Event, Seat, Table
from tests.server.conftest import client_for, new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def snapshot():
    return (
        list(Seek.objects.order_by("pk").values()),
        list(BotTerms.objects.order_by("pk").values()),
        list(Challenge.objects.order_by("pk").values()),
        list(ChallengeSeat.objects.order_by("pk").values()),
        list(QuotaUse.objects.order_by("pk").values_list("pk", flat=True)),
        list(Seat.objects.order_by("pk").values()),
        Table.objects.count(),
        Event.objects.count(),
    )


@pytest.fixture
def world():
    ann, bob, cid, eve = (new_member(n) for n in ("ann", "bob", "cid", "eve"))
    bot = new_bot(new_member("author"))
    client_for(bot.bot_owner).put(f"/api/bots/{bot.username}/terms", {}, format="json")
    seek = client_for(ann).post("/api/tables/open", {"wanted": "bots"}, format="json").json()
    challenge = (
        client_for(ann)
        .post(
            "/api/challenges",
            {"partner": bob.username, "opponents": [cid.username, bot.username]},
            format="json",
        )
        .json()
    )
    return {
        "ann": ann, "bob": bob, "cid": cid, "eve": eve, "bot": bot,
        "seek": seek["id"], "code": seek["table"], "challenge": challenge["id"],
    }  # fmt: skip


def matrix(w):
    """(method, path, body, caller, status, code): every endpoint, every refusal."""
    seek, challenge, bot = w["seek"], f"/api/challenges/{w['challenge']}", w["bot"].username
    return [
        # the seeker's cancel, refused to anyone else as an unknown seek
        ("post", f"/api/tables/open/{seek}/cancel", None, "eve", 404, "not_found"),
        ("post", f"/api/tables/open/{seek}/cancel", None, "bot", 404, "not_found"),
        ("get", "/api/tables/open/999999", None, "eve", 404, "not_found"),
        # a person at a seek for bots; the seeker's own bad plan
        ("post", f"/api/tables/{w['code']}/join", {"seat": 2}, "eve", 403, "not_wanted"),
        ("post", "/api/tables/open", {"wanted": "bots", "join": []}, "eve", 400,
         "validation_error"),
        ("post", "/api/tables/open", {"wanted": "robots"}, "eve", 400, "validation_error"),
        # terms: only the bot's owner or the bot itself write them
        ("put", f"/api/bots/{bot}/terms", {}, "eve", 404, "not_found"),
        ("delete", f"/api/bots/{bot}/terms", None, "eve", 404, "not_found"),
        ("put", f"/api/bots/{bot}/terms", {}, "ann", 404, "not_found"),
        ("put", f"/api/bots/{w['ann'].username}/terms", {}, "ann", 404, "not_found"),
        ("get", f"/api/bots/{w['eve'].username}/terms", None, "ann", 404, "not_found"),
        # a challenge exists only for its four players
        ("get", challenge, None, "eve", 404, "not_found"),
        ("post", challenge + "/accept", None, "eve", 404, "not_found"),
        ("post", challenge + "/decline", {}, "eve", 404, "not_found"),
        ("post", challenge + "/cancel", None, "eve", 404, "not_found"),
        ("post", challenge + "/cancel", None, "bob", 403, "permission_denied"),
        ("post", challenge + "/decline", {}, "ann", 403, "permission_denied"),
        ("post", challenge + "/decline", {"reason": "bored"}, "bob", 400, "validation_error"),
        ("post", "/api/challenges", {"partner": w["bob"].username,
         "opponents": [w["cid"].username, w["eve"].username], "seconds_per_move": 0}, "ann",
         400, "validation_error"),
        ("post", "/api/challenges", {"partner": w["bob"].username,
         "opponents": [w["cid"].username, w["bob"].username]}, "ann", 400, "validation_error"),
    ]  # fmt: skip


ENDPOINTS = [
    ("get", "/api/tables/open"),
    ("post", "/api/tables/open"),
    ("get", "/api/tables/open/{seek}"),
    ("post", "/api/tables/open/{seek}/cancel"),
    ("get", "/api/bots/terms"),
    ("get", "/api/bots/{bot}/terms"),
    ("put", "/api/bots/{bot}/terms"),
    ("delete", "/api/bots/{bot}/terms"),
    ("get", "/api/challenges"),
    ("post", "/api/challenges"),
    ("get", "/api/challenges/{challenge}"),
    ("post", "/api/challenges/{challenge}/accept"),
    ("post", "/api/challenges/{challenge}/decline"),
    ("post", "/api/challenges/{challenge}/cancel"),
]


def test_every_matchmaking_route_and_method_is_in_the_matrix():
    from server.matchmaking.urls import urlpatterns as mine

    names = {"{seek}": "<id:seek_id>", "{bot}": "<name:name>", "{challenge}": "<id:challenge_id>"}
    served = set()
    for pattern in mine:
        view = pattern.callback.view_class
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view, method):
                served.add((method, "/" + str(pattern.pattern)))
    listed = set()
    for method, template in ENDPOINTS:
        for short, long in names.items():
            template = template.replace(short, long)
        listed.add((method, template))
    assert served == listed


def test_without_a_token_every_endpoint_is_401_and_changes_nothing(world):
    before = snapshot()
    anonymous = APIClient()
    for method, template in ENDPOINTS:
        path = template.format(seek=world["seek"], bot=world["bot"].username,
                               challenge=world["challenge"])  # fmt: skip
        answer = getattr(anonymous, method)(path, {}, format="json")
        assert (answer.status_code, answer.json()["code"]) == (401, "not_authenticated"), path
    assert snapshot() == before


def test_each_refusal_of_the_matrix_changes_nothing(world):
    for method, path, body, caller, status, code in matrix(world):
        before = snapshot()
        api = client_for(world[caller])
        answer = getattr(api, method)(path, body or {}, format="json")
        assert (answer.status_code, answer.json().get("code")) == (status, code), (path, caller)
        assert snapshot() == before, (path, caller)


def test_what_each_one_may_do(world):
    """The allowed cells: anyone signed in reads the list, a seek and a bot's terms; the
    invitees read and answer their challenge; the owner and the bot write its terms."""
    eve, bob, bot = (client_for(world[n]) for n in ("eve", "bob", "bot"))
    assert eve.get("/api/tables/open").status_code == 200
    assert eve.get(f"/api/tables/open/{world['seek']}").status_code == 200
    assert eve.get(f"/api/bots/{world['bot'].username}/terms").status_code == 200
    listed = eve.get("/api/bots/terms").json()["bots"]
    assert [t["bot"] for t in listed] == [world["bot"].username]
    assert bot.put(f"/api/bots/{world['bot'].username}/terms", {}, format="json").status_code == 200
    assert bob.get(f"/api/challenges/{world['challenge']}").status_code == 200
    assert bob.post(f"/api/challenges/{world['challenge']}/accept").status_code == 200
    assert (
        client_for(world["ann"]).post(f"/api/tables/open/{world['seek']}/cancel").status_code == 200
    )
