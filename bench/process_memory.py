"""``python -m bench.process_memory``: what a server process keeps in memory for the tables
it has served, and that the bound on it holds.

A process keeps, per table it served: the fold of its log (``server.tables.projection``),
its newest seat answers (``server.tables.answers``) and its seats (``selectors``). This
plays ``--tables`` matches to their end, one after the other, through the server's own
action path (``acting.act``, as a seat socket's move; the four seats watched, so each
move's pushes are built as for four sockets), on a temporary SQLite file, then reports
what those caches hold (Python's allocations, ``tracemalloc``: the memory freed when they
are dropped) and the process's resident size.

Two children, the same random player (each table deals its own shuffles): ``bounded``
with the server's settings, and ``by count only`` with the bounds before (1,024 folds
and 1,024 tables' answers, whatever their size). With
``--budget`` (events and undo points, ``DEKABES_PROJECTION_EVENTS``) below what the
tables played hold, the bounded child shows the budget holding.

    .venv/bin/python -m bench.process_memory --tables 40 --budget 4000

``--live ACTIONS``: also on the path members use, two Daphne servers (``bench.server_actions``'
embedded default, loopback), one with ``--budget`` and one with no budget, each played the
same number of keyed REST actions by four tables' drivers (a finished match: a new table);
their resident sizes at the end. Python does not give freed memory back to the system, so
this shows the growth the bound stops, not the caches alone. Every server is stopped in a
``finally``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, random, sys, tracemalloc, gc
tables_wanted, by_count = int(sys.argv[1]), sys.argv[2] == "count"
import django
django.setup()
from django.conf import settings
from django.core.management import call_command
call_command("migrate", verbosity=0)
import orjson
from server.accounts.models import User
from server.sockets import pushes
from server.tables import acting, answers, projection, services
from server.notices import presence
from bench.server_actions import seat_after

if by_count:  # the bounds before: 1,024 tables, whatever their folds hold
    settings.PROJECTION_EVENTS = 10**12
    answers.TABLES_KEPT = 1024
user = User.objects.create_user("memory", password="x" * 12)
rng = random.Random(1)
tracemalloc.start()


def answer(table, seat):
    table, seats = acting.get_table_and_seats(table.code)
    state = projection.project(table)
    return orjson.loads(answers.seat_answer(table, seat, state, user, seats).text)


events = 0
for _ in range(tables_wanted):
    table = services.do_create_table(
        owner=user, seats={n: "human" for n in (1, 2, 3, 4)}, join=[1, 2, 3, 4], bots={}
    )
    pushes.watch(table.pk, [(n, user.pk) for n in (1, 2, 3, 4)])
    presence.socket_opened(table_id=table.pk, seats=(1, 2, 3, 4), socket="s", now=10**10)
    seat, body = 1, answer(table, 1)
    while body["view"]["phase"] != "match_over":
        view = body["view"]
        if not view["legal"]:
            seat = view["to_act"] or seat % 4 + 1
            body = answer(table, seat)
            continue
        action = {k: v for k, v in rng.choice(view["legal"]).items() if k != "seat"}
        action["expected_version"] = body["version"]
        done = acting.act(user=user, code=table.code, seat=str(seat), data=action, key=None)
        seat = seat_after(orjson.loads(done.text)["view"], seat)
        body = answer(table, seat)
    events += body["version"]
    pushes.unwatch(table.pk, [(n, user.pk) for n in (1, 2, 3, 4)])
gc.collect()
held = tracemalloc.get_traced_memory()[0]
kept = {
    "folds": len(projection._cache),
    "events_and_undo_points": projection._kept_size[0],
    "answers": len(answers._kept),
}
with open("/proc/self/status") as status:
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))
projection.forget()  # the folds, the kept seats and frames
answers.forget()
gc.collect()
print(json.dumps({
    "tables": tables_wanted,
    "events": events,
    "kept": kept,
    "caches_kb": round((held - tracemalloc.get_traced_memory()[0]) / 1024),
    "rss_kb": rss,
}))
"""


def child(tables: int, mode: str, budget: int | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="dekabes-memory-") as tmp:
        env = dict(os.environ, DEKABES_VAR_DIR=tmp, DEKABES_LOG_LEVEL="WARNING")
        env.update(DJANGO_SETTINGS_MODULE="server.settings", PYTHONPATH=str(ROOT))
        env["DEKABES_MAX_TABLES"] = str(tables + 10)
        for name in ("DATABASE_URL", "REDIS_URL", "DEKABES_SQLITE_PATH"):
            env.pop(name, None)
        if budget is not None:
            env["DEKABES_PROJECTION_EVENTS"] = str(budget)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tables), mode],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def live(actions: int, budget: int) -> dict:
    """Resident size of a live server after ``actions`` keyed REST actions, with the
    budget and with none (the same drivers' seeds on both)."""
    from bench import server_actions as bench

    class Counted(bench.TableDriver):
        tables = 0

        def _new_table(self) -> str:
            Counted.tables += 1
            return super()._new_table()

    out = {}
    saved = os.environ.get("DEKABES_PROJECTION_EVENTS")
    try:
        for name, events in (("bounded", budget), ("no_budget", 10**12)):
            os.environ["DEKABES_PROJECTION_EVENTS"] = str(events)
            Counted.tables = 0
            with tempfile.TemporaryDirectory(prefix="dekabes-memory-live-") as tmp:
                processes, urls = bench.start_server(Path(tmp))
                try:
                    token = bench.register(urls[0])
                    drivers = [Counted(urls, token, i, 1, keys=True) for i in range(4)]
                    bench.run_split([[d] for d in drivers], actions, Counted.act)
                    with open(f"/proc/{processes[0].pid}/status") as status:
                        rss = next(int(x.split()[1]) for x in status if x.startswith("VmRSS"))
                    errors = sum(d.errors for d in drivers)
                finally:
                    bench.stop(processes)
            out[name] = {
                "budget": events,
                "actions": actions,
                "tables": Counted.tables,
                "rss_kb": rss,
                "non_200": errors,
            }
    finally:
        if saved is None:
            os.environ.pop("DEKABES_PROJECTION_EVENTS", None)
        else:
            os.environ["DEKABES_PROJECTION_EVENTS"] = saved
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40, help="matches played to their end")
    parser.add_argument(
        "--budget", type=int, help="DEKABES_PROJECTION_EVENTS for the bounded child"
    )
    parser.add_argument(
        "--live", type=int, metavar="ACTIONS", help="also two live servers, this many actions each"
    )
    args = parser.parse_args(argv)
    bounded = child(args.tables, "bounded", args.budget)
    by_count = child(args.tables, "count", None)
    per_table = by_count["caches_kb"] / args.tables
    report = {
        "bounded": bounded,
        "by_count_only": by_count,
        "kb_per_table_by_count": round(per_table),
        # the bound before, reached once a process has served 1,024 tables
        "by_count_at_1024_tables_mb": round(per_table * 1024 / 1024),
        "kb_per_event_kept": round(by_count["caches_kb"] / by_count["events"], 2),
    }
    if args.live:
        report["live"] = live(args.live, args.budget or 4000)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
