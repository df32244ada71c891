"""The process's ping round (``server.sockets.pings``): every socket pinged when due by
one task, and what follows a ping done for all of a round's seat sockets at once: one
lease write and one token query, however many sockets; a revoked token's socket closed
and the others pinged on."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import connection
from django.test.utils import CaptureQueriesContext

from server.accounts.models import AccessToken
from server.notices import presence
from server.sockets.actions import SeatActions, look_at_tokens
from server.sockets.pings import PingRound, pings
from tests.server.conftest import Players, token_for
from tests.server.test_socket_actions import socket

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def seat_actions(p: Players, token: str, user, seat: int) -> SeatActions:
    return SeatActions(user=user, token_key=token, code=p.code, seats=[seat])


def test_many_sockets_tokens_are_looked_at_in_one_query():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    owner, bot = token_for(p.owner), token_for(p.bot)
    kept = [seat_actions(p, owner, p.owner, 1) for _ in range(3)]
    gone = seat_actions(p, bot, p.bot, 2)
    AccessToken.objects.filter(user=p.bot).delete()
    with CaptureQueriesContext(connection) as queries:
        signed_out = look_at_tokens([*kept, gone], within=0.0)
    assert signed_out == [gone]
    assert len(queries) == 1
    # within the bound nothing is looked up; a socket found signed out stays so
    with CaptureQueriesContext(connection) as queries:
        assert look_at_tokens([*kept, gone], within=3600.0) == [gone]
    assert len(queries) == 0


def test_a_token_of_another_account_does_not_keep_a_socket_signed_in():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    # the bot's key, as if the owner's socket had opened with it: not the owner's
    mixed = seat_actions(p, token_for(p.bot), p.owner, 1)
    assert look_at_tokens([mixed], within=0.0) == [mixed]


def test_sockets_pinged_together_renew_every_lease_at_once():
    p, q = Players(), Players()
    before = time.time()
    presence.sockets_pinged([(p.table.pk, [1, 3], "a"), (q.table.pk, [2], "b")])
    ends = before + presence.socket_lease_seconds()
    leases_p = presence.store().read(p.table.pk)
    assert {"1|a", "3|a"} <= set(leases_p) and leases_p["1|a"] >= ends
    assert presence.store().read(q.table.pk)["2|b"] >= ends
    assert presence.seat_presence(table=q.table)[2].connected


def test_a_round_closes_the_revoked_tokens_socket_and_pings_the_others_on(settings):
    settings.WS_TOKEN_CHECK_SECONDS = 0.0
    settings.WS_PING_SECONDS = 0.2
    p = Players(kinds=("human", "bot", "human", "bot"))
    owner, bot = token_for(p.owner), token_for(p.bot)

    async def scenario():
        revoked, kept = socket(p, bot, seat=2), socket(p, owner, seat=1)
        assert (await revoked.connect())[0] and (await kept.connect())[0]
        await sync_to_async(AccessToken.objects.filter(user=p.bot).delete)()
        for _ in range(100):
            output = await revoked.receive_output(5)
            if output["type"] == "websocket.close":
                assert output["code"] == 4401
                break
        else:
            raise AssertionError("the revoked token's socket stayed open")
        pinged = 0
        for _ in range(100):  # the other socket: two pings more, still open
            frame = await kept.receive_json_from(timeout=5)
            pinged += frame["type"] == "ping"
            if pinged == 2:
                break
        assert pinged == 2
        await revoked.disconnect()
        await kept.disconnect()
        assert pings.due == {} and pings.task is None  # no task left behind

    async_to_sync(scenario)()


def test_a_lease_renewal_in_flight_does_not_outlive_its_sockets_close(settings, monkeypatch):
    """A socket that closes while its round's renewal is on its way to the store: the
    lease is dropped after the renewal, so the seat is not left connected."""
    settings.WS_PING_SECONDS = 0.2
    p = Players()
    owner = token_for(p.owner)
    entered, release = threading.Event(), threading.Event()
    real = presence.sockets_pinged

    def slow_renewal(sockets, now=None):
        entered.set()
        release.wait(10)
        real(sockets, now)

    monkeypatch.setattr(presence, "sockets_pinged", slow_renewal)

    async def scenario():
        ws = socket(p, owner, seat=1)
        assert (await ws.connect())[0]
        for _ in range(200):  # the round's renewal has started, and waits
            if entered.is_set():
                break
            await asyncio.sleep(0.05)
        assert entered.is_set()
        closing = asyncio.ensure_future(ws.disconnect(timeout=10))
        await asyncio.sleep(0.5)  # time for the close to drop the lease, were it first
        release.set()
        await closing

    async_to_sync(scenario)()
    socket_leases = [m for m in presence.store().read(p.table.pk) if "|" in m]
    assert socket_leases == []
    assert not presence.seat_presence(table=p.table)[1].connected


class FakeSocket:
    """What the round needs of a socket; its ping may close another (as a disconnect
    arriving while the round writes)."""

    def __init__(self, ping_round, closes=None):
        self.round, self.closes, self.pings = ping_round, closes, 0

    async def write_ping(self):
        self.pings += 1
        if self.closes is not None:
            self.round.remove(self.closes)
        await asyncio.sleep(0)

    @classmethod
    async def pinged_together(cls, sockets):
        return None


def test_a_socket_closed_while_a_round_writes_its_pings_is_not_taken_back(settings):
    """A closed socket kept in the round would have its lease renewed for ever: its seat
    shown connected after it left."""
    settings.WS_PING_SECONDS = 0.2
    ping_round = PingRound()

    async def scenario():
        closed = FakeSocket(ping_round)
        closing = FakeSocket(ping_round, closes=closed)
        ping_round.add(closing)
        ping_round.add(closed)  # due in the same round, after the one that closes it
        for _ in range(200):
            if closing.pings:
                break
            await asyncio.sleep(0.02)
        assert closing.pings >= 1
        assert closed not in ping_round.due
        await asyncio.sleep(0.5)  # rounds go on: the closed one is never pinged again
        assert closed.pings == 0 and closing.pings >= 2
        ping_round.remove(closing)

    async_to_sync(scenario)()
