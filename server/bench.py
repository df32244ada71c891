"""``make bench-server``: throughput and latency of the table server on loopback.

Starts Daphne (embedded default, a temporary SQLite file), then plays random matches on
``--tables`` tables at once, one client thread per table, over REST. Each loop fetches
the view of the seat to act and sends one action; only the action POSTs are timed.
Then, on the same server and with the same concurrency, it times a trivial
authenticated GET (``/api/me``). Prints one JSON object.
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
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "a long enough password 42"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(workdir: Path, workers: int = 1, scale_out: bool = False):
    """Daphne on a free port; ``workers`` processes share one listening socket.

    ``scale_out`` keeps DATABASE_URL / REDIS_URL (PostgreSQL + Redis, the scale-out
    path); otherwise the embedded default (a temporary SQLite file, in-memory layer).
    """
    env = dict(os.environ)
    if not scale_out:
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
    env.update({"DEKABES_VAR_DIR": str(workdir), "DEKABES_LOG_LEVEL": "WARNING",
                # every table driver registers from 127.0.0.1 (the Redis-held count persists)
                "DEKABES_RATE_REGISTER_ADDRESS": "1000000/hour"})
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    port = listener.getsockname()[1]
    processes = [subprocess.Popen([sys.executable, "-m", "daphne", "--fd", str(listener.fileno()),
                                   "--access-log", os.devnull, "server.asgi:application"],
                                  cwd=ROOT, env=env, pass_fds=(listener.fileno(),),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for _ in range(workers)]
    listener.close()
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            requests.get(url + "/api/me", timeout=1)
            return processes, url
        except requests.ConnectionError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


class TableDriver(threading.Thread):
    """One owner holding all four seats of a table, playing random legal actions."""

    def __init__(self, url: str, index: int, deadline: float, seed: int):
        super().__init__(daemon=True)
        self.url, self.deadline = url, deadline
        self.session = requests.Session()
        self.rng = random.Random(seed * 1000 + index)
        name = f"bench{index}x{uuid.uuid4().hex[:12]}"     # unique in a reused database too
        token = self.session.post(url + "/api/auth/register",
                                  json={"username": name, "password": PASSWORD}).json()["token"]
        self.session.headers["Authorization"] = f"Token {token}"
        self.latencies: list[float] = []
        self.errors = 0
        self.code = self._new_table()

    def _new_table(self) -> str:
        body = {"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]}
        return self.session.post(self.url + "/api/tables", json=body).json()["code"]

    def run(self) -> None:
        seat = 1
        while time.monotonic() < self.deadline:
            body = self.session.get(f"{self.url}/api/tables/{self.code}/seats/{seat}").json()
            view = body["view"]
            if view["phase"] == "match_over":
                self.code, seat = self._new_table(), 1
                continue
            if not view["legal"]:
                seat = view["to_act"] or (seat % 4 + 1)
                continue
            event = self.rng.choice(view["legal"])
            action = {k: v for k, v in event.items() if k != "seat"}
            action["expected_version"] = body["version"]
            started = time.perf_counter()
            response = self.session.post(f"{self.url}/api/tables/{self.code}/seats/{seat}/actions",
                                         json=action)
            self.latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                self.errors += 1
                continue
            after = response.json()["view"]
            seat = after["to_act"] or next(
                (n for n in (1, 2, 3, 4) if not after["accepted"][str(n)]), seat % 4 + 1)


def trivial_gets(url: str, sessions: list[requests.Session], seconds: float) -> tuple[int, list[float]]:
    deadline = time.monotonic() + seconds
    counts, latencies = [0] * len(sessions), []
    lock = threading.Lock()

    def loop(i: int) -> None:
        mine = []
        while time.monotonic() < deadline:
            started = time.perf_counter()
            sessions[i].get(url + "/api/me")
            mine.append(time.perf_counter() - started)
            counts[i] += 1
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts), latencies


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="Daphne processes on one socket")
    parser.add_argument("--scale-out", action="store_true",
                        help="use DATABASE_URL and REDIS_URL (PostgreSQL + Redis)")
    args = parser.parse_args(argv)
    if args.workers > 1 and not args.scale_out:
        parser.error("several workers need the scale-out path (--scale-out with PostgreSQL + "
                     "Redis): the in-memory layer cannot carry pushes between processes")
    with tempfile.TemporaryDirectory(prefix="dekabes-bench-") as tmp:
        processes, url = start_server(Path(tmp), args.workers, args.scale_out)
        try:
            drivers = [TableDriver(url, i, 0, args.seed) for i in range(args.tables)]
            deadline = time.monotonic() + args.seconds
            started = time.monotonic()
            for d in drivers:
                d.deadline = deadline
                d.start()
            for d in drivers:
                d.join()
            elapsed = time.monotonic() - started
            latencies = [x for d in drivers for x in d.latencies]
            gets, get_latencies = trivial_gets(url, [d.session for d in drivers], args.seconds / 2)
            get_rate = gets / (args.seconds / 2)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(10)
    actions_per_second = len(latencies) / elapsed
    report = {
        "tables": args.tables,
        "workers": args.workers,
        "store": "postgresql+redis" if args.scale_out else "sqlite+in-memory",
        "seconds": round(elapsed, 1),
        "actions": len(latencies),
        "rejected_actions": sum(d.errors for d in drivers),
        "actions_per_second": round(actions_per_second, 1),
        "action_p50_ms": round(quantile(latencies, 0.50) * 1000, 2),
        "action_p99_ms": round(quantile(latencies, 0.99) * 1000, 2),
        "trivial_get_per_second": round(get_rate, 1),
        "trivial_get_p50_ms": round(quantile(get_latencies, 0.50) * 1000, 2),
        "action_cost_vs_trivial_get": round(quantile(latencies, 0.50) / quantile(get_latencies, 0.50), 2),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
