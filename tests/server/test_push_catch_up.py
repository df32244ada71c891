"""A push lost on its way is made good at the socket's next ping.

A table's change reaches its sockets through the process's hub; when the hub fails to
pass one on (a build or a presence read that raised), or Redis loses the channel
message, the table's sockets there missed that version until the table's next change,
which may never come: the seat that must act is waiting for that very view. At each ping
round the seat sockets pinged are compared with their tables' newest versions (one
query for the round) and any behind are sent the newest views; a spectator's ping does
the same for its table's frame (docs/api.md, "Pushes")."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from server.asgi import application
from server.sockets import consumers
from server.tables import selectors
from server.tables.models import Event
from tests.server.conftest import Players, client_for, token_for
from tests.server.test_socket_actions import socket
from tests.server.test_socket_receives import accept
from tests.server.test_spectate import spectator

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

PING = 0.3  # seconds between pings in these tests


def lose_the_next_change(monkeypatch, hub) -> list[int]:
    """The hub fails to pass on the next ``table.changed`` it hears (as a build that
    raised); the versions it failed, listed."""
    lost: list[int] = []
    handle = hub.handle

    async def failing(key, message):
        if message.get("type") == "table.changed" and not lost:
            lost.append(message.get("version"))
            raise RuntimeError("a build that failed")
        await handle(key, message)

    monkeypatch.setattr(hub, "handle", failing)
    return lost


async def first_frame(
    ws: WebsocketCommunicator, seconds: float = 20, pings: int | None = None, kind: str = "view"
) -> tuple[dict | None, int]:
    """The first frame of ``kind`` (None: none came), and the pings before it; it waits at
    most ``seconds``, and no longer than ``pings`` pings when given."""
    seen = 0
    loop_time = asyncio.get_running_loop().time
    ends = loop_time() + seconds
    while loop_time() < ends and (pings is None or seen < pings):
        if await ws.receive_nothing(timeout=0.1):
            continue
        frame = json.loads(await ws.receive_from())
        if frame["type"] == kind:
            return frame, seen
        seen += frame["type"] == "ping"
    return None, seen


def test_a_seat_socket_that_missed_a_push_gets_the_newest_view_at_its_next_ping(monkeypatch):
    p = Players(kinds=("human", "bot", "human", "bot"))
    lost = lose_the_next_change(monkeypatch, consumers.seat_hub)
    token = token_for(p.owner)

    async def scenario():
        ws = socket(p, token, seat=1)
        assert (await ws.connect())[0]
        version = await sync_to_async(accept)(p.table, 2, p.bot)  # its push is lost
        frame, pings = await first_frame(ws)
        await ws.disconnect()
        return version, frame, pings

    with override_settings(WS_PING_SECONDS=PING):
        version, frame, pings = async_to_sync(scenario)()
    assert lost == [version]
    assert frame is not None, "no view after the lost push"
    assert pings >= 1  # brought by a ping round, not by the hub
    assert frame["version"] == version and frame["seat"] == 1
    # the seat's own view, as its GET gives it: nobody else's hand
    assert frame["view"] == p.seat(1)["view"]


def test_a_socket_at_the_tables_version_is_sent_nothing_at_its_pings():
    """No catch-up is owed for the version its client read once it opened, nor for a
    version it was pushed: pings only."""
    p = Players(kinds=("human", "bot", "human", "bot"))
    accept(p.table, 2, p.bot)  # the table is past its first version when the socket opens
    token = token_for(p.owner)

    async def scenario():
        ws = socket(p, token, seat=1)
        assert (await ws.connect())[0]
        quiet, pings_before = await first_frame(ws, pings=3)
        version = await sync_to_async(accept)(p.table, 4, p.bot)
        pushed, _ = await first_frame(ws)
        after, pings_after = await first_frame(ws, pings=3)
        await ws.disconnect()
        return quiet, pings_before, version, pushed, after, pings_after

    with override_settings(WS_PING_SECONDS=PING):
        quiet, pings_before, version, pushed, after, pings_after = async_to_sync(scenario)()
    assert quiet is None and pings_before == 3
    assert pushed is not None and pushed["version"] == version
    assert after is None and pings_after == 3


def test_a_spectator_that_missed_a_frame_gets_the_newest_at_its_next_ping(monkeypatch):
    p = Players(kinds=("human", "bot", "bot", "bot"))
    lost = lose_the_next_change(monkeypatch, consumers.hub)
    token = token_for(p.owner)

    async def scenario():
        ws = spectator(token, p.code)
        assert (await ws.connect())[0]
        first = json.loads(await ws.receive_from(timeout=5))
        version = await sync_to_async(accept)(p.table, 2, p.bot)
        frame, pings = await first_frame(ws)
        await ws.disconnect()
        return first, version, frame, pings

    with override_settings(WS_PING_SECONDS=PING):
        first, version, frame, pings = async_to_sync(scenario)()
    assert first["type"] == "view" and first["version"] < version
    assert lost == [version]
    assert frame is not None, "no frame after the lost one"
    assert pings >= 1
    assert frame["version"] == version
    assert frame == json.loads(p.owner_api.get(f"/api/tables/{p.code}/spectate").content) | {
        "type": "view"
    }


def test_a_rounds_newest_versions_are_one_query_whatever_the_number_of_tables():
    tables = [Players() for _ in range(3)]
    accept(tables[0].table, 1, tables[0].owner)
    ids = {t.table.pk for t in tables}
    with CaptureQueriesContext(connection) as queries:
        versions = selectors.current_versions(ids)
    assert len(queries) == 1
    # a log's seqs are 1, 2, 3... without a gap: the newest is the count
    assert versions == {t.table.pk: Event.objects.filter(table=t.table).count() for t in tables}
    assert versions[tables[0].table.pk] > versions[tables[1].table.pk]


def test_a_lobby_that_missed_its_tables_gets_them_at_its_next_ping(monkeypatch):
    """A round seats the account; the notice to its lobby is lost. At the lobby's next
    ping its tables' version has moved past what it was sent: it is sent them again."""
    from tests.league.test_league_api import League

    league = League(members=4)
    member = league.members[0]
    token = token_for(member)
    lost: list[str] = []
    handle = consumers.lobby_hub.handle

    async def failing(key, message):
        if message.get("type") == "league.tables" and not lost:
            lost.append(message["type"])
            return  # dropped, as a notice Redis lost
        await handle(key, message)

    monkeypatch.setattr(consumers.lobby_hub, "handle", failing)

    async def scenario():
        ws = WebsocketCommunicator(
            application, "/ws/me", headers=[(b"authorization", f"Token {token}".encode())]
        )
        assert (await ws.connect())[0]
        first = await ws.receive_json_from(timeout=10)
        await sync_to_async(league.start_round)()
        frame, pings = await first_frame(ws, kind="league_tables")
        await ws.disconnect()
        return first, frame, pings

    with override_settings(WS_PING_SECONDS=PING):
        first, frame, pings = async_to_sync(scenario)()
    assert first["type"] == "league_tables" and first["tables"] == []
    assert lost == ["league.tables"]
    assert frame is not None, "no tables after the lost notice"
    assert pings >= 1 and frame["version"] > first["version"]
    assert [t["table"] for t in frame["tables"]] == [
        t["table"] for t in client_for(member).get("/api/me/league-tables").json()["tables"]
    ]
