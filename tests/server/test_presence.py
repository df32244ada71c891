"""Presence: each seat connected (socket, long-poll, a request in the last 60 s) or away
since when; in every seat answer, pushed to the table's sockets when a seat comes or goes."""

from __future__ import annotations

import os
import time
from datetime import datetime

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from server.asgi import application
from server.notices import presence
from tests.server.conftest import Players, client_for, new_member, token_for


def _at(text: str | None) -> float | None:
    return None if text is None else datetime.fromisoformat(text).timestamp()


@pytest.mark.django_db
def test_nobody_present_at_first_then_a_request_keeps_a_seat_here_for_a_minute():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    created = p.table.created_at.timestamp()
    before = presence.seat_presence(table=p.table)
    assert all(not s.connected for s in before.values())
    assert all(abs(s.away_since.timestamp() - created) < 1 for s in before.values())

    body = p.seat(1)  # the owner looks: seat 1 is here
    assert set(body["presence"]) == {"1", "2", "3", "4"}
    assert body["presence"]["1"] == {"connected": True, "away_since": None}
    assert body["presence"]["2"]["connected"] is False
    assert abs(_at(body["presence"]["2"]["away_since"]) - created) < 1

    later = time.time() + presence.ACTIVITY_SECONDS + 1
    gone = presence.seat_presence(table=p.table, now=later)[1]
    assert not gone.connected and gone.away_since.timestamp() <= later
    assert presence.away_since(table=p.table, seat=1) is None
    assert presence.away_since(table=p.table, seat=1, now=later) == gone.away_since


@pytest.mark.django_db
def test_the_answers_presence_is_seat_presence_written_as_json():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    now = time.time()
    presence.touch(table=p.table, seats=(1,), now=now)  # here
    presence.touch(table=p.table, seats=(2,), now=now - presence.ACTIVITY_SECONDS - 5)  # gone
    presence.socket_opened(table_id=p.table.pk, seats=(3,), socket="s1", now=now)  # a socket
    for moment in (now, now + presence.ACTIVITY_SECONDS + 1):  # seat 4: never leased
        expected = {
            str(n): s.as_json()
            for n, s in presence.seat_presence(table=p.table, now=moment).items()
        }
        assert presence.presence_json(table=p.table, now=moment) == expected
    assert [v["connected"] for v in presence.presence_json(table=p.table, now=now).values()] == [
        True,
        False,
        True,
        False,
    ]


@pytest.mark.django_db
def test_an_action_and_a_long_poll_count_as_here():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    version = p.seat(2)["version"]
    assert p.act(2, {"type": "accept", "expected_version": version}).status_code == 200
    assert presence.seat_presence(table=p.table)[2].connected
    # a long-poll keeps the seat here for its wait and a minute more
    asked = time.time()
    p.api(3).get(f"/api/tables/{p.code}/seats/3?wait=0.5&after=999999")
    lease_end = asked + presence.ACTIVITY_SECONDS + 0.4
    assert presence.seat_presence(table=p.table, now=lease_end)[3].connected


@pytest.mark.django_db
def test_only_the_seats_holder_touches_it():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    stranger = client_for(new_member("zed"))
    assert stranger.get(f"/api/tables/{p.code}/seats/1").status_code == 403
    assert not presence.seat_presence(table=p.table)[1].connected


@pytest.mark.django_db(transaction=True)
def test_a_socket_keeps_its_seats_here_and_the_others_are_told_when_it_closes():
    p = Players(kinds=("human", "bot", "human", "bot"))
    owner, bot = token_for(p.owner), token_for(p.bot)

    async def scenario():
        owner_ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}",
            headers=[(b"authorization", f"Token {owner}".encode())],
        )
        bot_ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}?seat=2",
            headers=[(b"authorization", f"Token {bot}".encode())],
        )
        assert (await owner_ws.connect())[0]
        assert await owner_ws.receive_nothing(timeout=0.3)  # no frame about itself
        assert (await bot_ws.connect())[0]
        frame = await owner_ws.receive_json_from(timeout=5)
        assert frame["type"] == "presence"
        assert frame["presence"]["2"] == {"connected": True, "away_since": None}
        assert frame["presence"]["1"]["connected"] and frame["presence"]["3"]["connected"]
        assert frame["presence"]["4"]["connected"] is False  # never came
        # the bot made no request: its socket alone keeps seat 2 here
        assert presence.seat_presence(table=p.table)[2].connected
        await bot_ws.disconnect()
        frame = await owner_ws.receive_json_from(timeout=5)
        assert frame["type"] == "presence"
        assert frame["presence"]["2"]["connected"] is False
        assert frame["presence"]["2"]["away_since"] is not None
        assert set(frame) == {"type", "presence"}  # nothing else about the other seats
        await owner_ws.disconnect()

    async_to_sync(scenario)()


@pytest.mark.backend
@pytest.mark.django_db
def test_leases_live_in_redis_when_it_is_configured():
    if not os.environ.get("REDIS_URL"):
        pytest.skip("backend run only")
    assert isinstance(presence.store(), presence.RedisLeases)
    p = Players(kinds=("human", "bot", "bot", "bot"))
    p.seat(1)
    # another process reads the same leases: a fresh store on the same Redis sees them
    other = presence.RedisLeases(
        os.environ["REDIS_URL"], os.environ.get("DEKABES_CHANNEL_PREFIX", "dekabes")
    )
    assert any(member == "1" for member in other.read(p.table.pk))
