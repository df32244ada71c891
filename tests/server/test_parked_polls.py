"""A parked long-poll costs nothing while it waits (issue 20): it reads the version once
when it parks, then only on a notice that may have moved it; the commit notice wakes it
at once. In-process, on an event loop of its own, with the embedded in-memory layer."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.db import connection

from server.notices.longpoll import Wait
from server.notices.waits import Waits

IDLE = 2.5  # seconds parked with no notice: the old waiter read the version twice by then


@pytest.mark.django_db(transaction=True)
def test_a_parked_poll_reads_nothing_while_idle_and_wakes_on_the_commit(monkeypatch):
    monkeypatch.delenv("DEKABES_LONG_POLL_RECHECK", raising=False)
    queries: list[str] = []
    lock = threading.Lock()

    def counted(execute, sql, params, many, context):
        with lock:
            queries.append(sql)
        return execute(sql, params, many, context)

    def version_now() -> int:
        # what a seat's long-poll reads: a database statement, counted on the thread's
        # own connection
        with connection.execute_wrapper(counted), connection.cursor() as cursor:
            cursor.execute("SELECT 5")
            return cursor.fetchone()[0]

    wait = Wait(group="table.parked-test", after=5, version_now=version_now)

    async def scenario():
        waits = Waits()
        loop = asyncio.get_running_loop()
        gone = loop.create_future()
        parked = asyncio.ensure_future(
            waits.wait(wait, 30, lambda read: loop.run_in_executor(None, read), gone)
        )
        deadline = loop.time() + 10
        while not (waits.waiting() and queries):  # parked, and its one look taken
            assert loop.time() < deadline, "the poll never parked"
            await asyncio.sleep(0.01)
        await asyncio.sleep(IDLE)
        assert len(queries) == 1 and not parked.done()
        waits.notice(wait.group, 5)  # not past ``after``: it stays parked, reads nothing
        await asyncio.sleep(0.1)
        assert len(queries) == 1 and not parked.done()
        woken = loop.time()
        waits.notice(wait.group, 6)  # the commit
        await asyncio.wait_for(parked, 5)
        assert loop.time() - woken < 1.0
        assert len(queries) == 1  # the notice carried the version: no read
        gone.cancel()

    asyncio.run(scenario())
