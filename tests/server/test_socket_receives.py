"""No socket receives from the channel layer itself; only the process's hubs do.

On Redis, channels_redis has one receive at a time per process pop the process's one
queue for all its channels. A receive cancelled when its socket closed could take with it
a message meant for another receiver of the process: a table's change, whose push the
table's sockets there then never got (docs/server.md, "Pushes lost"). So the sockets
follow their tables and accounts through hubs that live as long as the process, and
they are in their hub before their handshake completes. A hub follows a group for as
long as a socket here does, days on end, as the long-polls' listener does for theirs:
both join again before the layer's ``group_expiry`` drops them.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import override_settings

from server.asgi import application
from server.notices.groups import account_group
from server.sockets.consumers import _Hub, lobby_hub, seat_hub
from server.sockets.consumers import hub as spectator_hub
from server.tables import projection
from server.tables.models import Table
from tests.server.conftest import client_for, new_member, token_for
from tests.server.test_leave_replace import casual_table

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

KINDS = ("seat", "spectator", "lobby")


def paths(code: str) -> dict[str, str]:
    return {
        "seat": f"/ws/tables/{code}?seat=1",
        "spectator": f"/ws/tables/{code}/spectate",
        "lobby": "/ws/me",
    }


async def opened(path: str, token: str) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(
        application, path, headers=[(b"authorization", f"Token {token}".encode())]
    )
    connected, code = await ws.connect(timeout=10)
    assert connected, code
    return ws


def receives() -> int:
    """The receives under way on the layer's process-local channels (channels_redis)."""
    return get_channel_layer().receive_count


def accept(table: Table, seat: int, member) -> int:
    """``member`` accepts the deal at seat ``seat`` over REST: the new version."""
    version = projection.project(Table.objects.get(pk=table.pk)).version
    answer = client_for(member).post(
        f"/api/tables/{table.code}/seats/{seat}/actions",
        {"type": "accept", "expected_version": version},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    return answer.json()["version"]


@pytest.fixture
def redis_layer():
    layer = get_channel_layer()
    if type(layer).__name__ != "RedisChannelLayer":
        pytest.skip("REDIS_URL not set: Redis channel layer not tested")
    return layer


def test_sockets_add_no_receive_of_their_own_and_closing_them_cancels_none(redis_layer):
    """Six more sockets of each kind (seat, spectator, lobby) on tables and an account
    the hubs already hear: not one more receive on the layer. Before, each socket ran
    its own, and each close cancelled one."""
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    token = token_for(owner)
    where = paths(table.code)

    async def settled(expected: int) -> int:
        # a hub's reader is out of its receive while it passes a message on (a socket
        # opening or closing is a presence change): wait for them all to be back in it
        deadline = time.monotonic() + 10
        while receives() != expected and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return receives()

    async def scenario():
        first = {kind: await opened(where[kind], token) for kind in KINDS}
        hubs = len(KINDS)  # the three hubs' readers, one each
        assert all(h.reader is not None for h in (seat_hub, spectator_hub, lobby_hub))
        assert await settled(hubs) == hubs
        more = [await opened(where[kind], token) for kind in KINDS for _ in range(6)]
        assert await settled(hubs) == hubs, "a socket receives from the layer itself"
        for ws in more:
            await ws.disconnect()
        assert await settled(hubs) == hubs
        for ws in first.values():
            await ws.disconnect()

    async_to_sync(scenario)()


def test_a_socket_is_in_its_hub_when_its_handshake_completes(redis_layer):
    """The hub has joined the group (its ``group_add`` done) before the socket is
    accepted: a change made as soon as the client holds an open socket, before anything
    else it does, reaches it. Then two changes made over REST reach a seat socket and a
    spectator socket of this process through the hubs."""
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    token = token_for(owner)
    where = paths(table.code)

    async def next_view(ws) -> int:
        while True:
            body = json.loads(await ws.receive_from(timeout=10))
            if body["type"] == "view":
                return body["version"]

    async def scenario():
        sockets = {}
        for kind, hub, key in (
            ("seat", seat_hub, table.pk),
            ("spectator", spectator_hub, table.pk),
            ("lobby", lobby_hub, owner.pk),
        ):
            sockets[kind] = await opened(where[kind], token)
            assert hub.members.get(key), kind
            assert key not in hub.joining, f"{kind}: accepted before its hub heard the group"
        seat, watcher = sockets["seat"], sockets["spectator"]
        assert await next_view(watcher) >= 1  # a spectator's first frame, on opening
        for member, number in ((ann, 2), (bob, 3)):
            version = await sync_to_async(accept)(table, number, member)
            assert await next_view(seat) == version
            assert await next_view(watcher) == version
        for ws in sockets.values():
            await ws.disconnect()

    async_to_sync(scenario)()
    assert not seat_hub.members.get(table.pk)
    assert not spectator_hub.members.get(table.pk)
    assert not lobby_hub.members.get(owner.pk)


@pytest.mark.django_db(transaction=True)
def test_a_table_and_a_lobby_followed_past_the_layers_group_expiry_are_still_pushed():
    """The layer (in-memory in the SQLite run, Redis in the backend run) drops a group
    member that joined more than ``group_expiry`` ago (a day by default): a seat socket or
    a lobby left open that long got no push again. With a 4 s expiry, a change made 6 s
    after the sockets opened (other traffic meanwhile: a message to another group, as a
    server always has) still reaches both: the hubs joined again."""
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    token = token_for(owner)
    where = paths(table.code)
    default = settings.CHANNEL_LAYERS["default"]
    layers = {"default": {**default, "CONFIG": {**default.get("CONFIG", {}), "group_expiry": 4}}}

    async def next_of(ws, kind: str) -> dict:
        while True:
            body = json.loads(await ws.receive_from(timeout=10))
            if body["type"] == kind:
                return body

    async def scenario():
        seat = await opened(where["seat"], token)
        lobby = await opened(where["lobby"], token)
        await next_of(lobby, "league_tables")  # its first, on opening
        ends = time.monotonic() + 6  # past the expiry, whatever the machine's speed
        while time.monotonic() < ends:
            await get_channel_layer().group_send("elsewhere", {"type": "noise"})
            await asyncio.sleep(0.5)
        version = await sync_to_async(accept)(table, 2, ann)
        assert (await next_of(seat, "view"))["version"] == version
        group = account_group(owner.pk)  # as notify.league_tables_changed sends it
        await get_channel_layer().group_send(group, {"type": "league.tables", "group": group})
        assert "tables" in await next_of(lobby, "league_tables")
        for ws in (seat, lobby):
            await ws.disconnect()

    with override_settings(CHANNEL_LAYERS=layers):
        async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_group_listened_to_past_the_layers_group_expiry_still_wakes():
    """Long-polls of a process wait on a group (the open seats', a busy table's) day
    after day on a busy server, one after another: its channel stays in the group, and
    the layer dropped it after ``group_expiry``; another process's commit then woke none
    of them (each waited out its deadline). With a 4 s expiry, a notice sent 6 s after
    the wait began still wakes it. On the in-memory layer in both runs: the listener's
    receive never ends, and channels_redis's, cancelled when the test's loop closes, never
    finishes cancelling (the same receive a closing socket cancelled; the hub test above
    covers Redis's expiry)."""
    from server.notices.longpoll import Wait
    from server.notices.waits import waits

    memory = {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"group_expiry": 4}}
    layers = {"default": memory}
    group = f"expiry-{time.monotonic_ns()}"
    version = [0]

    async def in_thread(read):
        return read()

    async def scenario():
        gone = asyncio.get_running_loop().create_future()
        waiting = asyncio.ensure_future(
            waits.wait(Wait(group, 0, lambda: version[0]), 120, in_thread, gone)
        )
        ends = time.monotonic() + 6  # past the expiry, whatever the machine's speed
        while time.monotonic() < ends:
            await get_channel_layer().group_send("elsewhere", {"type": "noise"})
            await asyncio.sleep(0.5)
        assert not waiting.done()
        version[0] = 1  # as another process commits, then tells the group
        await get_channel_layer().group_send(
            group, {"type": "table.changed", "version": 1, "group": group}
        )
        await asyncio.wait_for(waiting, timeout=30)  # woken, not at its 120 s deadline

    with override_settings(CHANNEL_LAYERS=layers):
        async_to_sync(scenario)()


