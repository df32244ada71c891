"""The table client's own state, grouped by what it is about (the server's seat views are
the truth for the game; this is what belongs to the screen).

``TableApp`` holds one of each; the collaborators (``moves``, ``taps``, ``toolbar``,
``keys``, ``panels``, ``pointer``) change them through ``context.TableContext`` and the
drawing (``render/``) reads them through ``context.TableView``. Plain dataclasses: no
pygame, no network.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pygame

from clients.sdk import SeatState
from clients.table.ui import Drag, Finale, Flight, Toast


@dataclass
class Seating:
    """Who sits at this device and whose private screen is on it (pass-and-play)."""

    seats: list[int] = field(default_factory=list)  # the human seats this account holds here
    username: str = ""
    states: dict[int, SeatState] = field(default_factory=dict)  # seat -> its newest view
    shown: int | None = None  # the human seat whose private screen was last shown
    # seat -> (tile, version it was played at): a play sent and not answered yet; the
    # hand shows that tile on its way and sends no other play until the answer or a
    # refusal (``moves.settle_sent``)
    sent: dict[int, tuple[str, int]] = field(default_factory=dict)
    handoff_done: int | None = None  # the hand-off was confirmed for this seat
    watching: bool = False  # a spectator: no seat held, ``shown`` is the viewpoint

    @property
    def newest(self) -> SeatState | None:
        """The newest view among the seats held (public facts are the same in all)."""
        if not self.states:
            return None
        return max(self.states.values(), key=lambda s: s.version)

    def acting(self) -> int | None:
        """The seat a toolbar button or a panel acts for: the one on screen, or the first."""
        return self.shown or (self.seats[0] if self.seats else None)


@dataclass(frozen=True)
class Hint:
    """The strong computer's suggestion for one seat at one version (a preview only)."""

    seat: int
    version: int
    event: dict[str, Any]


@dataclass
class Selection:
    """The private choices on the seat's screen: nothing of it survives a hand-off."""

    tile: str | None = None  # the lifted tile of the hand
    end: str | None = None  # the end it is aimed at: "left" | "right" | "center"
    drag: Drag | None = None
    hint: Hint | None = None

    def clear(self) -> None:
        self.tile = self.end = None
        self.drag = None

    def empty(self) -> bool:
        return self.tile is None and self.drag is None and self.hint is None


@dataclass
class PanelState:
    """The panel over the table: "rules", "log" or "settings" (None: none open)."""

    name: str | None = None
    scroll: int = 0
    paused_seat: int | None = None  # the seat that paused the computers while it is open
    log_events: list[dict[str, Any]] | None = None  # the table log, as that seat may see it
    log_seat: int | None = None  # whose log it is


@dataclass
class Progress:
    """How far the player has followed the match: the hand ends and the match end seen,
    the hand end on screen, the question being asked."""

    revealed_upto: int | None = None  # hand results dismissed (None: not known yet)
    finale: Finale | None = None  # the hand end being shown
    match_end_seen: bool = False  # the match-end screen was closed
    confirm: str | None = None  # "restart_hand" | "new_match" | "undo_match" | "leave_seat"
    #                             | "replace_seat" (of ``replacing``)
    replacing: int | None = None  # the seat the owner is asked to hand over
    last_tiles: bool = False  # mark each seat's last tile (on request)


@dataclass
class Effects:
    """What moves or fades on screen."""

    toasts: list[Toast] = field(default_factory=list)
    flights: dict[str, Flight] = field(default_factory=dict)  # tile -> its slide into the line
    pass_flash: dict[int, float] = field(default_factory=dict)  # seat -> when it passed


@dataclass
class Window:
    """The window and the drawing's size in it (a big window draws smaller and scales up)."""

    window_size: tuple[int, int] = (1280, 800)
    size: tuple[int, int] = (1280, 800)  # the drawing's size
    scale: float = 1.0
    surface: pygame.Surface | None = None
    canvas: pygame.Surface | None = None
    focused: bool = True  # the window has the keyboard focus
    frame_ms: list[float] = field(default_factory=list)


@dataclass
class People:
    """What the client knows of who is at the table when the server sends no ``presence``:
    when each seat was last seen acting (monotonic seconds)."""

    seen: dict[int, float] = field(default_factory=dict)
    turn_told: tuple[int, int] | None = None  # (seat, version) whose "your turn" was told
    handovers_seen: int | None = None  # seat handovers told (None: none looked at yet)
    forfeit_told: bool = False


STARTUP_STEPS = ("server", "computers", "table")


@dataclass
class Startup:
    """``--local``: the embedded server and the computer players starting behind the
    window (``startup.LocalLink``); None once the table answers."""

    step: str = "server"  # one of STARTUP_STEPS
    failed: str | None = None  # why it could not start

    def done(self, step: str) -> bool:
        return STARTUP_STEPS.index(step) < STARTUP_STEPS.index(self.step)
