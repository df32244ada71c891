"""Challenges with published terms (issue #35, point 2): a bot's owner publishes what it
takes; a challenge outside an invited bot's terms is refused before it is made (409
outside_terms, nothing written); an invitee may decline with a reason from the fixed
list; four seats at once, the table starts when every invitee has accepted."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.utils import timezone

from server.league.tick import tick
from server.matchmaking.models import BotTerms, Challenge, ChallengeSeat, QuotaUse
from server.tables import projection
from server.tables.models import Seat, Table
from tests.server.conftest import client_for, new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def publish(bot, by=None, **terms):
    answer = client_for(by or bot.bot_owner).put(
        f"/api/bots/{bot.username}/terms", terms, format="json"
    )
    assert answer.status_code == 200, answer.content
    return answer.json()


def challenge(api, partner, opponents, **body):
    return api.post(
        "/api/challenges",
        {"partner": partner.username, "opponents": [o.username for o in opponents], **body},
        format="json",
    )


def counts():
    return (
        Challenge.objects.count(),
        ChallengeSeat.objects.count(),
        Table.objects.count(),
        QuotaUse.objects.count(),
    )


def bot_with_terms(**terms):
    bot = new_bot(new_member("owner"))
    publish(bot, **terms)
    return bot


def test_four_seats_each_invitee_accepts_and_the_table_starts_when_all_have():
    ann, bob, cid = new_member(), new_member(), new_member()
    bot = bot_with_terms(opponents="people", partners="people")
    made = challenge(client_for(ann), bob, [cid, bot], seconds_per_move=20)
    assert made.status_code == 201, made.content
    body = made.json()
    assert [(s["number"], s["answer"]) for s in body["seats"]] == [
        (1, "accepted"), (2, "pending"), (3, "pending"), (4, "pending"),
    ]  # fmt: skip
    assert body["table"] is None and body["status"] == "pending"
    # each invitee sees it in its list
    listed = client_for(bot).get("/api/challenges").json()
    assert [c["id"] for c in listed["challenges"]] == [body["id"]]
    for invitee in (bob, cid):
        answer = client_for(invitee).post(f"/api/challenges/{body['id']}/accept")
        assert answer.status_code == 200 and answer.json()["status"] == "pending"
    done = client_for(bot).post(f"/api/challenges/{body['id']}/accept").json()
    assert done["status"] == "started" and done["table"]
    table = Table.objects.get(code=done["table"])
    seated = {s.number: s.player_id for s in Seat.objects.filter(table=table)}
    assert seated == {1: ann.pk, 2: cid.pk, 3: bob.pk, 4: bot.pk}
    assert table.owner_id == ann.pk and not table.rated
    assert projection.project(table).match.phase == "accept"


def test_a_challenge_outside_a_bots_terms_is_refused_before_it_is_made():
    ann, bob, cid = new_member(), new_member(), new_member()
    no_terms = new_bot(new_member("owner"))
    hours = (timezone.now().hour + 2) % 24
    cases = [
        (no_terms, {}, "publishes no terms"),
        (bot_with_terms(), {"rated": True}, "casual games only"),
        (bot_with_terms(casual=False, rated=True), {}, "rated games only"),
        (bot_with_terms(opponents="bots"), {}, "against bots only"),
        (bot_with_terms(partners="bots"), {}, "partners bots only"),
        (bot_with_terms(min_seconds_per_move=30), {"seconds_per_move": 5}, "seconds per move"),
        (bot_with_terms(max_seconds_per_move=10), {"seconds_per_move": 60}, "seconds per move"),
        (bot_with_terms(games_per_day=0), {}, "challenge games a day"),
        (bot_with_terms(hours_from=hours, hours_to=(hours + 1) % 24), {}, "UTC"),
    ]
    for bot, body, why in cases:
        before = counts()
        refused = challenge(client_for(ann), bob, [cid, bot], **body)
        assert (refused.status_code, refused.json()["code"]) == (409, "outside_terms"), why
        assert why in refused.json()["message"] and bot.username in refused.json()["message"]
        assert counts() == before
    # as partner, the same bot's terms read the other way round
    only_bots_partner = bot_with_terms(partners="bots")
    refused = challenge(client_for(ann), only_bots_partner, [bob, cid])
    assert refused.json()["code"] == "outside_terms"


def test_games_per_day_counts_the_bots_accepted_challenges():
    bot = bot_with_terms(games_per_day=1)
    people = [new_member() for _ in range(6)]
    first = challenge(client_for(people[0]), people[1], [people[2], bot]).json()
    assert client_for(bot).post(f"/api/challenges/{first['id']}/accept").status_code == 200
    refused = challenge(client_for(people[3]), people[4], [people[5], bot])
    assert refused.json()["code"] == "outside_terms"


def test_an_invitee_declines_with_a_reason_from_the_fixed_list():
    ann, bob, cid = new_member(), new_member(), new_member()
    bot = bot_with_terms()
    made = challenge(client_for(ann), bob, [cid, bot]).json()
    before = counts()
    bad = client_for(bot).post(
        f"/api/challenges/{made['id']}/decline", {"reason": "no reason"}, format="json"
    )
    assert (bad.status_code, bad.json()["code"]) == (400, "validation_error")
    assert counts() == before and Challenge.objects.get(pk=made["id"]).status == "pending"
    declined = client_for(bot).post(
        f"/api/challenges/{made['id']}/decline", {"reason": "later"}, format="json"
    )
    assert declined.status_code == 200
    body = declined.json()
    assert body["status"] == "declined"
    assert [(s["answer"], s["reason"]) for s in body["seats"] if s["number"] == 4] == [
        ("declined", "later")
    ]
    late = client_for(bob).post(f"/api/challenges/{made['id']}/accept")
    assert (late.status_code, late.json()["code"]) == (409, "no_longer_open")


def test_the_authorization_matrix_of_challenges_and_terms():
    ann, bob, cid, eve = new_member(), new_member(), new_member(), new_member("eve")
    bot = bot_with_terms()
    made = challenge(client_for(ann), bob, [cid, bot]).json()
    path = f"/api/challenges/{made['id']}"
    before = counts()
    # an outsider: the challenge does not exist for them
    for method, suffix in (
        ("get", ""),
        ("post", "/accept"),
        ("post", "/decline"),
        ("post", "/cancel"),
    ):
        answer = getattr(client_for(eve), method)(path + suffix, {}, format="json")
        assert (answer.status_code, answer.json()["code"]) == (404, "not_found"), suffix
    # an invitee does not cancel; the challenger does not decline
    answer = client_for(bob).post(path + "/cancel")
    assert (answer.status_code, answer.json()["code"]) == (403, "permission_denied")
    answer = client_for(ann).post(path + "/decline", {}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (403, "permission_denied")
    # terms: only the bot's owner or the bot itself publish; a stranger's bot is not found
    terms_before = list(BotTerms.objects.values())
    answer = client_for(eve).put(f"/api/bots/{bot.username}/terms", {}, format="json")
    assert (answer.status_code, answer.json()["code"]) == (404, "not_found")
    answer = client_for(eve).delete(f"/api/bots/{bot.username}/terms")
    assert (answer.status_code, answer.json()["code"]) == (404, "not_found")
    assert list(BotTerms.objects.values()) == terms_before
    assert client_for(eve).get(f"/api/bots/{bot.username}/terms").status_code == 200  # public
    publish(bot, by=bot, games_per_day=7)  # the bot itself
    # without a token: 401 everywhere
    from rest_framework.test import APIClient

    anonymous = APIClient()
    for method, url in (
        ("get", "/api/challenges"), ("post", "/api/challenges"), ("get", path),
        ("post", path + "/accept"), ("get", "/api/tables/open"), ("post", "/api/tables/open"),
        ("put", f"/api/bots/{bot.username}/terms"), ("get", f"/api/bots/{bot.username}/terms"),
    ):  # fmt: skip
        answer = getattr(anonymous, method)(url, {}, format="json")
        assert (answer.status_code, answer.json()["code"]) == (401, "not_authenticated"), url
    assert counts() == before
    # the challenger cancels
    assert client_for(ann).post(path + "/cancel").json()["status"] == "cancelled"


def test_a_pending_challenge_expires_by_the_tick():
    ann, bob, cid = new_member(), new_member(), new_member()
    made = challenge(client_for(ann), bob, [cid, bot_with_terms()], minutes=1).json()
    Challenge.objects.filter(pk=made["id"]).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    late = client_for(bob).post(f"/api/challenges/{made['id']}/accept")
    assert (late.status_code, late.json()["code"]) == (409, "no_longer_open")
    assert Challenge.objects.get(pk=made["id"]).status == "pending"  # a refusal writes nothing
    assert tick().challenges_expired == [made["id"]]
    assert Challenge.objects.get(pk=made["id"]).status == "expired"


def test_a_rated_challenge_keeps_one_seat_per_person():
    ann, bob, cid = new_member(), new_member(), new_member()
    mine = new_bot(ann)
    publish(mine, rated=True)
    refused = challenge(client_for(ann), mine, [bob, cid], rated=True)
    assert (refused.status_code, refused.json()["code"]) == (409, "one_seat_per_player")


@override_settings(DEKABES_BOT_GAMES_PER_DAY=1)
def test_a_bots_daily_quota_refuses_a_challenge_with_429():
    bot = bot_with_terms()
    people = [new_member() for _ in range(6)]
    first = challenge(client_for(people[0]), people[1], [people[2], bot]).json()
    assert client_for(bot).post(f"/api/challenges/{first['id']}/accept").status_code == 200
    before = counts()
    refused = challenge(client_for(people[3]), people[4], [people[5], bot])
    assert (refused.status_code, refused.json()["code"]) == (429, "daily_limit")
    assert int(refused["Retry-After"]) > 0
    assert counts() == before


def test_the_challenge_list_long_polls_on_its_version():
    ann, bob, cid = new_member(), new_member(), new_member()
    api = client_for(bob)
    version = api.get("/api/challenges").json()["version"]
    challenge(client_for(ann), bob, [cid, bot_with_terms()])
    answer = api.get(f"/api/challenges?wait=5&after={version}").json()
    assert answer["version"] > version and len(answer["challenges"]) == 1
