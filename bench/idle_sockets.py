"""``python -m bench.idle_sockets``: what open seat sockets cost the server while nothing
is played (their pings: lease renewals, token looks, the catch-up's version read,
``server.sockets.pings``), and whether any push is sent meanwhile (none should be).

One server process (SQLite, or PostgreSQL + Redis with ``--scale-out`` and
``DATABASE_URL``/``REDIS_URL``), ``--tables`` tables with their four seats on sockets
(``server_actions.SocketTableDriver``), two moves at each, then ``--seconds`` of quiet:

    .venv/bin/python -m bench.idle_sockets --tables 200 --seconds 60

Prints ``idle_cpu_ms_per_second`` (the server's CPU a second, from /proc: 10 ms clock
ticks, so run 40 s or more) and ``pushes_while_idle``. The server is stopped in a
``finally``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from bench.server_actions import (
    SocketTableDriver,
    idle_cpu,
    load_average,
    register,
    start_server,
    stop,
)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--scale-out", action="store_true", help="PostgreSQL + Redis")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        processes, urls = start_server(Path(workdir), scale_out=args.scale_out)
        drivers: list[SocketTableDriver] = []
        try:
            token = register(urls[0])
            for index in range(args.tables):
                drivers.append(SocketTableDriver(urls, token, 60_000 + index, seed=1))
            for driver in drivers:
                driver.act()
                driver.act()
            time.sleep(2.0)  # the last pushes are read
            before = sum(driver.pushes for driver in drivers)
            idle = idle_cpu(processes, 4 * args.tables, seconds=args.seconds)
            after = sum(driver.pushes for driver in drivers)
            report = {**idle, "pushes_while_idle": after - before, "load": load_average()}
        finally:
            for driver in drivers:
                driver.close_sockets()
            stop(processes)
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
