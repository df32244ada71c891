"""``make bench-server``: what a game action costs the server, and its latency at a set rate.

Starts Daphne (embedded default: a temporary SQLite file; ``--scale-out``: PostgreSQL +
Redis) and measures two things, printing one JSON object:

1. **Server CPU per request** — the Daphne processes' own CPU time (user + system, read
   from ``/proc/<pid>/stat``, every thread) over a fixed number of requests: ``--actions``
   game actions (GET the seat view, then POST one random legal action; the rare extra
   look when the next seat to act was guessed wrong, and a new table when a match ends,
   are counted in), then ``--gets`` trivial authenticated GETs (``/api/me``). The ratio
   of the two is the figure to compare: both are measured in the same run on the same
   server, so it holds on a loaded machine where absolute times do not.
2. **Open loop** — actions arrive on a fixed schedule (``--rate`` per second for
   ``--seconds``, spread over ``--tables`` tables, one action in flight per table).
   Latency is measured from each action's *scheduled* time to its answer, so a server
   that falls behind shows it as latency (a closed loop would only slow the clients).
   An action is the seat view GET and the POST, both inside the measured time. Actions
   not started 10 s after the schedule's end are dropped and counted (the run is bounded).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "a long enough password 42"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
GRACE = 10.0  # seconds past the schedule's end before unsent actions are dropped


def start_server(workdir: Path, workers: int = 1, scale_out: bool = False):
    """Daphne on a free port; ``workers`` processes share one listening socket.

    ``scale_out`` keeps DATABASE_URL / REDIS_URL (PostgreSQL + Redis, the scale-out
    path); otherwise the embedded default (a temporary SQLite file, in-memory layer).
    """
    env = dict(os.environ)
    if not scale_out:
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
    env.update(
        {
            "DEKABES_VAR_DIR": str(workdir),
            "DEKABES_LOG_LEVEL": "WARNING",
            # every table driver registers from 127.0.0.1 (the Redis-held count persists)
            "DEKABES_RATE_REGISTER_ADDRESS": "1000000/hour",
        }
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    port = listener.getsockname()[1]
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "--fd",
                str(listener.fileno()),
                "--access-log",
                os.devnull,
                "server.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            pass_fds=(listener.fileno(),),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(workers)
    ]
    listener.close()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            requests.get(url + "/api/me", timeout=5)
            return processes, url
        except requests.RequestException:
            time.sleep(0.1)
    stop(processes)
    raise RuntimeError("server did not start")


def stop(processes) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def cpu_seconds(processes) -> float:
    """User + system CPU of the server processes so far (all their threads)."""
    total = 0
    for process in processes:
        with open(f"/proc/{process.pid}/stat") as stat:
            # The command name may hold spaces: the fields after it are fixed.
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / CLOCK_TICKS


class TableDriver:
    """One owner holding all four seats of a table, playing random legal actions."""

    def __init__(self, url: str, index: int, seed: int):
        self.url = url
        self.session = requests.Session()
        self.rng = random.Random(seed * 1000 + index)
        self.lock = threading.Lock()  # one action in flight per table
        name = f"bench{index}x{uuid.uuid4().hex[:12]}"  # unique in a reused database too
        token = self.session.post(
            url + "/api/auth/register", json={"username": name, "password": PASSWORD}
        ).json()["token"]
        self.session.headers["Authorization"] = f"Token {token}"
        self.code = self._new_table()
        self.seat = 1
        self.errors = 0  # answers other than 200
        self.extra_gets = 0  # seat views that led to no action (wrong guess, new table)

    def _new_table(self) -> str:
        body = {"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]}
        return self.session.post(self.url + "/api/tables", json=body).json()["code"]

    def act(self) -> None:
        """GET the seat view, POST one legal action (looks again until one is sent)."""
        for _ in range(20):
            response = self.session.get(f"{self.url}/api/tables/{self.code}/seats/{self.seat}")
            if response.status_code != 200:
                self.errors += 1
                self.extra_gets += 1
                continue
            body = response.json()
            view = body["view"]
            if view["phase"] == "match_over":
                self.code, self.seat = self._new_table(), 1
                self.extra_gets += 1
                continue
            if not view["legal"]:
                self.seat = view["to_act"] or (self.seat % 4 + 1)
                self.extra_gets += 1
                continue
            event = self.rng.choice(view["legal"])
            action = {k: v for k, v in event.items() if k != "seat"}
            action["expected_version"] = body["version"]
            response = self.session.post(
                f"{self.url}/api/tables/{self.code}/seats/{self.seat}/actions", json=action
            )
            if response.status_code != 200:
                self.errors += 1
                return
            after = response.json()["view"]
            self.seat = after["to_act"] or next(
                (n for n in (1, 2, 3, 4) if not after["accepted"][str(n)]), self.seat % 4 + 1
            )
            return
        raise RuntimeError("no seat could act in 20 looks")


def run_split(drivers, total: int, work) -> None:
    """``total`` calls of ``work(driver)``, shared by one thread per driver."""
    counts = [total // len(drivers) + (i < total % len(drivers)) for i in range(len(drivers))]

    def loop(driver, count):
        for _ in range(count):
            work(driver)

    threads = [threading.Thread(target=loop, args=(d, c)) for d, c in zip(drivers, counts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def measure_cpu(processes, drivers, actions: int, gets: int) -> dict:
    run_split(drivers, max(len(drivers), actions // 10), TableDriver.act)  # warm up
    run_split(drivers, max(len(drivers), gets // 10), lambda d: d.session.get(d.url + "/api/me"))
    extra_before = sum(d.extra_gets for d in drivers)
    started = cpu_seconds(processes)
    run_split(drivers, actions, TableDriver.act)
    action_cpu = cpu_seconds(processes) - started
    extra = sum(d.extra_gets for d in drivers) - extra_before

    def trivial(d):
        if d.session.get(d.url + "/api/me").status_code != 200:
            d.errors += 1

    started = cpu_seconds(processes)
    run_split(drivers, gets, trivial)
    get_cpu = cpu_seconds(processes) - started
    per_action, per_get = action_cpu / actions, get_cpu / gets
    return {
        "actions": actions,
        "extra_seat_views": extra,
        "trivial_gets": gets,
        "server_cpu_ms_per_action": round(per_action * 1000, 3),
        "server_cpu_ms_per_trivial_get": round(per_get * 1000, 3),
        "action_cpu_vs_trivial_get": round(per_action / per_get, 2),
    }


def open_loop(drivers, rate: float, seconds: float) -> dict:
    """Actions scheduled at ``rate``/s round-robin over the tables; latency from the schedule."""
    count = int(rate * seconds)
    latencies: list[float] = []
    dropped = [0]
    lock = threading.Lock()

    def job(driver, scheduled):
        with driver.lock:
            if time.monotonic() > give_up:  # far behind schedule: stop, bounded run
                with lock:
                    dropped[0] += 1
                return
            driver.act()
        done = time.monotonic() - scheduled
        with lock:
            latencies.append(done)

    start = time.monotonic() + 0.2
    give_up = start + seconds + GRACE
    with ThreadPoolExecutor(max_workers=len(drivers) + 4) as pool:
        for i in range(count):
            scheduled = start + i / rate
            delay = scheduled - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            pool.submit(job, drivers[i % len(drivers)], scheduled)
    elapsed = time.monotonic() - start
    return {
        "rate_per_second": rate,
        "scheduled": count,
        "answered": len(latencies),
        "dropped_behind_schedule": dropped[0],
        "achieved_per_second": round(len(latencies) / elapsed, 1),
        "latency_p50_ms": round(quantile(latencies, 0.50) * 1000, 1),
        "latency_p90_ms": round(quantile(latencies, 0.90) * 1000, 1),
        "latency_p99_ms": round(quantile(latencies, 0.99) * 1000, 1),
        "latency_max_ms": round(max(latencies) * 1000, 1),
    }


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20, help="tables in the open-loop run")
    parser.add_argument(
        "--cpu-tables",
        type=int,
        default=4,
        help="tables (client threads) during the CPU measurement",
    )
    parser.add_argument("--actions", type=int, default=600, help="actions in the CPU measurement")
    parser.add_argument(
        "--gets", type=int, default=1200, help="trivial GETs in the CPU measurement"
    )
    parser.add_argument("--rate", type=float, default=100.0, help="open-loop actions per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="open-loop duration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="Daphne processes on one socket")
    parser.add_argument(
        "--scale-out",
        action="store_true",
        help="use DATABASE_URL and REDIS_URL (PostgreSQL + Redis)",
    )
    args = parser.parse_args(argv)
    if args.workers > 1 and not args.scale_out:
        parser.error(
            "several workers need the scale-out path (--scale-out with PostgreSQL + "
            "Redis): the in-memory layer cannot carry pushes between processes"
        )
    with tempfile.TemporaryDirectory(prefix="dekabes-bench-") as tmp:
        processes, url = start_server(Path(tmp), args.workers, args.scale_out)
        try:
            drivers = [
                TableDriver(url, i, args.seed) for i in range(max(args.tables, args.cpu_tables))
            ]
            cpu = measure_cpu(processes, drivers[: args.cpu_tables], args.actions, args.gets)
            loop = open_loop(drivers[: args.tables], args.rate, args.seconds)
        finally:
            stop(processes)
    report = {
        "store": "postgresql+redis" if args.scale_out else "sqlite+in-memory",
        "workers": args.workers,
        "cpu": cpu,
        "open_loop": {"tables": args.tables, **loop},
        "non_200_answers": sum(d.errors for d in drivers),
        "note": "the CPU ratio is the robust figure on a loaded machine; absolute ms vary",
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
