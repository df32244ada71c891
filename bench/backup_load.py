"""``python -m bench.backup_load``: what a backup costs play, and how long a backup and
its proof take, on a club with ``--matches`` finished matches (default 10,000).

1. A temporary database (SQLite in a temporary folder; ``--postgres URL``: a database
   the script creates there, named ``<its name>_bench_<random>``, and drops) gets one
   club, one individual season, ``--players`` members and ``--matches`` rated matches
   whose logs are real engine play (random legal moves, ``--distinct`` different
   matches dealt out to the tables in turn), then ``rebuild_league`` writes their
   results, standings and ratings as the server would have.
2. Daphne serves it; a bystander plays a casual table (GET its seat view + POST a legal
   action, open loop at ``--rate`` per second): first ``--seconds`` with nothing else
   running, then for as long as ``manage.py backup`` runs (at its default priority,
   ``nice`` 10). Prints p50/p99/max of both phases and the backup's time and size, and
   checks that no acknowledged action is missing afterwards (the table's version).
3. ``manage.py verify_backup`` proves the backup: its time and verdict.

Wall-clock figures on a shared machine: compare the phases of one run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_django(env: dict) -> None:
    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "server.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def engine_logs(count: int, seed: int) -> list[list[dict]]:
    """``count`` finished rated matches of random legal play, as event lists."""
    from engine import Match
    from engine.autoplay import autoplay, bot_players

    rng = random.Random(seed)
    logs = []
    for _ in range(count):
        events: list[dict] = [
            {
                "type": "match_started",
                "seats": {str(n): "human" for n in (1, 2, 3, 4)},
                "rated": True,
            }
        ]
        match = Match()
        match.apply(events[0])
        players = bot_players(
            ["random"] * 4, [random.Random(rng.getrandbits(64)) for _ in range(4)]
        )
        autoplay(match, players, random.Random(rng.getrandbits(64)), on_event=events.append)
        logs.append(events)
    return logs


def populate(n_matches: int, n_players: int, distinct: int, seed: int) -> dict:
    """Rows as a club's server would hold them after ``n_matches`` league matches."""
    from django.db import transaction

    from server.accounts.models import User
    from server.league.models import (
        CheckIn,
        Club,
        LeagueMatch,
        LeagueMatchSeat,
        Membership,
        Round,
        Season,
    )
    from server.league.projections import rebuild
    from server.tables import store
    from server.tables.models import NewEvent, Seat, Table

    logs = engine_logs(distinct, seed)
    rng = random.Random(seed)
    with transaction.atomic():
        users = User.objects.bulk_create(
            [User(username=f"member{i:03}", password="!") for i in range(n_players)]
        )
        club = Club.objects.create(slug="bench", name="Bench", created_by=users[0])
        Membership.objects.bulk_create(
            [
                Membership(club=club, user=u, role="organizer" if i == 0 else "member")
                for i, u in enumerate(users)
            ]
        )
        season = Season.objects.create(club=club, name="Bench", format="individual", seed=seed)
        per_round = n_players // 4
        n_rounds = -(-n_matches // per_round)
        start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
        starts = [start + dt.timedelta(hours=n) for n in range(n_rounds)]
        rounds = Round.objects.bulk_create(
            [
                Round(
                    season=season,
                    number=n + 1,
                    status="finished",
                    started_at=start + dt.timedelta(hours=n),
                )
                for n in range(n_rounds)
            ]
        )
        CheckIn.objects.bulk_create(
            [CheckIn(round=r, player=u) for r in rounds for u in users], batch_size=5000
        )
        tables = Table.objects.bulk_create(
            [
                Table(
                    code=f"B{i:07d}", owner=users[0], rated=True, secret_seed=secrets.token_hex(16)
                )
                for i in range(n_matches)
            ],
            batch_size=2000,
        )
        seats, matches, seatings = [], [], []
        for i, table in enumerate(tables):
            if i % per_round == 0:
                order = list(users)
                rng.shuffle(order)
            four = order[4 * (i % per_round) : 4 * (i % per_round) + 4]
            seatings.append(four)
            seats += [
                Seat(table=table, number=n, kind="human", player=p)
                for n, p in zip((1, 2, 3, 4), four, strict=True)
            ]
            matches.append(
                LeagueMatch(
                    table=table,
                    club=club,
                    season=season,
                    round=rounds[i // per_round],
                    table_number=i % per_round + 1,
                    rated=True,
                    started_at=starts[i // per_round],
                )
            )
        Seat.objects.bulk_create(seats, batch_size=5000)
        matches = LeagueMatch.objects.bulk_create(matches, batch_size=2000)
        LeagueMatchSeat.objects.bulk_create(
            [
                LeagueMatchSeat(match=m, number=n, player=p, team="A" if n in (1, 3) else "B")
                for m, four in zip(matches, seatings, strict=True)
                for n, p in zip((1, 2, 3, 4), four, strict=True)
            ],
            batch_size=5000,
        )
        batch: list[NewEvent] = []
        for i, table in enumerate(tables):
            for n, e in enumerate(logs[i % distinct], 1):
                seat = e.get("seat")
                batch.append(
                    NewEvent(
                        table_id=table.pk,
                        seq=n,
                        type=e["type"],
                        payload=e,
                        actor_id=seatings[i][seat - 1].pk if seat else None,
                        seat=seat,
                        actor_kind="human" if seat else "server",
                    )
                )
                if len(batch) == 1000:  # the server's own INSERT of an action's rows
                    store.append_events(batch)
                    batch = []
        store.append_events(batch)
    started = time.monotonic()
    counts = rebuild()
    return {"rebuild_seconds": time.monotonic() - started, "counts": dict(counts)}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def describe(latencies: list[float]) -> str:
    ms = [x * 1000 for x in latencies]
    return (
        f"p50 {statistics.median(ms):7.1f} ms  p99 {percentile(ms, 0.99):7.1f} ms  "
        f"max {max(ms):7.1f} ms  (n={len(ms)})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--distinct", type=int, default=300, help="different engine matches")
    parser.add_argument("--rate", type=float, default=10.0, help="bystander actions per second")
    parser.add_argument("--seconds", type=float, default=20.0, help="the phase without backup")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="a PostgreSQL server's URL (a database "
        "of it whose name the bench's database starts with)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-verify", action="store_true", help="skip verify_backup")
    parser.add_argument(
        "--keep",
        metavar="DIR",
        type=Path,
        help="SQLite: build the database in DIR and keep it; a later run with the same DIR "
        "reuses it (building 10,000 matches takes ~15 minutes here)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dekabes-backup-load-") as tmp:
        workdir = args.keep or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        env = {
            "DEKABES_VAR_DIR": str(workdir),
            "DEKABES_SQLITE_PATH": str(workdir / "b.sqlite3"),
            "DEKABES_BACKUP_DIR": str(workdir / "backups"),
            "DEKABES_LOG_LEVEL": "WARNING",
        }
        os.environ.pop("REDIS_URL", None)
        drop = None
        if args.postgres:
            base, _, name = args.postgres.rpartition("/")
            scratch = f"{name}_bench_{secrets.token_hex(3)}"
            subprocess.run(
                ["psql", args.postgres, "-qc", f'CREATE DATABASE "{scratch}"'], check=True
            )
            env["DATABASE_URL"] = f"{base}/{scratch}"

            def drop() -> None:
                subprocess.run(
                    [
                        "psql",
                        args.postgres,
                        "-qc",
                        f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)',
                    ],
                    check=False,
                )
        else:
            os.environ.pop("DATABASE_URL", None)
        try:
            return run(args, workdir, env)
        finally:
            if drop is not None:
                from django.db import connections

                connections.close_all()
                drop()


def run(args, workdir: Path, env: dict) -> int:
    from bench.abuse import Bystander, start

    reuse = args.keep is not None and (workdir / "b.sqlite3").exists() and not args.postgres
    setup_django(env)
    from django.db import connections

    from server.tables.models import Event

    if reuse:
        print(f"reusing {workdir / 'b.sqlite3'}", flush=True)
    else:
        began = time.monotonic()
        built = populate(args.matches, args.players, args.distinct, args.seed)
        print(
            f"built {args.matches:,} matches in {time.monotonic() - began:.0f} s "
            f"(rebuild_league {built['rebuild_seconds']:.0f} s: {built['counts']})",
            flush=True,
        )
    print(f"{Event.objects.count():,} events", flush=True)
    connections.close_all()
    for old in (workdir / "backups").glob("dekabes-*.tar"):
        old.unlink()  # a kept folder: only this run's backup is measured
    server, url = start(ROOT, workdir, env)
    child_env = {**os.environ, **env}
    try:
        bystander = Bystander(url)
        quiet = open_loop(bystander, args.rate, lambda n, t: t >= args.seconds)
        print(f"no backup:     {describe(quiet.latencies)}", flush=True)
        backup = subprocess.Popen(
            [sys.executable, "manage.py", "backup"],
            cwd=ROOT,
            env=child_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        during = open_loop(bystander, args.rate, lambda n, t: backup.poll() is not None or t > 1800)
        output = backup.communicate()[0].strip()
        print(f"during backup: {describe(during.latencies)}", flush=True)
        print(output, flush=True)
        if backup.returncode != 0:
            return 1
        # no acknowledged action lost: the table holds every action answered
        version = bystander.http.get(f"{url}/api/tables/{bystander.code}", timeout=60).json()[
            "version"
        ]
        print(
            f"bystander's table at version {version}; actions acknowledged during the backup: "
            f"{len(during.latencies)}",
            flush=True,
        )
        if args.no_verify:
            return 0
        path = output.split("backup: ", 1)[1].split(" (", 1)[0]
        started, cpu = time.monotonic(), children_cpu()
        verify = subprocess.run(
            [sys.executable, "manage.py", "verify_backup", path],
            cwd=ROOT,
            env=child_env,
            capture_output=True,
            text=True,
        )
        print(verify.stdout + verify.stderr[-2000:], flush=True)
        print(
            f"verify_backup: {time.monotonic() - started:.1f} s wall, "
            f"{children_cpu() - cpu:.1f} s CPU, exit {verify.returncode}"
        )
        return verify.returncode
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def children_cpu() -> float:
    """CPU seconds of this process's finished children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Loop:
    def __init__(self) -> None:
        self.latencies: list[float] = []


def open_loop(bystander, rate: float, done) -> Loop:
    """Actions at ``rate`` per second, each timed from its scheduled start (a stall shows
    as the lateness of the ones queued behind it), until ``done(n, seconds)``."""
    loop, period = Loop(), 1.0 / rate
    start = time.monotonic()
    i = 0
    while not done(i, time.monotonic() - start):
        scheduled = start + i * period
        time.sleep(max(0.0, scheduled - time.monotonic()))
        bystander.action()
        loop.latencies.append(time.monotonic() - scheduled)
        i += 1
    return loop


if __name__ == "__main__":
    sys.exit(main())
