"""Spectators of one table: ``python -m bench.spectators --spectators 200``.

Starts one Daphne process (a fresh SQLite database, the in-memory channel layer), two
tables whose four seats one account holds, marked watchable, and ``--spectators``
WebSockets on one of them, ``/ws/tables/{code}/spectate`` (one spectator account; the
per-account socket cap is raised for the run). Then ``--actions`` seat actions there:
each is sent once every spectator has the previous version, and the time from the
action's request leaving to each spectator's frame arriving is recorded (one reader
thread selects over all the sockets: the receipt time is the moment the frame is
readable). These times are measured by the client on the same host, so they bound
the server-side delivery from above.

Server-side delivery (``server_delivery_ms_*``, the issue's figure): the server runs as
``bench.timed_asgi:application`` with ``DEKABES_BENCH_SPECTATOR_TIMES=1``, which records
the moment each action's commit is announced (in the committing thread) and the moment
each spectator socket's frame of that version has been handed to its transport; the
bench reads those delays from the server (``GET /__bench/spectator-times``) after the
measured actions. The client's figures (``delivery_ms_*``) stay beside them.

CPU: the server process's CPU time per action (its view GETs and its POST, plus
everything the server does for the spectators) at a second table nobody watches and at
the watched one, one action at each in turn (``action_cpu_ms_*``), and the same split by
thread: the request threads (the action itself, and its version's one frame build) and
the event loop's thread (parsing the requests, and writing one frame per spectator
socket: the fan-out). From ``/proc`` clock ticks (10 ms), summed over the actions.

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import statistics
import sys
import tempfile
import time
from pathlib import Path

import requests
import websocket

from bench.server_actions import (
    CLOCK_TICKS,
    load_average,
    quantile,
    register,
    start_server,
    stop,
)


def ws_url(url: str, code: str) -> str:
    return url.replace("http://", "ws://") + f"/ws/tables/{code}/spectate"


class Table:
    def __init__(self, url: str, token: str):
        self.url = url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        body = {"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]}
        answer = self.session.post(url + "/api/tables", json=body)
        answer.raise_for_status()
        self.code = answer.json()["code"]
        self.session.post(
            url + f"/api/tables/{self.code}/watchable", json={"watchable": True}
        ).raise_for_status()
        self.version = answer.json()["version"]

    def act(self) -> tuple[float, int]:
        """One legal action (the first legal event of the seat to act): (sent at, version)."""
        for seat in (1, 2, 3, 4):
            view = self.session.get(self.url + f"/api/tables/{self.code}/seats/{seat}").json()
            if view["view"]["phase"] == "match_over":
                raise RuntimeError("the match ended: use fewer actions")
            legal = view["view"]["legal"]
            if legal:
                event = {k: v for k, v in legal[0].items() if k != "seat"}
                body = {**event, "expected_version": view["version"]}
                sent = time.monotonic()
                answer = self.session.post(
                    self.url + f"/api/tables/{self.code}/seats/{seat}/actions", json=body
                )
                answer.raise_for_status()
                self.version = answer.json()["version"]
                return sent, self.version
        raise RuntimeError("nobody can act")


class Spectators:
    def __init__(self, url: str, token: str, code: str, count: int):
        self.selector = selectors.DefaultSelector()
        self.sockets = []
        self.newest: dict[int, int] = {}
        for index in range(count):
            sock = websocket.create_connection(
                ws_url(url, code),
                header=[f"Authorization: Token {token}"],
                timeout=30,
                skip_utf8_validation=True,  # as the SDK: the check costs 1.2 ms a push
            )
            self.sockets.append(sock)
            self.newest[index] = 0
            assert sock.sock is not None
            self.selector.register(sock.sock, selectors.EVENT_READ, index)

    def wait_for(self, version: int, deadline: float) -> list[float]:
        """Receipt times of the frame carrying ``version`` (or newer), one per socket."""
        got: dict[int, float] = {}
        for index, newest in self.newest.items():
            if newest >= version:
                got[index] = 0.0
        while len(got) < len(self.sockets):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError(f"{len(self.sockets) - len(got)} spectators missed {version}")
            for key, _ in self.selector.select(timeout=remaining):
                at = time.monotonic()
                index = key.data
                sock = self.sockets[index]
                # websocket-client reads exactly one frame's bytes: nothing stays buffered.
                # A ping (Daphne's, every 20 s) is answered and returned: recv() would
                # answer it, then block on this socket until its next text frame while
                # the others' pings go unanswered and Daphne drops them.
                opcode, payload = sock.recv_data(control_frame=True)
                if opcode != websocket.ABNF.OPCODE_TEXT:
                    continue
                message = json.loads(payload)
                if message.get("type") == "view":
                    self.newest[index] = max(self.newest[index], message["version"])
                    if message["version"] >= version and index not in got:
                        got[index] = at
        return list(got.values())

    def close(self) -> None:
        for sock in self.sockets:
            try:
                sock.close()
            except Exception:
                pass


def server_delays(url: str) -> list[float]:
    """The server-side delays recorded since the last call (and forget them)."""
    answer = requests.get(url + "/__bench/spectator-times", timeout=30)
    answer.raise_for_status()
    return answer.json()["delivery_ms"]


def cpu_split(processes) -> tuple[float, float]:
    """CPU seconds of the server's event-loop thread (its main thread: Daphne's loop,
    which also writes to the sockets) and of all its other threads (the requests')."""
    loop = other = 0
    for process in processes:
        for task in Path(f"/proc/{process.pid}/task").iterdir():
            try:
                text = (task / "stat").read_text()
            except OSError:  # a thread that ended meanwhile
                continue
            fields = text.rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])  # utime, stime
            if int(task.name) == process.pid:
                loop += ticks
            else:
                other += ticks
    return loop / CLOCK_TICKS, other / CLOCK_TICKS


