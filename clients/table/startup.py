"""``make play`` opens its window at once: the embedded server and the computer players
start behind it.

``LocalLink`` is the table's link (a ``connection.TableLink``) while that happens: a
thread runs ``local.start_local`` and reports each step as a ``Starting`` update (the
window draws them, ``render/starting.py``); once the table exists it opens the real
``Connection`` and hands every call on to it, so the deal is drawn as soon as the server
answers. Closing the window meanwhile cancels the start and stops what it started.

``measure`` runs ``python -m clients.table --local`` as ``make play`` does and reports
when its window showed and when the deal did (``make bench-table``).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clients.table.connection import Connection, Starting, Update
from clients.table.local import Cancelled, LocalTable

ROOT = Path(__file__).resolve().parents[2]

Start = Callable[[Callable[[str], None], threading.Event], LocalTable]


class LocalLink:
    """A ``TableLink`` that starts the local table first, then is its ``Connection``."""

    def __init__(self, start: Start, seats: list[int]) -> None:
        self._start = start
        self._seats = seats
        self._updates: queue.Queue[Update] = queue.Queue()
        self._cancelled = threading.Event()
        self._idle = threading.Event()
        self.local: LocalTable | None = None
        self.connection: Connection | None = None
        self._thread = threading.Thread(target=self._run, name="local-start", daemon=True)

    def start(self) -> LocalLink:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            local = self._start(lambda step: self._updates.put(Starting(step)), self._cancelled)
        except Cancelled:
            return
        except Exception as problem:  # told on the start screen; the window stays usable
            self._updates.put(Starting("failed", str(problem).strip().splitlines()[-1][:300]))
            return
        self.local = local
        if self._cancelled.is_set():
            return
        print(f"table {local.code} at {local.url} (logs in var/)", flush=True)
        self.connection = Connection(local.url, local.token, local.code, seats=self._seats)
        self.connection.start()

    # ------------------------------------------------------------------ TableLink
    @property
    def status(self) -> str:
        return self.connection.status if self.connection else "connecting"

    @property
    def code(self) -> str:
        return self.connection.code if self.connection else ""

    @property
    def busy(self) -> threading.Event:
        return self.connection.busy if self.connection else self._idle

    def poll(self) -> list[Update]:
        out: list[Update] = []
        while not self._updates.empty():
            out.append(self._updates.get())
        if self.connection is not None:
            out.extend(self.connection.poll())
        return out

    def act(self, seat: int, type: str, version: int | None = None, **fields: Any) -> None:
        if self.connection is not None:
            self.connection.act(seat, type, version, **fields)

    def hint(self, seat: int) -> None:
        if self.connection is not None:
            self.connection.hint(seat)

    def fetch_events(self, seat: int) -> None:
        if self.connection is not None:
            self.connection.fetch_events(seat)

    def set_delay(self, delay: float) -> None:
        """The computer players' speed (the settings screen)."""
        if self.local is not None:
            threading.Thread(target=self.local.set_delay, args=(delay,), daemon=True).start()

    def close(self) -> None:
        """Close the connection; a start still running is cancelled and waited for."""
        self._cancelled.set()
        if self.connection is not None:
            self.connection.close()
        self._thread.join(timeout=60)

    def stop(self) -> None:
        """Stop the server and the computer players that were started."""
        if self.local is not None:
            self.local.stop()


def measure(seconds: float = 120.0, size: str = "1280x800") -> dict[str, float | None]:
    """Start ``python -m clients.table --local`` (a fresh database, SDL's dummy video
    driver unless another is set) and report the seconds from the start of the process
    to its first frame (``window_s``) and to the first frame showing the deal
    (``deal_s``); the process is stopped in any case."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "startup.jsonl"
        env = dict(os.environ)
        env.setdefault("SDL_VIDEODRIVER", "dummy")
        env.setdefault("SDL_AUDIODRIVER", "dummy")
        env.update(
            {
                "DEKABES_STARTUP_LOG": str(log),
                "DEKABES_VAR_DIR": str(Path(folder) / "var"),
                "DEKABES_CONFIG_DIR": str(Path(folder) / "config"),
                "PYGAME_HIDE_SUPPORT_PROMPT": "1",
            }
        )
        began = time.time()
        child = subprocess.Popen(
            [sys.executable, "-m", "clients.table", "--local", "--size", size, "--lang", "en"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        moments: dict[str, float] = {}
        try:
            deadline = time.monotonic() + seconds
            while "deal" not in moments and time.monotonic() < deadline:
                if child.poll() is not None:
                    break
                time.sleep(0.05)
                if log.exists():
                    for line in log.read_text(encoding="utf-8").splitlines():
                        entry = json.loads(line)
                        moments.setdefault(entry["event"], entry["t"])
        finally:
            child.terminate()  # SIGTERM: the client stops the server and bots it started
            try:
                child.wait(30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(10)

        def since(name: str) -> float | None:
            return round(moments[name] - began, 2) if name in moments else None

        return {"window_s": since("window"), "deal_s": since("deal")}
