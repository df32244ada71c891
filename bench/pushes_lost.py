"""``python -m bench.pushes_lost``: pushes that never come while sockets come and go.

Two server processes on PostgreSQL + Redis (``DATABASE_URL``, ``REDIS_URL``: the layer
that carries pushes between processes), ``--tables`` tables played at once over their
seats' sockets, seat n's socket on process n % 2 (``server_actions.SocketTableDriver``,
as ``--scale-out`` runs it: a move made on one process is pushed from the other). Every
``--moves-per-table`` moves a driver leaves its table for a new one: its four sockets
close and four open, while the other tables go on. A seat that waits ``--wait`` seconds
for the push of a version already committed counts one push lost (the driver then moves
to a new table). Prints the moves, tables, sockets closed and pushes lost.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/9 \\
        .venv/bin/python -m bench.pushes_lost --seconds 120

Every server it starts is stopped in a ``finally``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.server_actions import SocketTableDriver, register, start_server, stop


class PushLost(Exception):
    pass


class ChurningDriver(SocketTableDriver):
    """A socket driver that reports a push that does not come, instead of failing."""

    wait = 8.0

    def _view_at_least(self, seat: int, version: int) -> dict:
        with self.changed:
            if not self.changed.wait_for(
                lambda: self.views.get(seat, {}).get("version", -1) >= version, timeout=self.wait
            ):
                raise PushLost(f"table {self.code}: no push of version {version} to seat {seat}")
            return self.views[seat]

    def next_table(self) -> None:
        self.code, self.seat = self._new_table(), 1


def churn(drivers: list[ChurningDriver], seconds: float, per_table: int) -> dict:
    ends = time.monotonic() + seconds
    moves = [0] * len(drivers)
    lost: list[str] = []

    def play(index: int, driver: ChurningDriver) -> None:
        while time.monotonic() < ends:
            try:
                driver.act()
                moves[index] += 1
                if moves[index] % per_table == 0:
                    driver.next_table()
            except PushLost as missing:
                lost.append(str(missing))
                driver.next_table()

    threads = [threading.Thread(target=play, args=pair) for pair in enumerate(drivers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tables = sum(d.table_number for d in drivers)
    return {
        "seconds": seconds,
        "moves": sum(moves),
        "tables": tables,
        "sockets_closed": 4 * (tables - len(drivers)),
        "pushes_lost": len(lost),
        "lost": lost,
        "server_errors_5xx": sum(d.server_errors for d in drivers),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--moves-per-table", type=int, default=12)
    parser.add_argument("--wait", type=float, default=8.0, help="seconds a push may take")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise SystemExit("needs DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)")
    ChurningDriver.wait = args.wait
    with tempfile.TemporaryDirectory(prefix="dekabes-bench-") as tmp:
        processes, urls = start_server(Path(tmp), workers=2, scale_out=True, shared=False)
        try:
            token = register(urls[0])
            drivers = [
                ChurningDriver(urls, token, 90_000 + i, args.seed) for i in range(args.tables)
            ]
            report = churn(drivers, args.seconds, args.moves_per_table)
            for driver in drivers:
                driver.close_sockets()
        finally:
            stop(processes)
    print(
        " ".join(f"{k}={report[k]}" for k in ("moves", "tables", "sockets_closed", "pushes_lost")),
        file=sys.stderr,
    )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
