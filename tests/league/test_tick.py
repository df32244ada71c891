"""The one ticking driver (``server/league/tick.py``), in-process: one tick applies the
tables' lapsed pauses and the league's automatic substitutes, and tells what it did; a
seat's read between two ticks changes nothing. (The server process ticking by itself:
test_tick_live.py; the automatic substitutes in detail: test_substitutes.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command

from server.league.tick import tick
from server.notices import presence
from server.tables import projection, table_state
from tests.server.conftest import Players

pytestmark = pytest.mark.django_db


def test_a_tick_lifts_a_pause_past_its_limit_and_a_read_before_it_does_not():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    p.act(1, {"type": "pause", "expected_version": p.seat(1)["version"]})
    paused = projection.project(p.table)
    assert paused.paused
    assert p.seat(1)["version"] == paused.version  # a read lifts nothing
    assert tick().lifted == []  # the pausing seat is here, and the limit is far
    # Past the limit the seat's lease (its last request's 60 s) has run out too: "away".
    later = datetime.now(UTC) + table_state.PAUSE_LIMIT + timedelta(seconds=1)
    done = tick(now=later)
    assert done.lifted == [(p.code, 1, "away")] and done.substituted == []
    assert done.lines() == [f"table {p.code} seat 1: pause lifted (away)"]
    assert not projection.project(p.table).paused
    assert tick(now=later).lifted == []  # once


def test_the_command_says_what_the_tick_did(capsys, monkeypatch):
    monkeypatch.setattr(presence, "_store", presence.MemoryLeases())  # as a command
    call_command("tick")
    assert capsys.readouterr().out.strip() == "nothing due"
