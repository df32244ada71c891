"""The bot runner survives a restart of the server process in the middle of a match.

The server is a Daphne process of this test's own (``restartable_server``: its own
SQLite file and port). Four runner-driven bot seats play; once the first hand has been
scored the server process is stopped and started again on the same port and database
while the runner keeps going. The match must then finish with a log that has no gap,
no duplicate and no rejected decision, and whose record replays to the same summary.
"""

from __future__ import annotations

import uuid

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient
from engine import Match, load_record
from tests.records import replay_summary

PASSWORD = "a long enough password 42"


def test_runner_resumes_after_a_server_restart_mid_match(restartable_server, tmp_path):
    url = restartable_server.url
    owner = DekabesClient(url)
    owner.register(f"ann{uuid.uuid4().hex[:10]}", PASSWORD)
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")
    table = owner.create_table(
        {n: "bot" for n in (1, 2, 3, 4)}, bots={n: bot.username for n in (1, 2, 3, 4)}
    )
    watcher = DekabesClient(url, bot.token)
    runner = Runner(
        DekabesClient(url, bot.token, retries=2, backoff=0.1),
        RunnerOptions(
            level="greedy", delay=0, tables=(table.code,), poll_wait=5, exit_when_over=True, seed=7
        ),
    ).start()
    try:
        mid = watcher.wait_until(
            table.code, 1, lambda s: s.match_over or len(s.view["results"]) >= 1, timeout=60, poll=5
        )
        assert not mid.match_over, "the match ended before the restart could happen"
        before_events = watcher.events(table.code, 1)["events"]
        before_record = owner.record(table.code)

        restartable_server.restart(pause=1.0)  # same port, same database file

        assert runner.join(timeout=150), "the runner did not finish the match after the restart"
    finally:
        runner.stop()

    final = watcher.seat_view(table.code, 1)
    assert final.match_over and final.view["winner"] in ("A", "B")
    assert runner.stats.outages >= 1, runner.stats.as_dict()  # it did see the server go
    assert runner.stats.rejected == 0, runner.stats.as_dict()

    events = watcher.all_events(table.code, 1)
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(events) + 1))  # no gap, no duplicate
    # Nothing committed before the restart was lost or rewritten (deal tiles of the
    # hand in progress were redacted before; only compare what was visible then).
    for old, new in zip(before_events, events, strict=False):  # the log grew since
        assert (old["seq"], old["type"], old["seat"]) == (new["seq"], new["type"], new["seat"])
        if old["type"] != "deal":
            assert old["event"] == new["event"]
    assert len(events) > len(before_events)
    # A decision applied twice would be illegal (accept twice, a tile played twice):
    # the whole log folding to the end proves each was applied once.
    engine_events = [e["event"] for e in events if e["type"] not in ("pause", "resume")]
    folded = Match.from_events(engine_events)  # the whole log is a legal match
    assert folded.phase == "match_over"

    record = owner.record(table.code)
    assert record.startswith(before_record.rstrip("\n"))
    summary = replay_summary(record, tmp_path)
    assert summary == Match.from_events(load_record(record)).summary() == folded.summary()
    assert summary["scores"] == final.view["scores"] and summary["winner"] == final.view["winner"]

    log = restartable_server.log.read_text()
    assert log.count("Listening on TCP address") == 2  # really two processes
