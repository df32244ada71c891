"""The process's pings: one task sends every open socket its ``{"type": "ping"}`` when
it is due (every ``WS_PING_SECONDS``), then hands the sockets pinged together to their
kind's ``pinged_together``: a seat socket's lease renewals and token looks are then one
Redis round trip and one query for all of them, not one each.

Why one task and not one per socket: with a task each, an idle seat socket cost 2.2 ms of
server CPU per ping (a thread hop, a Redis pipeline and a query of its own, each), 13 %
of a core for 200 tables' 800 sockets on PostgreSQL + Redis; ~0.07 ms with one round
(``bench.server_actions --socket-extras``: ``idle_cpu_ms_per_second``; docs/server.md).

A socket is pinged at the first round at or after its due time: rounds run every
``WS_PING_SECONDS / 4`` (at most every second), so a ping comes at most that late.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.conf import settings

log = logging.getLogger(__name__)

PING_TEXT = '{"type": "ping"}'


def round_seconds() -> float:
    return min(1.0, float(settings.WS_PING_SECONDS) / 4)


class PingRound:
    """This process's open sockets and when each is next pinged."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.reset()

    def reset(self) -> None:
        self.due: dict = {}  # socket -> the loop's time of its next ping
        self.task: asyncio.Task | None = None
        # per kind of socket: those pinged whose after-ping work has not started yet,
        # and the batch doing it (one at a time: a stalled Redis holds one batch only)
        self.waiting: dict[type, list] = {}
        self.working: dict[type, tuple[asyncio.Task, frozenset]] = {}

    def _use_loop(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:  # a new loop (tests run several): start afresh
            self.loop = loop
            self.reset()
        return loop

    def add(self, socket) -> None:
        loop = self._use_loop()
        self.due[socket] = loop.time() + float(settings.WS_PING_SECONDS)
        if self.task is None or self.task.done():
            self.task = loop.create_task(self._run())

    def has(self, socket) -> bool:
        """Whether ``socket`` is still open (in the round)."""
        return socket in self.due

    async def settle(self, socket) -> None:
        """Wait until the after-ping work in flight for ``socket``, if any, is done: a
        closing socket's lease is dropped after a renewal that named it, not before."""
        task, sockets = self.working.get(type(socket), (None, frozenset()))
        if task is not None and not task.done() and socket in sockets:
            await asyncio.wait({task})  # not cancelled if this wait is

    def remove(self, socket) -> None:
        if self.loop is not asyncio.get_running_loop():
            return  # it was added on a loop since left
        self.due.pop(socket, None)
        for waiting in self.waiting.values():
            if socket in waiting:
                waiting.remove(socket)
        if not self.due and self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.due:
            await asyncio.sleep(round_seconds())
            now = loop.time()
            period = float(settings.WS_PING_SECONDS)
            pinged = [socket for socket, at in self.due.items() if at <= now]
            for socket in pinged:  # before any await: a socket closed meanwhile stays out
                self.due[socket] = now + period
            for socket in pinged:
                if socket in self.due:
                    await socket.write_ping()
            for socket in pinged:
                if socket in self.due:  # not closed by its ping's failure
                    self.waiting.setdefault(type(socket), []).append(socket)
            self._start_batches()

    def _start_batches(self) -> None:
        for kind, waiting in self.waiting.items():
            if not waiting or not self._idle(kind):
                continue
            self.waiting[kind] = []
            task = asyncio.ensure_future(self._after_pings(kind, waiting))
            self.working[kind] = (task, frozenset(waiting))

    def _idle(self, kind: type) -> bool:
        task, _ = self.working.get(kind, (None, None))
        return task is None or task.done()

    async def _after_pings(self, kind: Any, sockets: list) -> None:
        try:
            await kind.pinged_together(sockets)
        except Exception:  # one kind's trouble must not end the pings
            log.exception("after the pings of %d %s sockets", len(sockets), kind.__name__)


pings = PingRound()
