"""What the table's collaborators may see and do of the controller (``app.TableApp``),
as two Protocols checked by mypy; and ``LobbyView``, what the lobby's drawing reads of
the lobby (``lobby.Lobby``).

``TableView`` is what the drawing (``render/``) reads: the grouped state of
``state.py``, the settings, the translator and the seat views. It never changes
anything. ``TableContext`` adds what the controller's helpers (``moves``, ``taps``,
``toolbar``, ``keys``, ``panels``, ``pointer``) may ask of it: send an action, toast,
show a seat, open a panel... They change the grouped state through its dataclasses and
nothing else of the app. Neither imports ``app`` (no cycle; a test checks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import pygame

from clients.sdk import SeatState
from clients.table.config import Settings
from clients.table.connection import TableLink
from clients.table.guard import HandoffGuard
from clients.table.i18n import Translator
from clients.table.input import PointerTracker
from clients.table.lobby_service import LeagueDetails, LeagueInfo, TableEntry
from clients.table.news import News
from clients.table.people import Takeback
from clients.table.sound import Sounds
from clients.table.state import (
    Effects,
    PanelState,
    People,
    Progress,
    Seating,
    Selection,
    Startup,
    Window,
)
from clients.table.ui import Hit, LobbyTap, Screen, Tap, TextField, Toast

View = dict[str, Any]  # one seat view, as the server sent it


class LobbyView(Protocol):
    """What the lobby's drawing (``render/lobby.py``, ``render/league.py``) reads of the
    lobby's controller (``lobby.Lobby``), which it never imports (no cycle; the
    controller imports the drawing)."""

    settings: Settings
    tr: Translator
    server: str
    username: str | None
    fields: dict[str, TextField]
    focus: str
    invite_needed: bool
    busy: bool
    status: str
    message: tuple[str, bool] | None
    toasts: list[Toast]
    unfinished: list[TableEntry]
    finished: list[TableEntry]
    open_seats: tuple[dict, ...]
    league: LeagueInfo
    details: LeagueDetails | None
    club: str | None
    create_seats: dict[int, str]
    level: str
    settings_open: bool
    screen_surface: pygame.Surface | None

    def keyboard_focus(self, controls: list[LobbyTap] | None = None) -> LobbyTap | None: ...


class TableView(Protocol):
    """The table as the drawing reads it."""

    @property
    def settings(self) -> Settings: ...
    @property
    def tr(self) -> Translator: ...
    @property
    def conn(self) -> TableLink: ...
    @property
    def seating(self) -> Seating: ...
    @property
    def selection(self) -> Selection: ...
    @property
    def panel(self) -> PanelState: ...
    @property
    def progress(self) -> Progress: ...
    @property
    def effects(self) -> Effects: ...
    @property
    def window(self) -> Window: ...
    @property
    def people(self) -> People: ...
    @property
    def guard(self) -> HandoffGuard: ...
    @property
    def startup(self) -> Startup | None: ...
    @property
    def on_lobby(self) -> Callable[[], None] | None: ...
    @property
    def newest(self) -> SeatState | None: ...

    def view_of(self, seat: int | None) -> View: ...
    def allowed(self, seat: int | None, action: str) -> bool: ...
    def legal_plays(self, seat: int | None) -> dict[str, list[str]]: ...
    def my_turn(self, seat: int | None) -> bool: ...
    def presence(self, seat: int) -> tuple[str, float | None]: ...
    def takeback_question(self, screen: Screen) -> tuple[int, Takeback] | None: ...


class TableContext(TableView, Protocol):
    """What the controller's helpers may do."""

    @property
    def sound(self) -> Sounds: ...
    @property
    def news(self) -> News: ...
    @property
    def hits(self) -> list[Hit[Tap]]: ...
    @property
    def pointer(self) -> PointerTracker: ...

    def send(self, seat: int | None, action: str, **fields: Any) -> None: ...
    def toast(
        self,
        value: str,
        *,
        error: bool = False,
        seconds: float = 3.5,
        public: bool = False,
        seat: int | None = None,
        lasts: str = "hand",
    ) -> None: ...
    def show(self, seat: int) -> None: ...
    def clear_selection(self) -> None: ...
    def select(self, tile: str) -> None: ...
    def play(self, tile: str, end: str | None) -> bool: ...
    def open_panel(self, name: str) -> None: ...
    def close_panel(self) -> None: ...
    def scroll_panel(self, by: int) -> None: ...
    def press(self, name: str) -> None: ...
    def tap(self, tap: Tap) -> None: ...
    def answer(self, yes: bool) -> None: ...
    def command(self, name: str) -> None: ...
    def set_language(self, lang: str) -> None: ...
    def apply_settings(self) -> None: ...
    def save(self) -> None: ...
    def quit(self) -> None: ...
    def set_window_size(self, size: tuple[int, int]) -> None: ...
    def to_drawing(self, pos: tuple[int, int]) -> tuple[int, int]: ...
