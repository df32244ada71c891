"""``python -m bench.standings_update``: server CPU of the action that ends a league match,
with 8, 100 and 1,000 players in the season (issue 20, "Cost that grows with the work").

For each size a temporary SQLite database gets a season with ``--rounds`` rounds already
played by everyone (``bench.league_reads.populate``: stored standings, ratings), then a new
round's tables are played out in this process through the table service, as the players'
requests do (``table_services.do_action``: the event row, the durable commit, the league
projections in the same transaction). Each action's CPU time is taken
(``time.process_time``, SQLite runs in this process); the one after which the match is
over is the match-ending action. Printed per size: the ending action's CPU (median over
``--matches`` matches), an ordinary action's (median), and for comparison what a full
``rebuild_standings`` of that season costs (what the ending action did before). The goal
is flat: the ending action at 1,000 players within 1.5x of the one at 8 (exit status 1
otherwise). One JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (8, 100, 1000)
FLAT = 1.5


def one_size(players: int, rounds: int, matches: int, seed: int) -> dict:
    from bench.league_reads import populate
    from server.league import projections
    from server.league.actions.rounds import _open_match
    from server.league.models import Round, StandingRow
    from server.tables import projection
    from server.tables import services as table_services
    from server.tables.models import Seat

    world = populate(players * rounds // 4, players, 0, seed)
    season, users = world["season"], world["users"]
    round_ = Round.objects.create(
        season=season, number=Round.objects.filter(season=season).count() + 1, status="started"
    )
    rng = random.Random(seed)
    ending, ordinary = [], []
    for number in range(1, matches + 1):
        four = rng.sample(users, 4)
        match = _open_match(
            users[0],
            round_,
            number,
            dict(zip((1, 2, 3, 4), four, strict=True)),
            (None, None),
            set(),
        )
        table = match.table
        holders = {
            s.number: s.player
            for s in Seat.objects.filter(table=table).select_related("player")
            if s.player is not None
        }
        while True:
            state = projection.project(table)
            seat = next(n for n in (1, 2, 3, 4) if state.match.legal_events(n))
            event = rng.choice(state.match.legal_events(seat))
            body = {k: v for k, v in event.items() if k != "seat"}
            body["expected_version"] = state.version
            c0 = time.process_time()
            table_services.do_action(
                user=holders[seat], table=table, seat=seat, action=body, key=None
            )
            cpu = (time.process_time() - c0) * 1000
            if projection.project(table).match.phase == "match_over":
                ending.append(cpu)
                break
            ordinary.append(cpu)
    rows = StandingRow.objects.filter(season=season).count()
    rebuild = []
    for _ in range(3):
        c0 = time.process_time()
        projections.rebuild_standings(season)
        rebuild.append((time.process_time() - c0) * 1000)
    return {
        "players": players,
        "standing_rows": rows,
        "ending_cpu_ms": round(statistics.median(ending), 2),
        "ending_cpu_all_ms": [round(c, 2) for c in ending],
        "ordinary_cpu_ms": round(statistics.median(ordinary), 2),
        "full_rebuild_cpu_ms": round(statistics.median(rebuild), 2),
    }


def child(args: argparse.Namespace) -> int:
    from bench.league_reads import setup_django

    with tempfile.TemporaryDirectory(prefix="dk-standings-bench-") as tmp:
        setup_django(Path(tmp))
        print(json.dumps(one_size(args.players, args.rounds, args.matches, args.seed)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds already played")
    parser.add_argument("--matches", type=int, default=5, help="matches timed per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, help=argparse.SUPPRESS)  # one size (child)
    args = parser.parse_args(argv)
    if args.players:
        return child(args)
    results = []
    for players in SIZES:  # one process per size: a fresh database and settings each
        out = subprocess.run(
            [sys.executable, "-m", "bench.standings_update", "--players", str(players),
             "--rounds", str(args.rounds), "--matches", str(args.matches), "--seed", str(args.seed)],
            capture_output=True, text=True, check=True, env=dict(os.environ),
        )  # fmt: skip
        figure = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(figure)
        print(
            f"{players:5} players ({figure['standing_rows']:4} rows): match-ending action "
            f"{figure['ending_cpu_ms']:6.2f} ms CPU (median of {args.matches}), ordinary action "
            f"{figure['ordinary_cpu_ms']:5.2f} ms, full rebuild of the standings "
            f"{figure['full_rebuild_cpu_ms']:7.2f} ms",
            flush=True,
        )
    ratio = results[-1]["ending_cpu_ms"] / results[0]["ending_cpu_ms"]
    print(f"ending action at {SIZES[-1]} vs {SIZES[0]} players: {ratio:.2f}x (goal <= {FLAT}x)")
    print(json.dumps({"sizes": results, "ratio": round(ratio, 2), "goal": FLAT}))
    return 0 if ratio <= FLAT else 1


if __name__ == "__main__":
    sys.exit(main())