def _add(total: list[float], before: tuple[float, float], after: tuple[float, float]) -> None:
    total[0] += after[0] - before[0]
    total[1] += after[1] - before[1]


def _ms(seconds: float, actions: int) -> float:
    return round(seconds * 1000 / actions, 2)


def run(args) -> dict:
    os.environ["DEKABES_MAX_SOCKETS"] = str(args.spectators + 16)
    os.environ["DEKABES_BENCH_SPECTATOR_TIMES"] = "1"  # bench.timed_asgi's timer
    with tempfile.TemporaryDirectory() as workdir:
        processes, urls = start_server(Path(workdir))
        url = urls[0]
        spectators = None
        try:
            owner, watcher = register(url), register(url)
            quiet = Table(url, owner)  # nobody watches it
            table = Table(url, owner)
            quiet.act()  # warm up
            table.act()
            spectators = Spectators(url, watcher, table.code, args.spectators)
            spectators.wait_for(table.version, time.monotonic() + 60)
            server_delays(url)  # the frames sent on connect are no change's delivery
            latencies: list[float] = []
            cpu = {"quiet": [0.0, 0.0], "watched": [0.0, 0.0]}  # [loop, other threads]
            started = time.monotonic()
            for _ in range(args.actions):  # alternating: one action at each table
                before = cpu_split(processes)
                quiet.act()
                _add(cpu["quiet"], before, cpu_split(processes))
                before = cpu_split(processes)
                sent, version = table.act()
                received = spectators.wait_for(version, time.monotonic() + 30)
                _add(cpu["watched"], before, cpu_split(processes))
                latencies += [(at - sent) * 1000 for at in received if at]
            wall = time.monotonic() - started
            server = server_delays(url)
        finally:
            if spectators is not None:
                spectators.close()
            stop(processes)
    return {
        "bench": "spectators",
        "spectators": args.spectators,
        "actions": args.actions,
        "deliveries": len(latencies),
        "server_deliveries": len(server),
        "server_delivery_ms_p50": round(statistics.median(server), 1),
        "server_delivery_ms_p99": round(quantile(server, 0.99), 1),
        "server_delivery_ms_max": round(max(server), 1),
        "goal_p99_ms": 250,  # server-side
        # client-side (the frame readable at the client, from the request leaving)
        "delivery_ms_p50": round(statistics.median(latencies), 1),
        "delivery_ms_p99": round(quantile(latencies, 0.99), 1),
        "delivery_ms_max": round(max(latencies), 1),
        "action_cpu_ms_0_spectators": _ms(sum(cpu["quiet"]), args.actions),
        f"action_cpu_ms_{args.spectators}_spectators": _ms(sum(cpu["watched"]), args.actions),
        "fan_out_cpu_us_per_spectator": round(
            (sum(cpu["watched"]) - sum(cpu["quiet"]))
            * 1e6
            / args.actions
            / max(1, args.spectators),
            1,
        ),
        # the same split by thread: the request threads run the action itself (and the
        # one frame build of its version); the event loop's thread parses the requests
        # and writes the frames to the sockets (the fan-out)
        "request_threads_cpu_ms_0_spectators": _ms(cpu["quiet"][1], args.actions),
        f"request_threads_cpu_ms_{args.spectators}_spectators": _ms(
            cpu["watched"][1], args.actions
        ),
        "loop_thread_cpu_ms_0_spectators": _ms(cpu["quiet"][0], args.actions),
        f"loop_thread_cpu_ms_{args.spectators}_spectators": _ms(cpu["watched"][0], args.actions),
        "wall_s": round(wall, 1),
        "load_average": load_average(),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--actions", type=int, default=30, help="seat actions measured")
    args = parser.parse_args(argv)
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
