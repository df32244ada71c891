"""The socket actions' thread (``server.sockets.action_thread``): what it keeps of
``database_sync_to_async`` — stale connections closed before and after each call, in the
thread; every call on one thread, one at a time; the caller's context variables; the
result or the exception handed back — and the commit notices handed to the loop with the
result (``notify.collecting``), in their order, instead of one wake-up each."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from server.notices import notify
from server.notices.groups import spectate_group, table_group
from server.sockets import action_thread

ASKED: contextvars.ContextVar[str] = contextvars.ContextVar("asked", default="none")


@pytest.fixture(autouse=True)
def no_database(monkeypatch):
    """These calls touch no database: the thread's hygiene is recorded, not run (the
    thread's connection may have been opened by an earlier test of this process)."""
    closes: list[int] = []
    monkeypatch.setattr(
        action_thread, "close_old_connections", lambda: closes.append(threading.get_ident())
    )
    return closes


def run(coro):
    return asyncio.new_event_loop().run_until_complete(coro)


def test_calls_run_on_one_thread_with_connections_checked_before_and_after(monkeypatch):
    seen: list[tuple[str, int]] = []
    monkeypatch.setattr(
        action_thread,
        "close_old_connections",
        lambda: seen.append(("close", threading.get_ident())),
    )

    def call(n: int) -> tuple[int, int, str]:
        seen.append(("call", threading.get_ident()))
        return n * 2, threading.get_ident(), ASKED.get()

    async def scenario():
        ASKED.set("the caller's")
        first = await action_thread.run(call, 1)
        second = await action_thread.run(call, 2)
        return first, second

    (two, thread_a, asked), (four, thread_b, _) = run(scenario())
    assert (two, four) == (2, 4)
    assert asked == "the caller's"  # the caller's context, copied in
    assert thread_a == thread_b != threading.get_ident()  # one thread, not the loop's
    assert [kind for kind, _ in seen] == ["close", "call", "close"] * 2
    assert {ident for _, ident in seen} == {thread_a}  # hygiene in the same thread


def test_one_call_at_a_time():
    inside = threading.Semaphore(1)
    overlaps = []

    def call() -> None:
        if not inside.acquire(blocking=False):
            overlaps.append(True)
            return
        try:
            threading.Event().wait(0.01)
        finally:
            inside.release()

    async def scenario():
        await asyncio.gather(*(action_thread.run(call) for _ in range(8)))

    run(scenario())
    assert overlaps == []


def test_an_exception_reaches_the_caller_and_the_thread_serves_on():
    def fails() -> None:
        raise ValueError("refused")

    async def scenario():
        with pytest.raises(ValueError, match="refused"):
            await action_thread.run(fails)
        return await action_thread.run(lambda: "next")

    assert run(scenario()) == "next"


def test_a_calls_notices_reach_the_loop_with_its_result_in_order(monkeypatch):
    delivered: list[tuple[str, str]] = []
    monkeypatch.setattr(notify, "_anyone_listening", lambda group: True)
    monkeypatch.setattr(
        notify, "_deliver", lambda group, message: delivered.append((group, message["type"]))
    )

    def commits() -> list:
        notify.table_changed(7, 3)
        notify.presence_changed(7)
        return list(delivered)  # nothing delivered yet: they go with the result

    async def scenario():
        loop = asyncio.get_running_loop()
        notify.use_event_loop(loop)
        try:
            before = await action_thread.run(commits)
        finally:
            notify.use_event_loop(None)  # type: ignore[arg-type]
        return before, threading.get_ident()

    before, _ = run(scenario())
    assert before == []
    assert delivered == [
        (table_group(7), "table.changed"),
        (spectate_group(7), "table.changed"),
        (table_group(7), "presence.changed"),
        (spectate_group(7), "presence.changed"),
    ]


def test_notices_from_other_threads_are_not_collected(monkeypatch):
    hops = []
    monkeypatch.setattr(notify, "_anyone_listening", lambda group: True)

    class Loop:
        def is_running(self):
            return True

        def call_soon_threadsafe(self, *args):
            hops.append(args)

    monkeypatch.setattr(notify, "_loop", Loop())
    notify.table_changed(7, 3)  # this thread collects nothing: one hop per notice
    assert len(hops) == 2
