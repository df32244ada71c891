"""Drive the real table client headless: SDL's dummy video driver, injected events.

``TableDriver`` sets up a table on the live test server (an owner account, a bot
account owned by it, three or fewer bot seats played by an in-process ``Runner`` with
no delay), opens the client on it and offers taps, drags, finger taps and keys that go
through pygame's event queue and the client's own input handling.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import time
import uuid
from pathlib import Path

import pygame

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import Connection
from clients.table.ui import Accept, LobbyTap, PickTile, PlaceAt, Tap

ARTIFACTS = (
    Path(
        os.environ.get(
            "DEKABES_ARTIFACTS", Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
        )
    )
    / "table"
)
PASSWORD = "a long enough password 42"


class TableDriver:
    def __init__(
        self,
        url: str,
        humans=(1,),
        level: str = "greedy",
        lang: str = "en",
        size=(1280, 800),
        seed: int = 3,
    ):
        self.url = url
        self.owner = DekabesClient(url)
        self.owner.register(f"pl{uuid.uuid4().hex[:10]}", PASSWORD)
        bots = [n for n in (1, 2, 3, 4) if n not in humans]
        self.runner = None
        bot = self.owner.register_bot(f"bt{uuid.uuid4().hex[:10]}") if bots else None
        table = self.owner.create_table(
            {n: "human" if n in humans else "bot" for n in (1, 2, 3, 4)},
            join=list(humans),
            bots={n: bot.username for n in bots} if bots else None,
        )
        self.code = table.code
        if bot is not None:
            self.runner = Runner(
                DekabesClient(url, bot.token),
                RunnerOptions(level=level, delay=0, tables=(self.code,), poll_wait=1, seed=seed),
            ).start()
        pygame.init()
        self.connection = Connection(url, self.owner.token, self.code, seats=list(humans)).start()
        self.app = TableApp(
            self.connection, Settings(lang=lang, speed="fast"), size=size, save_settings=False
        )
        self.app.open_window()
        self.screen = self.app.tick([])
        self.shot = False

    # ------------------------------------------------------------------ time
    def tick(self, frames: int = 1):
        for _ in range(frames):
            self.screen = self.app.tick()
            time.sleep(0.01)
        return self.screen

    def until(self, predicate, timeout: float = 30.0, what: str = "condition"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.tick()
            if predicate():
                return self.screen
        raise AssertionError(f"timed out waiting for {what}; screen {self.screen}")

    def settle(self, seconds: float = 0.4):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.tick()
        return self.screen

    # ------------------------------------------------------------------ the server's truth
    def server_state(self, seat: int = 1):
        return self.owner.seat_view(self.code, seat)

    def version(self) -> int:
        return self.server_state(self.app.seating.seats[0] if self.app.seating.seats else 1).version

    def event_count(self) -> int:
        return len(self.owner.all_events(self.code, self.app.seating.seats[0]))

    # ------------------------------------------------------------------ the client's screen
    def hit(self, want) -> tuple[int, int]:
        """Where to tap for ``want``: a ``Tap`` (equal), or a ``Tap`` class (any of it)."""
        for hit in reversed(self.app.hits):
            if means(hit.action, want):
                return hit.rect.center
        raise AssertionError(f"nothing to tap for {want}: {[h.action for h in self.app.hits]}")

    def has_hit(self, want) -> bool:
        return any(means(h.action, want) for h in self.app.hits)

    def legal_tiles(self, seat: int | None = None) -> dict:
        return self.app.legal_plays(seat or self.app.seating.shown)

    # ------------------------------------------------------------------ input
    def tap(self, pos) -> None:
        pygame.event.post(
            pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=False)
        )
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1, touch=False))
        self.tick()

    def finger_tap(self, pos, synthesised_mouse: bool = True) -> None:
        """A touch as SDL delivers it: FINGER events plus mouse events made from them."""
        w, h = self.app.window.size
        x, y = pos[0] / w, pos[1] / h
        post = pygame.event.post
        post(pygame.event.Event(pygame.FINGERDOWN, finger_id=1, touch_id=1, x=x, y=y, dx=0, dy=0))
        if synthesised_mouse:
            post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=True))
        post(pygame.event.Event(pygame.FINGERUP, finger_id=1, touch_id=1, x=x, y=y, dx=0, dy=0))
        if synthesised_mouse:
            post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1, touch=True))
        self.tick()

    def drag(self, start, end, steps: int = 8) -> None:
        post = pygame.event.post
        post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=1, touch=False))
        self.tick()
        for i in range(1, steps + 1):
            p = (
                start[0] + (end[0] - start[0]) * i // steps,
                start[1] + (end[1] - start[1]) * i // steps,
            )
            post(
                pygame.event.Event(
                    pygame.MOUSEMOTION, pos=p, rel=(0, 0), buttons=(1, 0, 0), touch=False
                )
            )
            self.tick()
        post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=end, button=1, touch=False))
        self.tick()

    def key(self, key: int, mod: int = 0) -> None:
        """A key pressed and released, as a keyboard sends it."""
        for kind in (pygame.KEYDOWN, pygame.KEYUP):
            pygame.event.post(pygame.event.Event(kind, key=key, mod=mod, unicode="", scancode=0))
        self.tick()

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        pygame.image.save(self.app.window.surface, str(path))
        return path

    # ------------------------------------------------------------------ playing
    def accept_by_tap(self) -> None:
        self.until(lambda: self.screen.kind == "accept", what="the accept screen")
        before = self.app.newest.version
        self.tap(self.hit(Accept))
        self.until(lambda: self.app.newest.version > before, what="the accept to land")

    def until_my_turn(self, timeout: float = 60.0, what: str = "my turn"):
        """Wait for my turn to play; a deal shown again meanwhile (a computer claimed a
        redeal: five doubles) is accepted again."""

        def ready() -> bool:
            if self.screen.kind == "accept" and self.has_hit(Accept):
                self.tap(self.hit(Accept))
            return self.my_turn()

        return self.until(ready, timeout=timeout, what=what)

    def my_turn(self) -> bool:
        return (
            self.screen.kind == "table"
            and self.app.my_turn(self.app.seating.shown)
            and not self.app.conn.busy.is_set()
        )

    def play_one_by_taps(self) -> str:
        """Tap a legal tile, then its ghost on an end. Returns the tile."""
        legal = self.legal_tiles()
        tile = sorted(legal)[0]
        self.tap(self.hit(PickTile(tile)))
        self.tap(self.hit(PlaceAt(legal[tile][0])))
        return tile

    def close(self) -> None:
        try:
            self.connection.close()
        finally:
            if self.runner is not None:
                self.runner.stop()
            pygame.quit()


def means(action: Tap | LobbyTap, want: Tap | LobbyTap | type[Tap] | type[LobbyTap]) -> bool:
    """Does a region's ``action`` answer ``want`` (a ``Tap`` or ``LobbyTap``, or its class)?"""
    return isinstance(action, want) if isinstance(want, type) else action == want


def ivory_pixels(surface: pygame.Surface) -> int:
    """How many pixels show a tile face (exactly the ivory of ``draw.IVORY``/``IVORY_DIM``)."""
    from clients.table.draw import IVORY, IVORY_DIM

    return sum(
        pygame.transform.threshold(None, surface, colour, (0, 0, 0, 0), set_behavior=0)
        for colour in (IVORY, IVORY_DIM)
    )
