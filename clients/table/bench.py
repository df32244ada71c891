"""Frame time of the table client: ``python -m clients.table.bench`` (``make bench-table``).

Draws a full board at 1280×800 (a line of 21 tiles snaking across the board, a hand
with a selected tile and its ghosts, every seat box, the toolbar, a toast) the way
the running client does each frame, with SDL's dummy video driver, and prints one
JSON line: p50/p99/max frame milliseconds over the frames drawn.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import threading
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from clients.sdk import SeatState  # noqa: E402
from clients.table.app import TableApp  # noqa: E402
from clients.table.config import Settings  # noqa: E402
from engine import Match, bots  # noqa: E402


class OfflineConnection:
    """Stands in for the network: the benchmark measures drawing, not the server."""
    status = "online"
    code = "BENCH1"

    def __init__(self):
        self.busy = threading.Event()
        self.updates = queue.Queue()

    def poll(self):
        out = []
        while not self.updates.empty():
            out.append(self.updates.get())
        return out

    def act(self, *args, **kwargs):
        pass

    hint = fetch_events = refresh = close = act


def full_board(seed: int, line_at_least: int = 21) -> tuple[Match, int]:
    """Self-play until the line holds ``line_at_least`` tiles; the seat to act next."""
    import random

    from engine.match import deal_event
    rng = random.Random(seed)
    while True:
        match = Match.from_events([{"type": "match_started",
                                    "seats": {str(n): "human" for n in (1, 2, 3, 4)},
                                    "rated": False}])
        match.apply(deal_event(rng))
        for n in (1, 2, 3, 4):
            match.apply({"type": "accept", "seat": n})
        while match.phase == "play":
            seat = match.to_act
            if len(match.seat_view(seat)["line"]) >= line_at_least and \
                    match.seat_view(seat)["hand"]:
                return match, seat
            match.apply(bots.decide(match.seat_view(seat), "greedy", rng))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--screenshot", help="save the last frame here (PNG)")
    args = parser.parse_args(argv)
    w, _, h = args.size.partition("x")
    pygame.init()
    match, seat = full_board(seed=11)
    connection = OfflineConnection()
    app = TableApp(connection, Settings(lang="en", speed="normal"), size=(int(w), int(h)),
                   save_settings=False)
    app.open_window()
    view = match.seat_view(seat)
    state = SeatState.from_json({"version": 99, "seat": seat, "paused": False,
                                 "allowed": ["undo", "restart_hand", "new_match", "pause"],
                                 "view": view}, code="BENCH1", seat=seat)
    connection.updates.put(("ready", {"username": "bench", "seats": [seat], "table": None}))
    connection.updates.put(("state", state))
    app.tick([])
    legal = app.legal_plays(seat)
    if legal:
        app.select(sorted(legal)[0])
    app.toast("Benchmark")
    times = []
    for i in range(args.frames):
        if i % 60 == 0:
            app.toast(f"frame {i}")                    # new text now and then, as in play
        started = time.perf_counter()
        app.tick([])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    result = {"size": args.size, "frames": len(times), "line_tiles": len(view["line"]),
              "hand_tiles": len(view["hand"]),
              "p50_ms": round(statistics.median(times), 2),
              "p99_ms": round(times[int(len(times) * 0.99) - 1], 2),
              "max_ms": round(times[-1], 2)}
    print(json.dumps(result))
    if args.screenshot:
        pygame.image.save(app.screen_surface, args.screenshot)
    pygame.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
