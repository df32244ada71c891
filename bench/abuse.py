"""``make bench-abuse`` (``python -m bench.abuse``): what a login flood, a huge body,
648 parked long-polls and a club flood do to everyone else.

Starts its own Daphne (temporary SQLite, loopback only) and measures:
1. a bystander's game action (GET the seat view + POST a legal action) at a fixed
   arrival rate (open loop: latency counts from the scheduled start, so queueing shows),
   first alone, then while ``--flooders`` clients post wrong passwords to
   ``/api/auth/token`` as fast as they can; the flood's answers are counted by status;
2. the server's memory (VmRSS) before and after one POST announcing 400 MB and sending
   as much of it as the server reads;
0. first, on a server of its own, ``--parked-polls`` (648) lobby long-polls
   (``/api/me/league-tables?wait=30``) kept parked by 10 accounts: the idle server's CPU
   (cores, from ``/proc``) and the bystander's p50/p90, without and with them
   (``--parked-before``: also with the old waiter's 1 s re-read, for a before figure;
   ``--only-parked``: only this).
3. the club flood (issue 20): a visitor's home page (p50/p90 and size) before and after
   one account tries to create ``--clubs`` public clubs with 2,000-character descriptions
   (the quota ``DEKABES_MAX_CLUBS`` refuses most: the answers are counted; ``--env
   DEKABES_MAX_CLUBS=100000`` shows the page with every club made).
``--root`` runs another checkout's server (e.g. the main branch, for a before/after
figure) with this interpreter. Figures are wall-clock on a shared machine: compare
the runs of one invocation, not across invocations.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import requests

from server.run import daphne_command

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "a long enough password 42"


def start(root: Path, workdir: Path, env_extra: dict) -> tuple[subprocess.Popen, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "DEKABES_VAR_DIR": str(workdir),
            "DEKABES_SQLITE_PATH": str(workdir / "b.sqlite3"),
            "DEKABES_LOG_LEVEL": "WARNING",
            "PYTHONDONTWRITEBYTECODE": "1",
            "DEKABES_RATE_REGISTER_ADDRESS": "100000/hour",
            **env_extra,
        }
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=root, env=env, check=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        daphne_command(port=port, access_log=False),
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            requests.get(url + "/api/me", timeout=5)
            return process, url
        except requests.RequestException:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("server did not start")


class Bystander:
    """One member playing all four seats of a casual table."""

    def __init__(self, url: str):
        self.url = url
        self.http = requests.Session()
        name = f"by{uuid.uuid4().hex[:10]}"
        token = self.http.post(
            url + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=120
        ).json()["token"]
        self.http.headers["Authorization"] = f"Token {token}"
        self.code = self._table()

    def _table(self) -> str:
        body = {"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]}
        return self.http.post(self.url + "/api/tables", json=body, timeout=120).json()["code"]

    def action(self) -> None:
        for seat in (1, 2, 3, 4):
            body = self.http.get(
                f"{self.url}/api/tables/{self.code}/seats/{seat}", timeout=120
            ).json()
            if body["view"]["phase"] == "match_over":
                self.code = self._table()
                return
            legal = body["view"]["legal"]
            if legal:
                event = {k: v for k, v in legal[0].items() if k != "seat"}
                self.http.post(
                    f"{self.url}/api/tables/{self.code}/seats/{seat}/actions",
                    json={**event, "expected_version": body["version"]},
                    timeout=120,
                )
                return


def open_loop(bystander: Bystander, rate: float, seconds: float) -> list[float]:
    latencies, period = [], 1.0 / rate
    start = time.monotonic()
    for i in range(int(seconds * rate)):
        scheduled = start + i * period
        if time.monotonic() > start + 2 * seconds:
            break  # bounded: a stalled server shows as fewer, slower actions
        time.sleep(max(0.0, scheduled - time.monotonic()))
        bystander.action()
        latencies.append(time.monotonic() - scheduled)
    return latencies


def flood(url: str, stop: threading.Event, counts: Counter) -> None:
    http = requests.Session()
    while not stop.is_set():
        try:
            answer = http.post(
                url + "/api/auth/token",
                timeout=60,
                json={"username": f"x{uuid.uuid4().hex[:8]}", "password": "wrong password"},
            )
            counts[answer.status_code] += 1
        except requests.RequestException:
            counts["error"] += 1


def summary(latencies: list[float]) -> str:
    ms = sorted(x * 1000 for x in latencies)
    return (
        f"p50 {statistics.median(ms):7.1f} ms  p90 {ms[int(len(ms) * 0.9)]:7.1f} ms  "
        f"max {ms[-1]:7.1f} ms  (n={len(ms)})"
    )


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def big_post(url: str, pid: int, megabytes: int = 400) -> tuple[int, int, str]:
    host, port = url.split("//")[1].split(":")
    before = rss_kb(pid)
    answer = "no answer"
    with socket.create_connection((host, int(port))) as sock:
        sock.settimeout(120)
        sock.sendall(
            b"POST /api/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (megabytes << 20)
        )
        block = b"x" * (1 << 20)
        try:
            for _ in range(megabytes):
                sock.sendall(block)
        except OSError:
            pass
        try:
            answer = sock.recv(200).split(b"\r\n", 1)[0].decode("latin-1")
        except OSError as problem:
            answer = repr(problem)
    time.sleep(2)
    return before, rss_kb(pid), answer


# -- parked long-polls (issue 20) -------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def park(url: str, token: str, stop: threading.Event, answers: Counter) -> None:
    """One client keeping a lobby long-poll parked (``?wait=30``) until ``stop``."""
    http = requests.Session()
    http.headers["Authorization"] = f"Token {token}"
    after = http.get(url + "/api/me/league-tables", timeout=120).json()["version"]
    answers["sent"] += 1
    while not stop.is_set():
        try:
            answer = http.get(url + f"/api/me/league-tables?wait=30&after={after}", timeout=120)
            answers[answer.status_code] += 1
            if answer.status_code == 200:
                after = answer.json()["version"]
            else:
                time.sleep(1)
        except requests.RequestException:
            answers["error"] += 1


def parked_polls(root: Path, polls: int, rate: float, seconds: float, env: dict) -> dict:
    """An idle server's CPU and a bystander's p50/p90, without and with ``polls`` parked
    lobby long-polls (10 accounts; the caps raised for the bench: by default one member's
    bots share 64). Its own server, stopped in a ``finally``."""
    extra = {"DEKABES_MAX_LONG_POLLS": str(polls), "DEKABES_MAX_LONG_POLLS_BOT": str(polls)}
    with tempfile.TemporaryDirectory(prefix="dekabes-parked-") as tmp:
        process, url = start(root, Path(tmp), {**extra, **env})
        stop, answers = threading.Event(), Counter[str]()
        parkers: list[threading.Thread] = []
        try:
            bystander = Bystander(url)
            bystander.action()
            c0 = cpu_seconds(process.pid)
            time.sleep(seconds)
            idle_alone = (cpu_seconds(process.pid) - c0) / seconds
            alone = open_loop(bystander, rate, seconds)
            tokens = [
                requests.post(
                    url + "/api/auth/register",
                    json={"username": f"pk{uuid.uuid4().hex[:10]}", "password": PASSWORD},
                    timeout=120,
                ).json()["token"]
                for _ in range(10)
            ]
            parkers = [
                threading.Thread(
                    target=park, args=(url, tokens[i % 10], stop, answers), daemon=True
                )
                for i in range(polls)
            ]
            for thread in parkers:
                thread.start()
            deadline = time.monotonic() + 180
            while answers["sent"] < polls and time.monotonic() < deadline:
                time.sleep(0.2)  # every poll sent (each first reads the version)
            time.sleep(8.0)  # and parked: the window ends before their 30 s deadline
            c0 = cpu_seconds(process.pid)
            time.sleep(seconds)
            idle_parked = (cpu_seconds(process.pid) - c0) / seconds
            loaded = open_loop(bystander, rate, seconds)
        finally:
            stop.set()
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
            for thread in parkers:
                thread.join(5)

    def p(values: list[float], q: float) -> float:
        ms = sorted(x * 1000 for x in values)
        return round(ms[min(len(ms) - 1, int(q * len(ms)))], 1)

    return {
        "polls": polls,
        "env": env,
        "idle_cpu_cores_without": round(idle_alone, 3),
        "idle_cpu_cores_with": round(idle_parked, 3),
        "bystander_without_p50_p90_ms": (p(alone, 0.5), p(alone, 0.9)),
        "bystander_with_p50_p90_ms": (p(loaded, 0.5), p(loaded, 0.9)),
        "poll_answers": {k: v for k, v in answers.items() if k != "error"},  # + the stop
    }


def report_parked(args) -> None:
    runs: list[tuple[str, dict]] = [("now", {})]
    if args.parked_before:  # the old waiter: a read of the version every second
        runs.append(("re-read each 1 s (before)", {"DEKABES_LONG_POLL_RECHECK": "1"}))
    for name, env in runs:
        r = parked_polls(Path(args.root), args.parked_polls, args.rate, args.seconds, env)
        print(
            f"{r['polls']} parked long-polls, {name}: idle server CPU "
            f"{r['idle_cpu_cores_without']:.3f} -> {r['idle_cpu_cores_with']:.3f} cores; "
            f"bystander p50/p90 {r['bystander_without_p50_p90_ms']} -> "
            f"{r['bystander_with_p50_p90_ms']} ms; poll answers {r['poll_answers']}",
            flush=True,
        )


def home_page(url: str, times: int = 40) -> tuple[list[float], int]:
    """A visitor without a token loads the home page ``times`` times in a row."""
    visitor, latencies, size = requests.Session(), [], 0
    for _ in range(times):
        started = time.monotonic()
        response = visitor.get(url + "/", timeout=120)
        latencies.append(time.monotonic() - started)
        size = len(response.content)
    return latencies, size


def club_flood(url: str, clubs: int) -> None:
    quiet, quiet_size = home_page(url)
    print(f"home page, {'no club flood':<22}: {summary(quiet)}; {quiet_size} bytes", flush=True)
    http = requests.Session()
    name = f"cf{uuid.uuid4().hex[:10]}"
    token = http.post(
        url + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=120
    ).json()["token"]
    http.headers["Authorization"] = f"Token {token}"
    answers: Counter[str] = Counter()
    started = time.monotonic()
    for n in range(clubs):
        response = http.post(
            url + "/api/clubs",
            json={"slug": f"{name}-{n}", "name": f"Flood {n:04}", "description": "x" * 2000},
            timeout=120,
        )
        code = response.json().get("code", "") if response.status_code != 201 else ""
        answers[f"{response.status_code} {code}".strip()] += 1
    took = time.monotonic() - started
    print(f"{clubs} club creations in {took:.1f} s: {dict(answers)}", flush=True)
    loud, loud_size = home_page(url)
    made = answers.get("201", 0)
    label = f"after {made} clubs made"
    print(f"home page, {label:<22}: {summary(loud)}; {loud_size} bytes", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", default=str(ROOT), help="checkout whose server to run")
    parser.add_argument("--rate", type=float, default=5.0, help="bystander actions per second")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--flooders", type=int, default=6)
    parser.add_argument(
        "--no-throttle",
        action="store_true",
        help="lift the login throttles (shows the hashing pool alone)",
    )
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-flood", action="store_true")
    parser.add_argument("--clubs", type=int, default=1000, help="club flood: creations tried")
    parser.add_argument("--only-clubs", action="store_true", help="the club flood alone")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server")
    parser.add_argument("--parked-polls", type=int, default=648, help="0: skip that scenario")
    parser.add_argument(
        "--parked-before", action="store_true", help="also with the old 1 s re-read"
    )
    parser.add_argument("--only-parked", action="store_true")
    args = parser.parse_args(argv)
    if args.parked_polls and not args.only_clubs:
        report_parked(args)
        if args.only_parked:
            return 0
    extra = (
        {
            "DEKABES_RATE_LOGIN_ADDRESS": "10000000/minute",
            "DEKABES_RATE_LOGIN_NAME": "10000000/minute",
        }
        if args.no_throttle
        else {}
    )
    extra.update(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory(prefix="dekabes-abuse-") as tmp:
        process, url = start(Path(args.root), Path(tmp), extra)
        try:
            if args.only_clubs:
                club_flood(url, args.clubs)
                return 0
            bystander = Bystander(url)
            bystander.action()
            quiet = open_loop(bystander, args.rate, args.seconds)
            print(f"bystander action, no flood      : {summary(quiet)}", flush=True)
            if args.skip_flood:
                return 0
            stop, counts = threading.Event(), Counter[str]()
            flooders = [
                threading.Thread(target=flood, args=(url, stop, counts), daemon=True)
                for _ in range(args.flooders)
            ]
            for thread in flooders:
                thread.start()
            time.sleep(1.0)
            loud = open_loop(bystander, args.rate, args.seconds)
            stop.set()
            for thread in flooders:
                thread.join(70)
            print(f"bystander action, {args.flooders} flooders : {summary(loud)}", flush=True)
            print(f"flood answers: {dict(counts)}", flush=True)
            print(
                f"p50 ratio flood/quiet: {statistics.median(loud) / statistics.median(quiet):.2f}"
            )
            if not args.skip_memory:
                before, after, answer = big_post(url, process.pid)
                print(
                    f"400 MB POST: server RSS {before / 1024:.0f} MB -> {after / 1024:.0f} MB; "
                    f"answer: {answer}",
                    flush=True,
                )
            club_flood(url, args.clubs)
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
