"""Frame time and idle cost of the table client: ``python -m bench.table_frames``
(``make bench-table``).

Frames: draws a full board at 1280×800 (a line of 21 tiles snaking across the board, a
hand with a selected tile and its ghosts, every seat box, the toolbar, a toast) the way
the running client does each frame, with SDL's dummy video driver.

Idle: runs the client's real loop (``TableApp.run``) for ``--idle`` seconds on a deal
waiting to be accepted — the player thinking — and reports the process CPU time over
that wall time, as a percentage of one core.

Start: runs ``python -m clients.table --local`` as ``make play`` does (a fresh
database) and reports the seconds to its first frame (``window_s``) and to the deal on
screen (``deal_s``), ``clients.table.startup.measure``.

The seat views come from ``table_views.json`` (recorded from engine folds), so the
benchmark, like the client, needs no engine. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from clients.sdk import SeatState  # noqa: E402
from clients.table.app import TableApp  # noqa: E402
from clients.table.config import Settings  # noqa: E402
from clients.table.connection import NewState, Ready, Update  # noqa: E402

VIEWS = Path(__file__).with_name("table_views.json")


class OfflineConnection:
    """Stands in for the network: the benchmark measures drawing, not the server."""

    status = "online"
    code = "BENCH1"

    def __init__(self):
        self.busy = threading.Event()
        self.updates: queue.Queue[Update] = queue.Queue()

    def poll(self) -> list[Update]:
        out = []
        while not self.updates.empty():
            out.append(self.updates.get())
        return out

    def act(self, seat: int, type: str, version: int | None = None, **fields: Any) -> None:
        pass

    def hint(self, seat: int) -> None:
        pass

    def fetch_events(self, seat: int) -> None:
        pass

    def close(self) -> None:
        pass


def recorded(name: str) -> SeatState:
    data = json.loads(VIEWS.read_text(encoding="utf-8"))[name]
    allowed = (
        ["accept", "pause"] if name == "accept" else ["undo", "restart_hand", "new_match", "pause"]
    )
    return SeatState.from_json(
        {
            "version": 99,
            "seat": data["seat"],
            "paused": False,
            "allowed": allowed,
            "view": data["view"],
            "seats_to_act": data["seats_to_act"],
        },
        code="BENCH1",
        seat=data["seat"],
    )


def app_on(name: str, size: tuple[int, int]) -> tuple[TableApp, SeatState]:
    state = recorded(name)
    connection = OfflineConnection()
    app = TableApp(
        connection, Settings(lang="en", speed="normal", sound=False), size=size, save_settings=False
    )
    app.open_window()
    connection.updates.put(Ready("bench", (state.seat,), None))
    connection.updates.put(NewState(state))
    app.tick([])
    return app, state


def idle_cpu(seconds: float, size: tuple[int, int]) -> dict:
    app, _ = app_on("accept", size)
    assert app.decide().kind == "accept"
    frames = len(app.window.frame_ms)
    cpu, wall = time.process_time(), time.monotonic()
    app.run(seconds=seconds)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    return {
        "idle_s": round(wall, 2),
        "idle_cpu_s": round(cpu, 3),
        "idle_cpu_pct": round(100 * cpu / wall, 2),
        "idle_frames": len(app.window.frame_ms) - frames,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument(
        "--idle",
        type=float,
        default=10.0,
        help="seconds of the real loop waiting for the player (0: skip)",
    )
    parser.add_argument("--screenshot", help="save the last frame here (PNG)")
    parser.add_argument(
        "--start", action=argparse.BooleanOptionalAction, default=True, help="time make play"
    )
    args = parser.parse_args(argv)
    w, _, h = args.size.partition("x")
    size = (int(w), int(h))
    pygame.init()
    app, state = app_on("board", size)
    seat, view = state.seat, state.view
    legal = app.legal_plays(seat)
    if legal:
        app.select(sorted(legal)[0])
    app.toast("Benchmark")
    times = []
    for i in range(args.frames):
        if i % 60 == 0:
            app.toast(f"frame {i}")  # new text now and then, as in play
        started = time.perf_counter()
        app.tick([])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    result = {
        "size": args.size,
        "frames": len(times),
        "line_tiles": len(view["line"]),
        "hand_tiles": len(view["hand"]),
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(times[int(len(times) * 0.99) - 1], 2),
        "max_ms": round(times[-1], 2),
    }
    if args.screenshot and app.window.surface is not None:
        pygame.image.save(app.window.surface, args.screenshot)
    if args.idle > 0:
        result.update(idle_cpu(args.idle, size))
    pygame.quit()
    if args.start:
        from clients.table.startup import measure

        result.update(measure(size=args.size))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
