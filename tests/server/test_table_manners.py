"""Casual tables with several people: takeback by consent and pause limits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from server.notices import presence
from server.tables import projection, services, table_state
from tests.server.conftest import Players, client_for, new_member

pytestmark = pytest.mark.usefixtures("action_path")  # every action over REST and the socket


class TwoPeople(Players):
    """The owner at seats 1 and 3, a second person at seat 2, a bot at seat 4."""

    def __init__(self):
        super().__init__(kinds=("human", "human", "human", "bot"), humans_joined=False)
        self.guest = new_member("gus")
        self.guest_api = client_for(self.guest)
        for n, api in ((1, self.owner_api), (3, self.owner_api), (2, self.guest_api)):
            assert (
                api.post(f"/api/tables/{self.code}/join", {"seat": n}, format="json").status_code
                == 200
            )

    def api(self, seat):
        return self.guest_api if seat == 2 else super().api(seat)


def play_until_undoable(p: Players) -> dict:
    """Accept the deal and play until an undo is possible; the last seat answer."""
    for _ in range(40):
        for seat in (1, 2, 3, 4):
            body = p.seat(seat)
            if "undo" in body["allowed"] or (
                body["takeback"] is None and "undo" in p.seat(1)["allowed"]
            ):
                return p.seat(1)
            legal = body["view"]["legal"]
            if legal:
                assert p.send(legal[0], body["version"]).status_code == 200
                break
    raise AssertionError("no undo came")


def engine_log(p: Players) -> list:
    return [(seq, kind) for seq, kind, *_ in p.log()]


@pytest.mark.django_db
def test_one_person_undoes_at_once():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    body = play_until_undoable(p)
    before = body["version"]
    response = p.act(1, {"type": "undo", "expected_version": before})
    assert response.status_code == 200
    assert response.json()["takeback"] is None
    assert p.log()[-1][1] == "undo"


@pytest.mark.django_db
def test_a_declined_request_changes_nothing_and_an_accepted_one_undoes():
    p = TwoPeople()
    body = play_until_undoable(p)
    match_before = projection.project(p.table).match.summary()
    # the guest (not the owner) may ask too; here the owner asks
    response = p.act(1, {"type": "undo", "expected_version": body["version"]})
    assert response.status_code == 200, response.content
    asked = response.json()
    assert asked["takeback"] == {"seat": 1, "command": "undo", "waiting_for": [2]}
    assert p.log()[-1][1] == "takeback_request"
    assert projection.project(p.table).match.summary() == match_before
    # the requester cannot answer; the guest can; a second request waits
    assert "accept_takeback" not in asked["allowed"]
    again = p.act(1, {"type": "undo", "expected_version": asked["version"]})
    assert again.status_code == 409 and again.json()["code"] == "takeback_pending"
    own = p.act(3, {"type": "accept_takeback", "expected_version": asked["version"]})
    assert own.status_code == 403 and own.json()["code"] == "not_a_voter"
    guest_view = p.seat(2)
    assert {"accept_takeback", "decline_takeback"} <= set(guest_view["allowed"])
    bot = p.act(4, {"type": "accept_takeback", "expected_version": asked["version"]})
    assert bot.status_code == 403

    declined = p.act(2, {"type": "decline_takeback", "expected_version": asked["version"]})
    assert declined.status_code == 200
    assert declined.json()["takeback"] is None
    assert projection.project(p.table).match.summary() == match_before
    assert [kind for _, kind in engine_log(p)[-2:]] == ["takeback_request", "takeback_answer"]
    none = p.act(2, {"type": "accept_takeback", "expected_version": declined.json()["version"]})
    assert none.status_code == 409 and none.json()["code"] == "no_takeback_request"

    # the guest asks this time, the owner accepts: the undo is applied
    version = declined.json()["version"]
    asked = p.act(2, {"type": "undo", "expected_version": version}).json()
    assert asked["takeback"]["waiting_for"] == [1]  # one answer per person (seats 1 and 3)
    accepted = p.act(3, {"type": "accept_takeback", "expected_version": asked["version"]})
    assert accepted.status_code == 200
    kinds = [kind for _, kind in engine_log(p)]
    assert kinds[-3:-1] == ["takeback_request", "takeback_answer"] and "undo" in kinds[-2:]
    assert projection.project(p.table).match.summary() != match_before
    undo_row = next(row for row in reversed(p.log()) if row[1] == "undo")
    assert undo_row[2] == {"type": "undo", "seat": 2} and undo_row[4] == "server"


@pytest.mark.django_db
def test_a_play_ends_an_open_request():
    p = TwoPeople()
    body = play_until_undoable(p)
    asked = p.act(1, {"type": "undo", "expected_version": body["version"]}).json()
    assert asked["takeback"] is not None
    for seat in (1, 2, 3, 4):
        seat_body = p.seat(seat)
        if seat_body["view"]["legal"]:
            assert p.send(seat_body["view"]["legal"][0], seat_body["version"]).status_code == 200
            break
    assert p.seat(2)["takeback"] is None


@pytest.mark.django_db
def test_the_table_shows_who_paused_and_a_pause_lifts_when_its_client_is_away():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    version = p.seat(1)["version"]
    paused = p.act(1, {"type": "pause", "expected_version": version}).json()
    assert paused["table"]["paused_by"] == [1] and paused["paused"]
    # still here: the pause holds
    assert services.lapsed_pauses(p.table, projection.project(p.table)) == {}
    # the client goes away (no socket, no request for more than a minute)
    presence.forget_all()
    log = p.log()
    body = p.api(2).get(f"/api/tables/{p.code}/seats/2").json()  # the bot looks
    assert body["paused"] and p.log() == log  # a read changes nothing
    # the ticking driver lifts it
    assert services.lift_due_pauses() == [(p.code, 1, "away")]
    body = p.api(2).get(f"/api/tables/{p.code}/seats/2").json()
    assert body["paused"] is False and body["table"]["paused_by"] == []
    resume = p.log()[-1]
    assert resume[1] == "resume" and resume[2]["lapsed"] == "away" and resume[4] == "server"
    assert services.lift_due_pauses() == []  # nothing more to lift


@pytest.mark.django_db
def test_a_pause_lifts_after_ten_minutes_even_when_its_client_is_here():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    version = p.seat(1)["version"]
    p.act(1, {"type": "pause", "expected_version": version})
    state = projection.project(p.table)
    soon = datetime.now(UTC) + timedelta(minutes=9)
    presence.touch(table=p.table, seats=(1,), now=soon.timestamp())  # still here
    assert services.lapsed_pauses(p.table, state, soon) == {}
    later = datetime.now(UTC) + table_state.PAUSE_LIMIT + timedelta(seconds=1)
    presence.touch(table=p.table, seats=(1,), now=later.timestamp())  # here all along
    assert services.lapsed_pauses(p.table, state, later) == {1: "time"}
    lifted = services.lift_lapsed_pauses(table=p.table, now=later)
    assert not lifted.paused
    assert p.log()[-1][2] == {"type": "resume", "seat": 1, "lapsed": "time"}


@pytest.mark.django_db
def test_a_bot_refused_by_a_lapsed_pause_gets_the_new_version():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    version = p.seat(1)["version"]
    p.act(1, {"type": "pause", "expected_version": version})
    presence.forget_all()
    body = projection.project(p.table)
    response = p.act(2, {"type": "accept", "expected_version": body.version})
    assert response.status_code == 409 and response.json()["code"] == "stale_version"
    assert p.log()[-1][1] == "resume"


@pytest.mark.django_db(transaction=True)
def test_a_pause_from_a_client_that_disconnects_lifts(monkeypatch):
    import asyncio
    import time

    from asgiref.sync import async_to_sync, sync_to_async
    from channels.testing import WebsocketCommunicator

    from server.asgi import application
    from tests.server.conftest import token_for

    monkeypatch.setattr(presence, "ACTIVITY_SECONDS", 0.0)  # only the socket counts
    p = Players(kinds=("human", "bot", "bot", "bot"))
    token = token_for(p.owner)

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert (await ws.connect())[0]
        version = (await sync_to_async(p.seat)(1))["version"]
        paused = await sync_to_async(p.act)(1, {"type": "pause", "expected_version": version})
        assert paused.json()["paused"]
        table = await sync_to_async(projection.project)(p.table)
        assert table.paused  # the socket keeps seat 1 here
        await ws.disconnect(timeout=10)
        deadline = time.monotonic() + 10
        while (await sync_to_async(p.log)())[-1][1] != "resume":
            assert time.monotonic() < deadline, "the pause never lifted"
            await asyncio.sleep(0.05)

    async_to_sync(scenario)()
    log = p.log()
    assert log[-1][1] == "resume" and log[-1][2]["lapsed"] == "away"
    assert not projection.project(p.table).paused


@pytest.mark.django_db
def test_the_driver_lifts_by_time_only_where_it_cannot_see_presence(monkeypatch):
    """A command started beside a server without Redis sees none of its leases: every
    seat would look away. There the driver lifts a pause only once PAUSE_LIMIT has passed."""
    p = Players(kinds=("human", "bot", "bot", "bot"))
    version = p.seat(1)["version"]
    p.act(1, {"type": "pause", "expected_version": version})
    elsewhere = presence.MemoryLeases()  # another process's: it never took a lease
    monkeypatch.setattr(presence, "_store", elsewhere)
    assert not presence.seen_here()
    assert services.lift_due_pauses() == []
    assert projection.project(p.table).paused
    later = datetime.now(UTC) + table_state.PAUSE_LIMIT + timedelta(seconds=1)
    assert services.lift_due_pauses(now=later) == [(p.code, 1, "time")]
    assert not projection.project(p.table).paused
