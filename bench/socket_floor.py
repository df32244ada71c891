"""``python -m bench.socket_floor``: what a move over the seats' sockets costs before any
game rule, view or table is involved: the floor under ``bench.server_actions``'
``cpu_sockets`` figure on the same stack.

A Daphne process serves a bare Channels consumer (this module's ``application``, no
Django project, no database of the server's): a table is four sockets; a frame from one
is answered on it and pushed to the other three, each frame as long as a real seat
answer (``FRAME_BYTES``). With ``commit``, each move first appends one row as long as an
action's log row with its receipt (``ROW_BYTES``) to a SQLite file in WAL mode with
``synchronous=FULL`` (the server's durable commit: one fsync a move), in one writer
thread, as the server's socket actions are.
What is left between these figures and ``cpu_sockets`` is the server's own work: the
action's checks and fold, its log rows, the seats' views.

Measured like the server: the Daphne process's CPU time (``/proc/<pid>/stat``, every
thread) over ``moves`` moves spread over ``tables`` tables, each move awaited by all four
sockets. The server it starts is stopped in a ``finally``.

    .venv/bin/python -m bench.socket_floor --moves 4000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
from pathlib import Path

FRAME_BYTES = 4700  # a seat answer's length in the server's runs
# A keyed action's log row: its payload, key, request hash and receipt (a version since
# receipts stopped storing the answer; 209 B on average in the demo league).
ROW_BYTES = 210
ROOT = Path(__file__).resolve().parents[1]


# -- the server side (imported by Daphne) -----------------------------------------------------
def _application():
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(SECRET_KEY="floor", INSTALLED_APPS=["channels"], CHANNEL_LAYERS={})
        django.setup()
    from channels.generic.websocket import AsyncWebsocketConsumer
    from channels.routing import URLRouter
    from django.urls import path

    tables: dict[str, list] = {}
    frame = '{"type":"view","version":1,"pad":"' + "x" * (FRAME_BYTES - 40) + '"}'
    database = os.environ.get("FLOOR_DATABASE")
    waiting: queue.Queue = queue.Queue()

    def writer() -> None:  # one writer thread, as the server's socket actions
        db = sqlite3.connect(str(database), isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY, tbl TEXT, seq INTEGER,"
            " receipt TEXT, UNIQUE (tbl, seq))"
        )
        seqs: dict[str, int] = {}
        while True:
            loop, done, table = waiting.get()
            seqs[table] = seqs.get(table, 0) + 1
            db.execute("BEGIN IMMEDIATE")
            db.execute(
                "INSERT INTO log (tbl, seq, receipt) VALUES (?, ?, ?)",
                (table, seqs[table], "r" * ROW_BYTES),
            )
            db.execute("COMMIT")
            loop.call_soon_threadsafe(done.set_result, None)

    if database:
        threading.Thread(target=writer, daemon=True).start()

    class Seat(AsyncWebsocketConsumer):
        async def connect(self):
            self.table = self.scope["url_route"]["kwargs"]["code"]
            tables.setdefault(self.table, []).append(self)
            await self.accept()

        async def disconnect(self, code):
            tables.get(self.table, []).remove(self)

        async def receive(self, text_data=None, bytes_data=None):
            if database:
                loop = asyncio.get_running_loop()
                done = loop.create_future()
                waiting.put((loop, done, self.table))
                await done
            for seat in tables[self.table]:
                await seat.send(text_data=frame)

    return URLRouter([path("ws/<code>", Seat.as_asgi())])


def __getattr__(name: str):
    if name == "application":  # built on first use: the driver never imports Channels
        return _application()
    raise AttributeError(name)


# -- the driver -------------------------------------------------------------------------------
def measure(moves: int, tables: int = 4, commit: bool = False) -> dict:
    """Server CPU per move (ms) on the bare stack, with or without the durable commit."""
    import websocket  # websocket-client

    # imported here: bench.server_actions imports this module (--floor)
    from bench.server_actions import cpu_seconds, stop
    from server.run import daphne_command

    with tempfile.TemporaryDirectory(prefix="dekabes-floor-") as tmp:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        env.pop("DJANGO_SETTINGS_MODULE", None)
        if commit:
            env["FLOOR_DATABASE"] = str(Path(tmp) / "floor.sqlite3")
        command = daphne_command(
            port=port, application="bench.socket_floor:application", access_log=False
        )
        server = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        sockets: list[list] = []
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the floor server did not start") from None
                    time.sleep(0.1)
            url = f"ws://127.0.0.1:{port}/ws/"
            sockets = [
                [
                    websocket.create_connection(f"{url}T{t}", timeout=30, skip_utf8_validation=True)
                    for _ in range(4)
                ]
                for t in range(tables)
            ]

            def play(seats: list, count: int) -> None:
                for i in range(count):
                    seats[i % 4].send('{"type":"action","action":"play","tile":[6,6]}')
                    for seat in seats:
                        seat.recv()

            def run(count: int) -> None:
                threads = [threading.Thread(target=play, args=(s, count)) for s in sockets]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()

            run(50)  # warm-up
            per_table = max(1, moves // tables)
            before = cpu_seconds([server])
            run(per_table)
            spent = cpu_seconds([server]) - before
        finally:
            for seats in sockets:
                for seat in seats:
                    seat.close()
            stop([server])
    return {
        "commit": commit,
        "moves": per_table * tables,
        "cpu_ms_per_move": round(spent / (per_table * tables) * 1000, 3),
    }


def floor(moves: int) -> dict:
    """Both figures, alternated twice (the lower of each: the floor on a busy machine)."""
    runs = [measure(moves, commit=c) for c in (False, True, False, True)]
    bare = min(r["cpu_ms_per_move"] for r in runs if not r["commit"])
    durable = min(r["cpu_ms_per_move"] for r in runs if r["commit"])
    return {"transport_ms_per_move": bare, "transport_and_commit_ms_per_move": durable}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4000)
    args = parser.parse_args(argv)
    print(json.dumps(floor(args.moves)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
