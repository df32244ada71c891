"""Long-polls, the event loop's side: parked requests wait here for a commit notice.

A commit calls ``notify`` (``server.notices.notify``), which tells ``waits`` at once in
this process and sends the group message on the channel layer; while any long-poll of
this process waits on a group, the process's own channel is in that group, so a commit
in another process (through Redis) wakes it too. A waiter holds a future, not a thread.

A notice names its group and, for a table, the new version; one without a version (a
seat taken, a league change) makes the waiter read the version again.

A parked waiter costs nothing until a notice comes: no timer reads the version (648
parked polls re-reading it every second took most of a core on an idle SQLite server,
issue 20). It reads the version once when it parks (a commit just before it listened
sent its notice unheard), then only on a notice without a version, and its request is
run again at the deadline, which reads it anyway. Every writer of a process with
long-polls tells it: one process (the embedded default) hears its own commits, several
processes hear each other through Redis (docs/server.md: more than one worker needs
Redis). A write from outside any server process (a management command) is seen at the
poll's deadline, ``LONG_POLL_MAX`` at most. ``DEKABES_LONG_POLL_RECHECK`` (seconds)
brings back a periodic read for a layout that loses notices.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import Counter
from collections.abc import Awaitable, Callable

from channels.layers import get_channel_layer

from server.notices.groups import rejoin_seconds
from server.notices.longpoll import Wait

log = logging.getLogger(__name__)

RunInThread = Callable[[Callable[[], int]], Awaitable[int]]


def recheck_seconds() -> float | None:
    """Seconds between reads of the version without a notice: None (never) unless
    ``DEKABES_LONG_POLL_RECHECK`` sets it."""
    configured = os.environ.get("DEKABES_LONG_POLL_RECHECK")
    if configured and float(configured) > 0:
        return float(configured)
    return None


class _Waiter:
    __slots__ = ("after", "future")

    def __init__(self, after: int, future: asyncio.Future):
        self.after = after
        self.future = future


class Waits:
    """This process's waiting long-polls, by group; used on one event loop."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._waiting: dict[str, set[_Waiter]] = {}
        self._listening: Counter = Counter()  # group -> long-polls subscribed to it
        self._subscribing = asyncio.Lock()  # group_add/discard in order
        self._layer = None  # the layer its channel is on
        self._channel: str | None = None
        self._reader: asyncio.Task | None = None
        self._refresher: asyncio.Task | None = None

    # -- notices ---------------------------------------------------------------------
    def notice(self, group: str, version: int | None) -> None:
        """The group may have moved (to ``version``). Any thread."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._wake(group, version)
        elif loop.is_running():
            loop.call_soon_threadsafe(self._wake, group, version)

    def _wake(self, group: str, version: int | None) -> None:
        for waiter in self._waiting.get(group, ()):
            if not waiter.future.done() and (version is None or version > waiter.after):
                waiter.future.set_result(version)

    # -- waiting ---------------------------------------------------------------------
    async def wait(
        self, wait: Wait, seconds: float, run_in_thread: RunInThread, gone: asyncio.Future
    ) -> None:
        """Return once ``wait.version_now()`` may be past ``wait.after``, the ``seconds``
        are up, or ``gone`` (the client left) is done."""
        loop = asyncio.get_running_loop()
        self.use(loop)
        deadline = loop.time() + seconds
        recheck = recheck_seconds()
        await self._subscribe(wait.group)
        try:
            while True:
                waiter = _Waiter(wait.after, loop.create_future())
                self._waiting.setdefault(wait.group, set()).add(waiter)
                try:
                    # Look once listening: a commit before that sent its notice unheard.
                    if await run_in_thread(wait.version_now) > wait.after:
                        return
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        return
                    done, _ = await asyncio.wait(
                        {waiter.future, gone},
                        timeout=remaining if recheck is None else min(remaining, recheck),
                        return_when="FIRST_COMPLETED",
                    )
                    if gone in done or (
                        waiter.future in done and waiter.future.result() is not None
                    ):
                        return  # the client left, or a version past ``after``
                    if not done:
                        if recheck is None or remaining <= recheck:
                            return  # the deadline: the request reads the version again
                    # else: a notice without a version (or ``recheck`` s): read again
                finally:
                    self._forget(wait.group, waiter)
        except Exception:  # a failed read: answer now, the request reads (and reports) it
            log.warning("long-poll wait on %s failed", wait.group, exc_info=True)
        finally:
            await self._unsubscribe(wait.group)

    def _forget(self, group: str, waiter: _Waiter) -> None:
        waiters = self._waiting.get(group)
        if waiters is not None:
            waiters.discard(waiter)
            if not waiters:
                del self._waiting[group]
        if not waiter.future.done():
            waiter.future.cancel()

    def listening_to(self, group: str) -> bool:
        """Whether a long-poll of this process waits on ``group`` now (any thread: a
        look at a dict the loop changes, as good as the moment it is taken)."""
        return bool(self._waiting.get(group))

    def waiting(self) -> int:
        """Long-polls waiting now (for tests and figures)."""
        return sum(len(w) for w in self._waiting.values())

    # -- the channel layer (other processes' commits) ----------------------------------
    def use(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the waits run on (the server's; called by the bridge)."""
        if self.loop is not loop:  # a new loop (tests run several): start afresh on it
            self.loop = loop
            self._waiting.clear()
            self._listening.clear()
            self._subscribing = asyncio.Lock()
            self._layer = None
            self._channel = None
            self._reader = None

    async def _subscribe(self, group: str) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        async with self._subscribing:
            if self._layer is not layer:  # another layer (tests override it): start on it
                self._layer, self._channel = layer, None
            self._listening[group] += 1
            if self._listening[group] > 1:
                return
            try:
                if self._channel is None:
                    # the layer's default prefix, as every socket's channel: channels_redis
                    # has one receive at a time per process, and the receiver holding it
                    # pops its own prefix's queue until a message comes. With "longpoll."
                    # it held it for good once long-polls went quiet, and no socket of
                    # the process got a push again (or, the other way round, no long-poll
                    # heard another process's commit).
                    self._channel = await layer.new_channel()
                    loop = asyncio.get_running_loop()
                    self._reader = loop.create_task(self._read(layer, self._channel))
                    self._refresher = loop.create_task(self._refresh(layer, self._channel))
                await layer.group_add(group, self._channel)
            except Exception:  # no layer to hear: this process's own commits still wake
                log.warning("long-poll cannot listen on %s", group, exc_info=True)

    async def _unsubscribe(self, group: str) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        async with self._subscribing:
            self._listening[group] -= 1
            if self._listening[group] > 0:
                return
            del self._listening[group]
            try:
                await layer.group_discard(group, self._channel)
            except Exception:
                log.warning("long-poll cannot leave %s", group, exc_info=True)

    async def _refresh(self, layer, channel: str) -> None:
        """Join the groups listened to again (``rejoin_seconds``): on a busy server some
        long-poll waits on a group (the open seats', a busy table's) day after day, past
        the layer's ``group_expiry``."""
        every = rejoin_seconds(layer)
        while self._channel == channel:
            await asyncio.sleep(every)
            async with self._subscribing:
                if self._channel != channel:
                    return  # listening afresh on another layer or loop
                for group in list(self._listening):
                    try:
                        await layer.group_add(group, channel)
                    except Exception:  # Redis away: joined again at the next round
                        log.warning("long-poll cannot rejoin %s", group, exc_info=True)

    async def _read(self, layer, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis away for a moment: listen again shortly
                log.warning("long-poll notices unreadable", exc_info=True)
                await asyncio.sleep(1)
                continue
            group = message.get("group")
            if group is not None:
                self._wake(group, message.get("version"))


waits = Waits()