def test_a_change_a_hub_fails_to_pass_on_is_logged_and_the_next_is_passed_on(caplog):
    """A hub's handling of one table's change that fails (a build or presence read that
    raised) was dropped without a word: the table's sockets here missed that version and
    nobody could tell. It is logged, and the hub goes on with the next message."""
    handled = []

    class Hub(_Hub):
        def group(self, key: int) -> str:
            return f"table-{key}"

        async def handle(self, key: int, message: dict) -> None:
            if message["version"] == 1:
                raise RuntimeError("presence unreadable")
            handled.append((key, message["version"]))

    async def scenario():
        hub = Hub()
        hub.members[7] = {object()}  # one socket of table 7 here
        for version in (1, 2):
            await hub._take({"type": "table.changed", "version": version, "group": "table-7"})

    with caplog.at_level("WARNING", logger="server.sockets.consumers"):
        async_to_sync(scenario)()
    assert handled == [(7, 2)]
    assert any(
        "table.changed of table-7 not passed on" in r.getMessage()
        and "presence unreadable" in r.getMessage()
        for r in caplog.records
    ), [r.getMessage() for r in caplog.records]


def test_the_health_checks_round_trip_receives_on_a_channel_of_its_own(redis_layer, monkeypatch):
    """``/healthz`` sends itself a message through Redis and waits 3 s for it. On one of
    the process's channels its receive shared the process's one queue with the hubs':
    cancelled on a slow Redis, it could take a table's change with it. It receives on a
    plain channel, read from a key of its own."""
    from server.ops import health

    received: list[str] = []
    receive = redis_layer.receive

    async def recorded(channel):
        received.append(channel)
        return await receive(channel)

    monkeypatch.setattr(redis_layer, "receive", recorded)
    fact = health.check_channel_layer()
    assert fact.status == health.OK, fact
    assert len(received) == 1
    assert "!" not in received[0]  # not a process-local channel (channels_redis)
