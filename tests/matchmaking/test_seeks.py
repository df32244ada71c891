"""Open seats (issue #35, point 1): a casual table seeking players is listed at
``GET /api/tables/open`` for the kind of player it wants and its level range; anyone it
admits takes a seat with the ordinary join; the table starts when full; an unfilled seek
expires by the tick, never by a read. Every refusal changes nothing."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.test import override_settings
from django.utils import timezone

from server.league.models import Club, Rating
from server.league.tick import tick
from server.matchmaking.models import QuotaUse, Seek
from server.tables import projection
from server.tables.models import Seat, Table
from tests.server.conftest import client_for, new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def seek(api, **body):
    answer = api.post("/api/tables/open", {"wanted": "bots", **body}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def seats_of(code: str) -> dict[int, tuple[str, int | None]]:
    return {s.number: (s.kind, s.player_id) for s in Seat.objects.filter(table__code=code)}


def join(api, code: str, seat: int):
    return api.post(f"/api/tables/{code}/join", {"seat": seat}, format="json")


def outside_bot():
    """A bot of another member (before seeks, it could join only its owner's tables)."""
    return new_bot(new_member("owner"))


def test_a_seek_is_listed_and_an_outside_bot_takes_a_seat_with_the_ordinary_join():
    ann = new_member()
    made = seek(client_for(ann))
    assert made["open_seats"] == [2, 3, 4] and made["status"] == "open"
    assert made["seats"]["1"] == {"kind": "human", "player": ann.username, "is_bot": False}
    watcher = client_for(new_member("bob"))
    listed = watcher.get("/api/tables/open").json()
    assert [s["id"] for s in listed["seeks"]] == [made["id"]]
    bot = outside_bot()
    answer = join(client_for(bot), made["table"], 2)
    assert answer.status_code == 200, answer.content
    assert seats_of(made["table"])[2] == ("bot", bot.pk)
    assert watcher.get("/api/tables/open").json()["seeks"][0]["open_seats"] == [3, 4]


def test_the_list_never_shows_a_hand_or_the_match():
    ann = new_member()
    made = seek(client_for(ann))
    table = Table.objects.get(code=made["table"])
    hand = projection.project(table).match.seat_view(1)["hand"]
    text = client_for(new_member("bob")).get("/api/tables/open").content.decode()
    body = json.loads(text)
    assert set(body["seeks"][0]) == {
        "id", "table", "owner", "wanted", "min_level", "max_level", "status",
        "open_seats", "seats", "created_at", "expires_at",
    }  # fmt: skip
    assert not any(f'"{tile}"' in text for tile in hand)


def test_the_table_starts_when_full_and_the_seek_closes_as_filled():
    ann = new_member()
    made = seek(client_for(ann))
    for seat in (2, 3, 4):
        assert join(client_for(outside_bot()), made["table"], seat).status_code == 200
    assert Seek.objects.get(pk=made["id"]).status == "filled"
    assert client_for(new_member()).get("/api/tables/open").json()["seeks"] == []
    # every seat is held: each accepts the deal and play begins (the owner opens)
    table = Table.objects.get(code=made["table"])
    holders = {s.number: s.player for s in Seat.objects.filter(table=table)}
    for number in (1, 2, 3, 4):
        api = client_for(holders[number])
        version = api.get(f"/api/tables/{table.code}/seats/{number}").json()["version"]
        answer = api.post(
            f"/api/tables/{table.code}/seats/{number}/actions",
            {"type": "accept", "expected_version": version},
            format="json",
        )
        assert answer.status_code == 200, answer.content
    assert projection.project(table).match.phase in ("choose_opener", "play")


def test_refusals_change_nothing():
    ann = new_member()
    people = seek(client_for(ann), wanted="people")
    bots = seek(client_for(new_member()), wanted="bots")
    before = (seats_of(people["table"]), seats_of(bots["table"]), QuotaUse.objects.count())
    refused = join(client_for(outside_bot()), people["table"], 2)
    assert (refused.status_code, refused.json()["code"]) == (403, "not_wanted")
    refused = join(client_for(new_member()), bots["table"], 2)
    assert (refused.status_code, refused.json()["code"]) == (403, "not_wanted")
    # one seat per person: a member's second bot counts as the member
    owner = new_member()
    assert join(client_for(new_bot(owner)), bots["table"], 2).status_code == 200
    before = (seats_of(people["table"]), seats_of(bots["table"]), QuotaUse.objects.count())
    refused = join(client_for(new_bot(owner)), bots["table"], 3)
    assert (refused.status_code, refused.json()["code"]) == (409, "one_seat_per_player")
    assert (seats_of(people["table"]), seats_of(bots["table"]), QuotaUse.objects.count()) == before


def test_an_any_seek_gives_a_bot_a_seat_of_its_kind():
    made = seek(client_for(new_member()), wanted="any")
    assert made["seats"]["2"]["kind"] == "human"
    bot = outside_bot()
    assert join(client_for(bot), made["table"], 2).status_code == 200
    assert seats_of(made["table"])[2] == ("bot", bot.pk)
    person = new_member()
    assert join(client_for(person), made["table"], 3).status_code == 200
    assert seats_of(made["table"])[3] == ("human", person.pk)


def rated(user, ordinal: float) -> None:
    club = Club.objects.create(slug=f"c{user.pk}", name="c", created_by=user)
    Rating.objects.create(club=club, player=user, mu=25, sigma=1, ordinal=ordinal, matches=3)


def test_the_level_range_admits_only_levels_inside_it():
    made = seek(client_for(new_member()), wanted="people", min_level=10, max_level=20)
    low, high, fit = new_member(), new_member(), new_member()
    rated(high, 25.0)
    rated(fit, 12.5)
    for outside in (low, high):  # unrated is level 0
        refused = join(client_for(outside), made["table"], 2)
        assert (refused.status_code, refused.json()["code"]) == (403, "outside_level_range")
    assert seats_of(made["table"])[2][1] is None
    fits = client_for(fit).get("/api/tables/open?fits=1").json()["seeks"]
    assert [s["id"] for s in fits] == [made["id"]]
    assert client_for(low).get("/api/tables/open?fits=1").json()["seeks"] == []
    assert join(client_for(fit), made["table"], 2).status_code == 200


def test_an_unfilled_seek_expires_by_the_tick_never_by_a_read():
    made = seek(client_for(new_member()), minutes=1)
    Seek.objects.filter(pk=made["id"]).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    reader = client_for(new_member())
    assert reader.get("/api/tables/open").json()["seeks"] == []  # past its time: not listed
    assert reader.get(f"/api/tables/open/{made['id']}").json()["status"] == "open"  # unchanged
    # past its time its seats are offered no more: the table's own rules decide
    refused = join(client_for(outside_bot()), made["table"], 2)
    assert (refused.status_code, refused.json()["code"]) == (403, "permission_denied")
    version = reader.get("/api/tables/open").json()["version"]
    done = tick()
    assert done.seeks_closed == [made["id"]]
    assert Seek.objects.get(pk=made["id"]).status == "expired"
    assert reader.get("/api/tables/open").json()["version"] > version
    assert tick().seeks_closed == []


def test_the_seeker_cancels_and_nobody_else_can():
    ann = new_member()
    made = seek(client_for(ann))
    other = client_for(new_member()).post(f"/api/tables/open/{made['id']}/cancel")
    assert (other.status_code, other.json()["code"]) == (404, "not_found")
    assert Seek.objects.get(pk=made["id"]).status == "open"
    done = client_for(ann).post(f"/api/tables/open/{made['id']}/cancel")
    assert done.status_code == 200 and done.json()["status"] == "cancelled"
    again = client_for(ann).post(f"/api/tables/open/{made['id']}/cancel")
    assert (again.status_code, again.json()["code"]) == (409, "no_longer_open")


def test_a_bot_seeks_too():
    bot = outside_bot()
    made = seek(client_for(bot), wanted="any")
    assert made["owner"] == bot.username and made["seats"]["1"]["is_bot"] is True
    refused = client_for(bot).post(
        "/api/tables/open", {"wanted": "any", "join": [1, 2]}, format="json"
    )
    assert (refused.status_code, refused.json()["code"]) == (400, "validation_error")


def test_a_long_poll_answers_at_once_past_its_version_and_waits_otherwise():
    api = client_for(new_member())
    version = api.get("/api/tables/open").json()["version"]
    seek(client_for(new_member()))
    answer = api.get(f"/api/tables/open?wait=5&after={version}").json()
    assert answer["version"] > version and len(answer["seeks"]) == 1
    same = api.get(f"/api/tables/open?wait=0.3&after={answer['version']}").json()
    assert same["version"] == answer["version"]


@override_settings(DEKABES_BOT_GAMES_PER_DAY=2, DEKABES_OWNER_GAMES_PER_DAY=3)
def test_daily_quotas_per_bot_and_per_owner_answer_429_with_retry_after():
    owner = new_member("owner")
    first, second = new_bot(owner), new_bot(owner)
    codes = [seek(client_for(new_member()))["table"] for _ in range(5)]
    assert join(client_for(first), codes[0], 2).status_code == 200
    assert join(client_for(first), codes[1], 2).status_code == 200
    before = seats_of(codes[2])
    refused = join(client_for(first), codes[2], 2)
    assert (refused.status_code, refused.json()["code"]) == (429, "daily_limit")
    assert 0 < int(refused["Retry-After"]) <= 24 * 3600
    assert seats_of(codes[2]) == before
    assert join(client_for(second), codes[2], 2).status_code == 200  # the owner's third
    refused = join(client_for(second), codes[3], 2)
    assert (refused.status_code, refused.json()["code"]) == (429, "daily_limit")
    assert "owner" in refused.json()["message"]
    # a day later the uses have aged out
    QuotaUse.objects.update(at=timezone.now() - dt.timedelta(hours=25))
    assert join(client_for(second), codes[3], 2).status_code == 200


def test_a_seek_filled_another_way_is_closed_as_filled_by_the_tick():
    ann = new_member()
    made = seek(client_for(ann), wanted="people")
    mine = new_bot(ann)
    for seat in (2, 3, 4):
        answer = client_for(ann).post(
            f"/api/tables/{made['table']}/seats/{seat}/replace", {"bot": mine.username},
            format="json",
        )  # fmt: skip
        assert answer.status_code == 200, answer.content
    assert client_for(new_member()).get("/api/tables/open").json()["seeks"] == []
    assert tick().seeks_closed == [made["id"]]
    assert Seek.objects.get(pk=made["id"]).status == "filled"
