"""``make bench-server`` (``python -m bench.server_actions``): what a game action costs the
server, and its latency at a set rate.

Starts Daphne (embedded default: a temporary SQLite file; ``--scale-out``: PostgreSQL +
Redis from DATABASE_URL / REDIS_URL) on loopback and prints one JSON object:

1. **cpu** — the Daphne processes' own CPU time (user + system, read from
   ``/proc/<pid>/stat``, every thread) over a fixed number of requests: ``--actions``
   game actions (GET the seat view, then POST one random legal action; the rare extra
   look when the next seat to act was guessed wrong, and a new table when a match ends,
   are counted in), then ``--gets`` trivial authenticated GETs (``/api/me``). The ratio
   of the two is the figure to compare: both are measured in the same run on the same
   server, so it holds on a loaded machine where absolute times do not. Measured for
   three kinds of driver together, round by round (``--rounds`` batches of each kind,
   each followed by its trivial GETs, ``measure_modes``): as is (``cpu``), with an
   ``Idempotency-Key`` on every action as docs/api.md tells bots (``cpu_keys``, goal
   2.5x a trivial GET or less), and with keys and the four seats of every table
   connected by WebSocket, each push read (``cpu_rest_sockets``), and the moves sent over
   those sockets, as the clients do (``cpu_sockets``, goal: the peer's file store or
   less). ``summary`` puts them side by side (and a table of them is printed on stderr);
   ``--peer`` adds the peer's figures from the same run (``peer``: boardgame.io 0.50.2
   on Node, ``../shared/bench/boardgameio``, its in-memory store and its default file
   store); ``--floor`` the bare stack's (``bench.socket_floor``: Daphne and Channels
   with no game, with and without the durable commit); ``--quick`` measures only these.
2. **open_loop** — actions arrive on a fixed schedule (``--rate`` per second for
   ``--seconds``, spread over ``--tables`` tables, one action in flight per table).
   ``server_*`` percentiles are server-side: the two requests' times inside the server
   process (``Server-Timing``, ``bench.timed_asgi``: from the request reaching the
   application, its wait for a request thread included, to its answer). ``client_*``
   run from each action's *scheduled* time to its answer at the client, so a server (or
   client) falling behind shows as latency. Actions not started 10 s after the
   schedule's end are dropped and counted: the run is bounded.
3. **tables** — CPU per action with the actions spread over 1, 20 and 200 tables
   (``--table-counts``): a flat cost means no per-table work grows with the club.
4. **cold_table** — a table the process has not seen, with a log of 50, 500 and 5,000
   events (``--cold-events``): the time to fold it ready, from its newest snapshot and
   with no snapshot at all (measured in a child process on the same database).

``--scale-out`` (PostgreSQL + Redis) instead compares 1 and ``--workers`` (default 2)
Daphne processes, each on its own loopback port, with every table's requests
alternating between the processes (seat view on one, the action on the next, as a load
balancer would spread them): actions/s of each, 500s, version mismatches (a 409
stale_version for a version just read, or a seat view older than an answer already
given), and the CPU ratio; the same over the seats' sockets; with ``--socket-extras``,
for each process count, the socket moves' flatness with match length and with the number
of tables. Every child process is stopped in a ``finally``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
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

from bench import socket_floor
from server.run import daphne_command

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "a long enough password 42"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
GRACE = 10.0  # seconds past the schedule's end before unsent actions are dropped
APPLICATION = "bench.timed_asgi:application"  # the server's, with Server-Timing


def server_env(workdir: Path, scale_out: bool) -> dict:
    env = dict(os.environ)
    if not scale_out:
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
    env.pop("DEKABES_SQLITE_PATH", None)
    env.update(
        {
            "DEKABES_VAR_DIR": str(workdir),
            "DEKABES_LOG_LEVEL": "WARNING",
            # every table driver registers from 127.0.0.1 (the Redis-held count persists)
            "DEKABES_RATE_REGISTER_ADDRESS": "1000000/hour",
            "DEKABES_MAX_TABLES": "100000",  # one bench account drives hundreds of tables
            "DEKABES_MAX_SOCKETS": "100000",  # and holds four sockets at each (--sockets)
        }
    )
    return env


def start_server(workdir: Path, workers: int = 1, scale_out: bool = False, shared=True):
    """Daphne on loopback: ``workers`` processes on one shared socket (``shared``), or
    each on a port of its own. Returns (processes, urls)."""
    env = server_env(workdir, scale_out)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    listeners = [_listener() for _ in range(1 if shared else workers)]
    processes = []
    try:
        for index in range(workers):
            listener = listeners[0 if shared else index]
            processes.append(
                subprocess.Popen(
                    daphne_command(fd=listener.fileno(), application=APPLICATION, access_log=False),
                    cwd=ROOT,
                    env=env,
                    pass_fds=(listener.fileno(),),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        urls = [f"http://127.0.0.1:{listener.getsockname()[1]}" for listener in listeners]
    finally:
        for listener in listeners:
            listener.close()
    try:
        for url in urls:
            _wait_until_up(url)
    except BaseException:
        stop(processes)
        raise
    return processes, urls


def _listener() -> socket.socket:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(512)
    return listener


def _wait_until_up(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            requests.get(url + "/api/me", timeout=5)
            return
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def stop(processes) -> None:
    for process in processes:
        if process.poll() is None:
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


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def register(url: str) -> str:
    name = f"bench{uuid.uuid4().hex[:16]}"  # unique in a reused database too
    response = requests.post(
        url + "/api/auth/register", json={"username": name, "password": PASSWORD}
    )
    response.raise_for_status()
    return response.json()["token"]


def seat_after(view: dict, seat: int) -> int:
    """The seat to act next, from the view an action's answer gave ``seat``: the one whose
    turn it is, else one that has not accepted the deal yet, else the next seat round."""
    return view["to_act"] or next(
        (n for n in (1, 2, 3, 4) if not view["accepted"][str(n)]), seat % 4 + 1
    )


class TableDriver:
    """One table whose four seats one account holds, playing random legal actions.

    With several ``urls`` (one per server process) each request goes to the next one:
    the seat view on one process, the action on another, as a load balancer spreads them.
    """

    def __init__(
        self,
        urls: list[str],
        token: str,
        index: int,
        seed: int,
        keys: bool = False,
        sockets: bool = False,
    ):
        self.urls = itertools.cycle(urls)
        self.ws_url = "ws" + urls[0].removeprefix("http")
        self.token = token
        self.keys = keys  # an Idempotency-Key on every action, as docs/api.md tells bots
        self.sockets: list = [] if sockets else None  # type: ignore[assignment]
        self.pushes = 0  # views received on the sockets
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.rng = random.Random(seed * 1000 + index)
        self.lock = threading.Lock()  # one action in flight per table
        self.errors = 0  # answers other than 200
        self.server_errors = 0  # 5xx answers
        self.mismatches = 0  # stale_version on a version just read; a view gone backwards
        self.extra_gets = 0  # seat views that led to no action (wrong guess, new table)
        self.seen = 0  # the newest version any answer gave for this table
        self.server_ms = 0.0  # Server-Timing of this driver's requests, summed
        self.code = self._new_table()
        self.seat = 1

    def _request(self, method: str, path: str, **kwargs) -> requests.Response:
        response = self.session.request(method, next(self.urls) + path, **kwargs)
        timing = response.headers.get("Server-Timing", "")
        if "dur=" in timing:
            self.server_ms += float(timing.split("dur=", 1)[1].split(",", 1)[0])
        if response.status_code >= 500:
            self.server_errors += 1
        return response

    def _new_table(self) -> str:
        body = {"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]}
        response = self._request("POST", "/api/tables", json=body)
        response.raise_for_status()
        self.seen = 0
        code = response.json()["code"]
        if self.sockets is not None:
            self.close_sockets()
            self.sockets = [self._connect(code, n) for n in (1, 2, 3, 4)]
        return code

    def _connect(self, code: str, seat: int):
        """One WebSocket per seat, as a desktop client holds it; a thread reads it."""
        import websocket  # websocket-client

        ws = websocket.create_connection(
            f"{self.ws_url}/ws/tables/{code}?seat={seat}",
            header=[f"Authorization: Token {self.token}"],
            timeout=30,
            skip_utf8_validation=True,  # as the SDK: its check costs 1.2 ms a push in Python
        )

        def read():
            try:
                while True:
                    if '"view"' in ws.recv():
                        self.pushes += 1
            except Exception:  # closed: this table is done
                return

        threading.Thread(target=read, daemon=True).start()
        return ws

    def close_sockets(self) -> None:
        for ws in self.sockets or ():
            try:
                ws.close()
            except Exception:  # noqa: S110 -- already gone
                pass

    def act(self) -> None:
        """GET the seat view, POST one legal action (looks again until one is sent)."""
        for _ in range(20):
            response = self._request("GET", f"/api/tables/{self.code}/seats/{self.seat}")
            if response.status_code != 200:
                self.errors += 1
                self.extra_gets += 1
                continue
            body = response.json()
            if body["version"] < self.seen:  # read-your-writes across processes
                self.mismatches += 1
            self.seen = max(self.seen, body["version"])
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
            headers = {"Idempotency-Key": uuid.uuid4().hex} if self.keys else None
            response = self._request(
                "POST",
                f"/api/tables/{self.code}/seats/{self.seat}/actions",
                json=action,
                headers=headers,
            )
            if response.status_code != 200:
                self.errors += 1
                if response.status_code == 409 and response.json().get("code") == "stale_version":
                    self.mismatches += 1  # nobody else acts at this table
                return
            answer = response.json()
            self.seen = max(self.seen, answer["version"])
            self.seat = seat_after(answer["view"], self.seat)
            return
        raise RuntimeError("no seat could act in 20 looks")

    def trivial_get(self) -> None:
        if self._request("GET", "/api/me").status_code != 200:
            self.errors += 1


class SocketTableDriver(TableDriver):
    """A table whose four seats are on WebSockets, moves sent over them: each seat's
    socket carries its actions (``{"type": "action"}``, answered on it) and its pushes,
    every push read; no HTTP request per move (docs/api.md, "Actions over the seat's
    socket"). The next seat's view is the push it receives after the move (its version
    awaited), as a client holding that seat would see it.

    ``long_match``: a finished match is followed by ``new_match`` at the same table (the
    log grows: flatness with match length) instead of a new table."""

    def __init__(self, urls, token, index, seed, long_match: bool = False):
        self.views: dict[int, dict] = {}  # seat -> the newest answer or push body
        self.answers: dict[str, dict] = {}  # command_id -> its answer frame
        self.changed = threading.Condition()
        self.long_match = long_match
        self.moves = 0
        self.table_number = 0  # the tables this driver opened so far
        # seat n's socket on process n (of several: pushes cross them through Redis)
        self.ws_urls = ["ws" + url.removeprefix("http") for url in urls]
        super().__init__(urls, token, index, seed, keys=True, sockets=True)

    def _new_table(self) -> str:
        with self.changed:
            self.views = {}
            # a push still in flight on the last table's sockets is not this table's
            self.table_number += 1
        code = super()._new_table()
        for seat in (1, 2, 3, 4):  # nothing is pushed on connect: look once
            response = self._request("GET", f"/api/tables/{code}/seats/{seat}")
            response.raise_for_status()
            self._keep(seat, response.json())
        return code

    def _connect(self, code: str, seat: int):
        import websocket  # websocket-client

        ws_url = self.ws_urls[(seat - 1) % len(self.ws_urls)]
        ws = websocket.create_connection(
            f"{ws_url}/ws/tables/{code}?seat={seat}",
            header=[f"Authorization: Token {self.token}"],
            timeout=30,
            skip_utf8_validation=True,  # as the SDK: its check costs 1.2 ms a push in Python
        )
        table_number = self.table_number

        def read():
            try:
                while True:
                    frame = json.loads(ws.recv())
                    kind = frame.get("type")
                    if kind == "view":
                        self.pushes += 1
                        self._keep(seat, frame, table_number)
                    elif kind == "answer":
                        with self.changed:
                            self.answers[frame["command_id"]] = frame
                            self.changed.notify_all()
            except Exception:  # closed: this table is done
                return

        threading.Thread(target=read, daemon=True).start()
        return ws

    def _keep(self, seat: int, body: dict, table_number: int | None = None) -> None:
        with self.changed:
            if table_number is not None and table_number != self.table_number:
                return  # a late push of a table this driver has left
            kept = self.views.get(seat)
            if kept is None or body["version"] >= kept["version"]:
                self.views[seat] = body
            self.changed.notify_all()

    def _view_at_least(self, seat: int, version: int) -> dict:
        with self.changed:
            if not self.changed.wait_for(
                lambda: self.views.get(seat, {}).get("version", -1) >= version, timeout=30
            ):
                raise RuntimeError(f"no push of version {version} to seat {seat}")
            return self.views[seat]

    def act(self) -> None:
        for _ in range(20):
            body = self._view_at_least(self.seat, self.seen)
            view = body["view"]
            if view["phase"] == "match_over":
                if self.long_match:
                    self._send(self.seat, {"type": "new_match"}, body["version"])
                    return
                self.code, self.seat = self._new_table(), 1
                self.extra_gets += 1
                continue
            if not view["legal"]:
                self.seat = view["to_act"] or (self.seat % 4 + 1)
                self.extra_gets += 1
                continue
            event = self.rng.choice(view["legal"])
            self._send(self.seat, event, body["version"])
            return
        raise RuntimeError("no seat could act in 20 looks")

    def _send(self, seat: int, event: dict, version: int) -> None:
        command_id = uuid.uuid4().hex
        message = {k: v for k, v in event.items() if k not in ("type", "seat")}
        message.update(
            type="action",
            action=event["type"],
            expected_version=version,
            command_id=command_id,
        )
        self.sockets[seat - 1].send(json.dumps(message))
        with self.changed:
            if not self.changed.wait_for(lambda: command_id in self.answers, timeout=30):
                raise RuntimeError("no answer on the socket")
            frame = self.answers.pop(command_id)
        self.moves += 1
        if frame["status"] >= 500:
            self.server_errors += 1
        if frame["status"] != 200:
            self.errors += 1
            if frame["body"].get("code") == "stale_version":
                self.mismatches += 1
            return
        answer = frame["body"]
        self._keep(seat, answer)
        self.seen = max(self.seen, answer["version"])
        self.seat = seat_after(answer["view"], seat)


def run_split(groups: list[list[TableDriver]], total: int, work) -> None:
    """``total`` calls of ``work(driver)``: one thread per group, each going round its
    group's tables."""
    counts = [total // len(groups) + (i < total % len(groups)) for i in range(len(groups))]

    def loop(group, count):
        for i in range(count):
            work(group[i % len(group)])

    threads = [
        threading.Thread(target=loop, args=(g, c)) for g, c in zip(groups, counts, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _act(driver: TableDriver) -> None:
    driver.act()  # the driver's own (a socket driver moves over its sockets)


def in_groups(drivers: list[TableDriver], threads: int) -> list[list[TableDriver]]:
    threads = min(threads, len(drivers))
    return [drivers[i::threads] for i in range(threads)]


def measure_cpu(
    processes, drivers, actions: int, gets: int, threads: int = 4, rounds: int = 4
) -> dict:
    """CPU per action and per trivial GET, in ``rounds`` alternating batches of each, so
    that a change in the machine's load lands on both alike."""
    return measure_modes(processes, {"cpu": drivers}, actions, gets, threads, rounds)["cpu"]


def measure_modes(
    processes,
    modes: dict[str, list[TableDriver]],
    actions: int,
    gets: int,
    threads: int = 4,
    rounds: int = 4,
) -> dict[str, dict]:
    """``measure_cpu`` for several kinds of driver (no key, keys, keys + sockets) in one
    run: each round plays a batch of each kind, each batch followed by its batch of
    trivial GETs, the kinds' order turning from round to round. A change in the
    machine's load lands on every figure alike, so they compare with each other as well
    as with the trivial GET (``actions`` and ``gets`` are per kind)."""
    groups = {name: in_groups(drivers, threads) for name, drivers in modes.items()}
    for name, drivers in modes.items():  # warm up
        run_split(groups[name], max(len(drivers), actions // 10), _act)
        run_split(groups[name], max(len(groups[name]), gets // 10), TableDriver.trivial_get)
    extra_before = {name: sum(d.extra_gets for d in drivers) for name, drivers in modes.items()}
    load = load_average()
    action_cpu = dict.fromkeys(modes, 0.0)
    get_cpu = dict.fromkeys(modes, 0.0)
    per_round: dict[str, list[float]] = {name: [] for name in modes}
    names = list(modes)
    for index in range(rounds):
        batch_actions = actions // rounds + (index < actions % rounds)
        batch_gets = gets // rounds + (index < gets % rounds)
        turn = index % len(names)
        for name in names[turn:] + names[:turn]:
            started = cpu_seconds(processes)
            run_split(groups[name], batch_actions, _act)
            middle = cpu_seconds(processes)
            run_split(groups[name], batch_gets, TableDriver.trivial_get)
            ended = cpu_seconds(processes)
            action_cpu[name] += middle - started
            get_cpu[name] += ended - middle
            if ended > middle:
                ratio = ((middle - started) / batch_actions) / ((ended - middle) / batch_gets)
                per_round[name].append(round(ratio, 2))
    out = {}
    for name, drivers in modes.items():
        per_action, per_get = action_cpu[name] / actions, get_cpu[name] / gets
        out[name] = {
            "tables": len(drivers),
            "actions": actions,
            "extra_seat_views": sum(d.extra_gets for d in drivers) - extra_before[name],
            "trivial_gets": gets,
            "server_cpu_ms_per_action": round(per_action * 1000, 3),
            "server_cpu_ms_per_trivial_get": round(per_get * 1000, 3),
            "action_cpu_vs_trivial_get": round(per_action / per_get, 2),
            "ratio_per_round": per_round[name],
            "ratio_median": median(per_round[name]) if per_round[name] else None,
            "load_average": load,
            "load_average_after": load_average(),
        }
    return out


def open_loop(drivers, rate: float, seconds: float) -> dict:
    """Actions scheduled at ``rate``/s round-robin over the tables; latency from the schedule."""
    count = int(rate * seconds)
    client: list[float] = []
    server: list[float] = []
    dropped = [0]
    lock = threading.Lock()

    def job(driver, scheduled):
        with driver.lock:
            if time.monotonic() > give_up:  # far behind schedule: stop, bounded run
                with lock:
                    dropped[0] += 1
                return
            before = driver.server_ms
            driver.act()
            inside = driver.server_ms - before
        done = time.monotonic() - scheduled
        with lock:
            client.append(done * 1000)
            server.append(inside)

    load = load_average()
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
        "tables": len(drivers),
        "rate_per_second": rate,
        "scheduled": count,
        "answered": len(client),
        "dropped_behind_schedule": dropped[0],
        "achieved_per_second": round(len(client) / elapsed, 1),
        **{f"server_p{q}_ms": round(quantile(server, q / 100), 1) for q in (50, 90, 99)},
        "server_max_ms": round(max(server, default=float("nan")), 1),
        **{f"client_p{q}_ms": round(quantile(client, q / 100), 1) for q in (50, 90, 99)},
        "load_average": load,
    }


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def per_table_count(
    processes, urls, token, counts, actions, gets, seed, sockets: bool = False
) -> list[dict]:
    """CPU per action with the same number of actions spread over each count of tables
    (``sockets``: moves over the seats' sockets, four per table, every push read)."""
    out = []
    for count in counts:
        drivers: list[TableDriver]
        if sockets:
            drivers = [SocketTableDriver(urls, token, 50_000 + i, seed) for i in range(count)]
        else:
            drivers = [TableDriver(urls, token, 10_000 + i, seed) for i in range(count)]
        result = measure_cpu(processes, drivers, max(actions, count), gets)
        idle = idle_cpu(processes, 4 * count) if sockets else {}
        for driver in drivers:
            driver.close_sockets()
        out.append(
            {
                **{
                    k: result[k]
                    for k in (
                        "tables",
                        "server_cpu_ms_per_action",
                        "action_cpu_vs_trivial_get",
                        "load_average",
                    )
                },
                **idle,
            }
        )
    return out


def idle_cpu(processes, sockets: int, seconds: float = 6.0) -> dict:
    """The server's CPU while the tables' sockets stay open and nothing is played: what
    their pings cost (lease renewals, token looks: ``server.sockets.pings``), apart
    from the moves."""
    time.sleep(1.0)  # the last moves' pushes are read
    started = cpu_seconds(processes)
    time.sleep(seconds)
    per_second = (cpu_seconds(processes) - started) / seconds * 1000
    return {
        "idle_sockets": sockets,
        "idle_cpu_ms_per_second": round(per_second, 2),
    }


def match_length(processes, urls, token, args) -> dict:
    """One table played over its sockets for ``--long-moves`` moves, a finished match
    followed by ``new_match`` at the same table (its log keeps growing): the server's
    CPU per move in windows of 100 moves, first and last, and by quarter."""
    driver = SocketTableDriver(urls, token, 60_000, args.seed, long_match=True)
    window = 100
    windows: list[float] = []
    load = load_average()
    try:
        for _ in range(args.long_moves // window):
            started = cpu_seconds(processes)
            for _ in range(window):
                driver.act()
            windows.append((cpu_seconds(processes) - started) / window * 1000)
        version = driver.seen
    finally:
        driver.close_sockets()
    quarter = max(1, len(windows) // 4)
    starts = range(0, quarter * 4, quarter) if len(windows) >= 4 else range(len(windows))
    return {
        "moves": len(windows) * window,
        "log_events_at_end": version,
        "cpu_ms_per_move_first_100": round(windows[0], 3),
        "cpu_ms_per_move_last_100": round(windows[-1], 3),
        "cpu_ms_per_move_by_quarter": [
            round(sum(windows[i : i + quarter]) / len(windows[i : i + quarter]), 3) for i in starts
        ],
        "non_200_answers": driver.errors,
        "load_average": load,
        "load_average_after": load_average(),
    }


def fsync_cost(args) -> dict:
    """What the durable commit's fsync costs a move: the same socket moves on a server
    with ``DEKABES_SQLITE_SYNCHRONOUS=FULL`` (the default: WAL synced at every commit)
    and one with ``NORMAL`` (synced at checkpoints only), one table, one move at a time:
    server CPU and wall time per move."""
    out: dict[str, dict] = {"load_average": load_average()}  # type: ignore[dict-item]
    for mode in ("FULL", "NORMAL"):
        with tempfile.TemporaryDirectory(prefix="dekabes-bench-") as tmp:
            os.environ["DEKABES_SQLITE_SYNCHRONOUS"] = mode
            try:
                processes, urls = start_server(Path(tmp))
            finally:
                os.environ.pop("DEKABES_SQLITE_SYNCHRONOUS", None)
            try:
                token = register(urls[0])
                driver = SocketTableDriver(urls, token, 70_000, args.seed)
                for _ in range(50):  # warm up
                    driver.act()
                started, wall = cpu_seconds(processes), time.perf_counter()
                for _ in range(args.fsync_moves):
                    driver.act()
                cpu = cpu_seconds(processes) - started
                elapsed = time.perf_counter() - wall
                driver.close_sockets()
            finally:
                stop(processes)
        out[mode] = {
            "moves": args.fsync_moves,
            "server_cpu_ms_per_move": round(cpu / args.fsync_moves * 1000, 3),
            "wall_ms_per_move": round(elapsed / args.fsync_moves * 1000, 3),
        }
    out["fsync_wall_ms_per_move"] = round(
        out["FULL"]["wall_ms_per_move"] - out["NORMAL"]["wall_ms_per_move"], 3
    )
    out["fsync_cpu_ms_per_move"] = round(
        out["FULL"]["server_cpu_ms_per_move"] - out["NORMAL"]["server_cpu_ms_per_move"], 3
    )
    return out


def closed_loop(drivers, seconds: float, processes=()) -> dict:
    """As many actions as the server answers in ``seconds`` (one client thread per table);
    with ``processes``, also the servers' CPU and this client's per action: on a machine
    whose cores the client shares, its own CPU bounds the figure too."""
    done = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def loop(driver):
        while time.monotonic() < deadline:
            driver.act()
            with lock:
                done[0] += 1

    load = load_average()
    server_before, client_before = cpu_seconds(processes), client_cpu_seconds()
    started = time.monotonic()
    threads = [threading.Thread(target=loop, args=(d,)) for d in drivers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out = {
        "actions": done[0],
        "actions_per_second": round(done[0] / (time.monotonic() - started), 1),
        "load_average": load,
    }
    if processes and done[0]:
        server = cpu_seconds(processes) - server_before
        out["server_cpu_ms_per_action"] = round(server / done[0] * 1000, 3)
        out["client_cpu_ms_per_action"] = round(
            (client_cpu_seconds() - client_before) / done[0] * 1000, 3
        )
    return out


def client_cpu_seconds() -> float:
    """This bench process's own CPU time (every thread), user + system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- cold tables (child process with Django) --------------------------------------------------
def synthetic_log(events: int, seed: int) -> list[dict]:
    """A legal log of ``events`` events: random play, undo/redo now and then, a new match
    after each one ends (the owner's table commands)."""
    from engine import Match, deal_event

    rng = random.Random(seed)
    m = Match()
    log = [
        {"type": "match_started", "seats": {str(n): "human" for n in (1, 2, 3, 4)}, "rated": False}
    ]
    m.apply(log[0])
    while len(log) < events:
        roll = rng.random()
        if m.phase == "match_over":
            event = {"type": "new_match", "seat": 1}
        elif m.needs_deal():
            event = deal_event(rng)
        elif roll < 0.03 and m.can_undo():
            event = {"type": "undo", "seat": 1}
        elif roll < 0.05 and m.can_redo():
            event = {"type": "redo", "seat": 1}
        elif m.phase == "accept":
            event = rng.choice([e for s in (1, 2, 3, 4) for e in m.legal_events(s)])
        else:
            event = rng.choice([e for s in (1, 2, 3, 4) for e in m.legal_events(s)])
        m.apply(event)
        log.append(event)
    return log


def cold_child(sizes: list[int], repeats: int) -> dict:
    """In a Django process: tables with logs of each size; the time to fold each one cold."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    import django

    django.setup()
    from server.accounts.models import User
    from server.tables import projection
    from server.tables.models import Event, Seat, Table

    owner = User.objects.create(username=f"cold{uuid.uuid4().hex[:12]}")
    out = {}
    for size in sizes:
        table = Table.objects.create(
            code=uuid.uuid4().hex[:10].upper(), owner=owner, secret_seed="0"
        )
        Seat.objects.bulk_create(
            Seat(table=table, number=n, kind="human", player=owner) for n in (1, 2, 3, 4)
        )
        log = synthetic_log(size, seed=size)
        rows = [
            Event(table=table, seq=i + 1, type=e["type"], payload=e, actor_kind="server")
            for i, e in enumerate(log)
        ]
        # The worst case a snapshot leaves: it is SNAPSHOT_EVERY - 1 events old.
        behind = min(size, projection.SNAPSHOT_EVERY - 1)
        Event.objects.bulk_create(rows[: size - behind])
        projection.forget()
        projection.project(table)  # writes the snapshot (if the log is long enough)
        Event.objects.bulk_create(rows[size - behind :])

        out[str(size)] = {
            "events_after_snapshot": behind,
            "from_snapshot": _time_cold(projection, table, size, repeats),
        }
        real_from_snapshot, every = projection._from_snapshot, projection.SNAPSHOT_EVERY
        projection._from_snapshot = lambda *args: None  # as if none had been written
        projection.SNAPSHOT_EVERY = 10**9  # and none written during the measurement
        try:
            out[str(size)]["no_snapshot"] = _time_cold(projection, table, size, repeats)
        finally:
            projection._from_snapshot, projection.SNAPSHOT_EVERY = real_from_snapshot, every
    return out


def _time_cold(projection, table, size: int, repeats: int) -> dict:
    cpu, wall = [], []
    for _ in range(repeats):
        projection.forget()
        started, started_cpu = time.perf_counter(), time.thread_time()
        state = projection.project(table)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
        assert state.version == size
    return {"cpu_ms_median": round(median(cpu), 2), "wall_ms_median": round(median(wall), 2)}


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def cold_tables(workdir: Path, sizes: list[int], repeats: int, scale_out: bool) -> dict:
    env = server_env(workdir, scale_out)
    load = load_average()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.server_actions",
            "--cold-child",
            ",".join(map(str, sizes)),
            "--cold-repeats",
            str(repeats),
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return {"load_average": load, "events": json.loads(result.stdout)}


# -- the peer (boardgame.io, ../shared/bench/boardgameio) ------------------------------------------
PEER_DIRS = (ROOT.parent / "shared/bench/boardgameio", ROOT.parents[1] / "shared/bench/boardgameio")
PEER_RUNS = (("memory", 1), ("flatfile", 20))  # its in-memory store; its default file store


def run_peer(args) -> dict:
    """The peer harness, in this run: its server CPU per move with its in-memory store
    (1 match) and its file store (20 matches), 2,000 moves each (its README). Needs its
    node_modules (``npm ci`` in its folder, or a copy of it named by ``--peer-dir``)."""
    found = [Path(args.peer_dir)] if args.peer_dir else [d for d in PEER_DIRS if d.is_dir()]
    folder = next((d for d in found if (d / "node_modules").is_dir()), None)
    if folder is None:
        return {"error": f"no peer harness with node_modules in {[str(d) for d in found]}"}
    runs: dict[str, dict] = {}
    for storage, matches in PEER_RUNS:
        out = subprocess.run(
            ["node", "bench.js", "--moves", str(args.peer_moves), "--matches", str(matches),
             "--storage", storage],
            cwd=folder, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        line = (out.stdout.strip().splitlines() or [""])[-1]
        try:
            result = json.loads(line)
        except ValueError:
            runs[storage] = {"error": (out.stderr or out.stdout)[-300:]}
            continue
        runs[storage] = {
            "matches": matches,
            "cpu_ms_per_move": result.get("cpu_ms_per_move"),
            "cpu_ms_per_move_by_quarter": result.get("cpu_ms_per_move_by_quarter"),
            "moves_per_s": result.get("moves_per_s"),
        }
    return {
        "harness": str(folder),
        "runs": runs,
        "ms_per_move": {k: v.get("cpu_ms_per_move") for k, v in runs.items()},
        "load_average": load_average(),
    }


# -- the runs ---------------------------------------------------------------------------------
def embedded_run(args) -> dict:
    with tempfile.TemporaryDirectory(prefix="dekabes-bench-") as tmp:
        processes, urls = start_server(Path(tmp))
        try:
            token = register(urls[0])
            drivers = [
                TableDriver(urls, token, i, args.seed)
                for i in range(max(args.tables, args.cpu_tables))
            ]
            # as is; an Idempotency-Key on every action; and also the four seats of every
            # table on WebSockets (desktop clients), each push read: measured together,
            # round by round (measure_modes)
            keyed = [
                TableDriver(urls, token, 20_000 + i, args.seed, keys=True)
                for i in range(args.cpu_tables)
            ]
            rest_socketed = [
                TableDriver(urls, token, 30_000 + i, args.seed, keys=True, sockets=True)
                for i in range(args.cpu_tables)
            ]
            socketed: list[TableDriver] = [
                SocketTableDriver(urls, token, 40_000 + i, args.seed)
                for i in range(args.cpu_tables)
            ]
            modes = {"cpu": drivers[: args.cpu_tables], "cpu_keys": keyed}
            modes["cpu_rest_sockets"] = rest_socketed
            modes["cpu_sockets"] = socketed
            measured = measure_modes(processes, modes, args.actions, args.gets, rounds=args.rounds)
            cpu, cpu_keys, cpu_rest_sockets, cpu_sockets = (measured[k] for k in modes)
            cpu_rest_sockets["pushes_received"] = sum(d.pushes for d in rest_socketed)
            cpu_sockets["pushes_received"] = sum(d.pushes for d in socketed)
            cpu_sockets["moves_over_socket"] = sum(getattr(d, "moves", 0) for d in socketed)
            for driver in rest_socketed + socketed:
                driver.close_sockets()
            drivers += keyed + rest_socketed + socketed
            extras: dict[str, object] = {}
            if args.socket_extras or not args.quick:
                extras["match_length"] = match_length(processes, urls, token, args)
                extras["socket_tables"] = per_table_count(
                    processes, urls, token, args.table_counts, args.actions, args.gets // 2,
                    args.seed, sockets=True,
                )  # fmt: skip
            if args.quick:
                loop = tables = None
            else:
                loop = open_loop(drivers[: args.tables], args.rate, args.seconds)
                tables = per_table_count(
                    processes,
                    urls,
                    token,
                    args.table_counts,
                    args.actions,
                    args.gets // 2,
                    args.seed,
                )
            server_errors = sum(d.server_errors for d in drivers)
        finally:
            stop(processes)
        peer = run_peer(args) if args.peer else None
        floor = socket_floor.floor(args.floor_moves) if args.floor else None
        cold = (
            cold_tables(Path(tmp), args.cold_events, args.cold_repeats, scale_out=False)
            if args.cold_events and not args.quick
            else None
        )
        fsync = fsync_cost(args) if args.socket_extras or not args.quick else None
    return {
        "store": "sqlite+in-memory",
        "workers": 1,
        "cpu": cpu,
        "cpu_keys": cpu_keys,
        "cpu_rest_sockets": cpu_rest_sockets,
        "cpu_sockets": cpu_sockets,
        "summary": {
            "ms_per_action": cpu["server_cpu_ms_per_action"],
            "vs_trivial_get": cpu["action_cpu_vs_trivial_get"],
            "ms_per_action_keys": cpu_keys["server_cpu_ms_per_action"],
            "vs_trivial_get_keys": cpu_keys["action_cpu_vs_trivial_get"],
            "ms_per_action_rest_4_sockets": cpu_rest_sockets["server_cpu_ms_per_action"],
            "ms_per_move_over_socket": cpu_sockets["server_cpu_ms_per_action"],
            "vs_trivial_get_over_socket": cpu_sockets["action_cpu_vs_trivial_get"],
            "goals": "keys <= 2.5x a trivial GET; a move over the socket <= the peer's "
            "file store (stretch: <= 1.5x its in-memory store)",
            **({"peer_ms_per_move": peer["ms_per_move"]} if peer else {}),
            **({"floor_ms_per_move": floor} if floor else {}),
        },
        "peer": peer,
        "floor": floor,
        **extras,
        "fsync": fsync,
        "open_loop": loop,
        "tables": tables,
        "cold_table": cold,
        "server_errors_5xx": server_errors,
        "non_200_answers": sum(d.errors for d in drivers),
    }


def scale_out_run(args) -> dict:
    if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise SystemExit("--scale-out needs DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)")
    runs: dict[str, dict] = {}
    for workers in sorted({1, args.workers}):
        with tempfile.TemporaryDirectory(prefix="dekabes-bench-") as tmp:
            processes, urls = start_server(Path(tmp), workers, scale_out=True, shared=False)
            try:
                token = register(urls[0])
                drivers = [TableDriver(urls, token, i, args.seed) for i in range(args.tables)]
                cpu = measure_cpu(processes, drivers[: args.cpu_tables], args.actions, args.gets)
                throughput = closed_loop(drivers, args.seconds, processes)
                # the same over the seats' sockets (seat n on process n): every push read
                socketed: list[TableDriver] = [
                    SocketTableDriver(urls, token, 80_000 + i, args.seed)
                    for i in range(args.tables)
                ]
                socket_cpu = measure_cpu(
                    processes, socketed[: args.cpu_tables], args.actions, args.gets
                )
                socket_throughput = closed_loop(socketed, args.seconds, processes)
                for driver in socketed:
                    driver.close_sockets()
                drivers += socketed
                extras: dict[str, object] = {}
                if args.socket_extras:  # flatness, on every process count measured
                    extras["match_length"] = match_length(processes, urls, token, args)
                    extras["socket_tables"] = per_table_count(
                        processes, urls, token, args.table_counts, args.actions, args.gets // 2,
                        args.seed, sockets=True,
                    )  # fmt: skip
            finally:
                stop(processes)
        runs[str(workers)] = {
            **extras,
            "cpu": cpu,
            "closed_loop": throughput,
            "socket_cpu": socket_cpu,
            "socket_closed_loop": socket_throughput,
            "server_errors_5xx": sum(d.server_errors for d in drivers),
            "version_mismatches": sum(d.mismatches for d in drivers),
            "non_200_answers": sum(d.errors for d in drivers),
        }
    one, many = runs["1"], runs[str(args.workers)]
    return {
        "store": "postgresql+redis",
        "requests": "each table's requests alternate between the processes",
        "runs": runs,
        "speedup": round(
            many["closed_loop"]["actions_per_second"] / one["closed_loop"]["actions_per_second"], 2
        ),
        "socket_speedup": round(
            many["socket_closed_loop"]["actions_per_second"]
            / one["socket_closed_loop"]["actions_per_second"],
            2,
        ),
        "socket_vs_rest_throughput": {
            w: round(
                r["socket_closed_loop"]["actions_per_second"]
                / r["closed_loop"]["actions_per_second"],
                2,
            )
            for w, r in runs.items()
        },
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=20, help="tables in the open-loop run")
    parser.add_argument(
        "--cpu-tables",
        type=int,
        default=4,
        help="tables (one client thread each) during the CPU measurement",
    )
    parser.add_argument("--actions", type=int, default=600, help="actions in the CPU measurement")
    parser.add_argument(
        "--gets", type=int, default=1200, help="trivial GETs in the CPU measurement"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=8,
        help="alternating batches the CPU figures are measured in (each kind, then GETs)",
    )
    parser.add_argument("--rate", type=float, default=100.0, help="open-loop actions per second")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="open-loop (scale-out: closed-loop) duration"
    )
    parser.add_argument(
        "--table-counts",
        type=_ints,
        default=[1, 20, 200],
        help="tables the per-table cost is measured at",
    )
    parser.add_argument(
        "--cold-events",
        type=_ints,
        default=[50, 500, 5000],
        help="log lengths of the cold-table measurement",
    )
    parser.add_argument("--cold-repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--workers", type=int, default=2, help="--scale-out: processes compared with one"
    )
    parser.add_argument(
        "--scale-out",
        action="store_true",
        help="1 vs --workers processes on DATABASE_URL and REDIS_URL (PostgreSQL + Redis)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="only the CPU figures (keyless, keys, keys + sockets): no open loop, "
        "table counts or cold tables",
    )
    parser.add_argument(
        "--peer",
        action="store_true",
        help="also run the peer harness (boardgame.io, ../shared/bench/boardgameio) in this run",
    )
    parser.add_argument("--peer-dir", help="the peer harness with its node_modules installed")
    parser.add_argument("--peer-moves", type=int, default=2000)
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also the bare stack's cost of a socket move in this run (bench.socket_floor: "
        "Daphne + Channels with no game, with and without the durable commit)",
    )
    parser.add_argument("--floor-moves", type=int, default=2000)
    parser.add_argument(
        "--socket-extras",
        action="store_true",
        help="with --quick: also the socket moves' flatness with match length and with the "
        "number of tables, and the fsync's cost (a full run has them); with --scale-out: "
        "the same flatness for each process count",
    )
    parser.add_argument(
        "--long-moves", type=int, default=2000, help="moves of the match-length run"
    )
    parser.add_argument("--fsync-moves", type=int, default=400, help="moves of each fsync-cost run")
    parser.add_argument("--cold-child", type=_ints, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.cold_child is not None:
        print(json.dumps(cold_child(args.cold_child, args.cold_repeats)))
        return 0
    report = scale_out_run(args) if args.scale_out else embedded_run(args)
    report["note"] = "compare ratios within one run: absolute ms follow the machine's load"
    if "summary" in report:
        print(" ".join(f"{k}={v}" for k, v in report["summary"].items()), file=sys.stderr)
        print(summary_table(report), file=sys.stderr)
    print(json.dumps(report))
    return 0


def summary_table(report: dict) -> str:
    """The CPU figures side by side, as read by a person (stderr)."""
    rows = [
        ("GET seat + POST action, no key", report["cpu"], ""),
        ("with an Idempotency-Key", report["cpu_keys"], "goal <= 2.5x"),
        ("with a key, 4 seats on WebSockets", report["cpu_rest_sockets"], ""),
        ("moves over the 4 seats' WebSockets", report["cpu_sockets"], "goal <= peer file"),
    ]
    lines = [
        "server CPU per game action (measured round by round in one run; load average "
        f"{report['cpu']['load_average']} -> {report['cpu'].get('load_average_after')}):"
    ]
    for label, figures, goal in rows:
        lines.append(
            f"  {label:36} {figures['server_cpu_ms_per_action']:7.3f} ms"
            f"  {figures['action_cpu_vs_trivial_get']:5.2f}x a trivial GET"
            f" ({figures['server_cpu_ms_per_trivial_get']:.3f} ms)"
            f"  median of rounds {figures.get('ratio_median')}x  {goal}"
        )
    peer = report.get("peer") or {}
    for storage, ms in (peer.get("ms_per_move") or {}).items():
        lines.append(f"  peer (boardgame.io), {storage} store{'':15} {ms} ms per move")
    floor = report.get("floor") or {}
    if floor:
        lines.append(
            f"  floor: Daphne + Channels, no game{'':5} {floor['transport_ms_per_move']} ms per"
            f" move, with the durable commit {floor['transport_and_commit_ms_per_move']} ms"
        )
    return "\n".join(lines)


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


if __name__ == "__main__":
    sys.exit(main())
