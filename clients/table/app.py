"""The table client's controller: what the player sees next and what a tap or key does.

The server's seat views are the truth. This class only keeps what belongs to the
screen: which human seat's private screen is shown (pass-and-play), the selected tile
and its preview, the open panel, the hand-end reveal waiting to be dismissed, toasts
and animations. It wires small collaborators: ``news`` (what is new in a view),
``keys`` (the keyboard's tables), ``taps``, ``toolbar``, ``pointer``, ``moves``,
``panels``. Drawing is ``render.draw(app, screen)``, which returns the clickable regions
of the frame (``app.hits``) that the next pointer event is tested against.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pygame

from clients.table import config, keys, moves, panels, pointer, render, sound, taps, toolbar
from clients.table import input as table_input
from clients.table.connection import (
    EventLog,
    HintAnswer,
    NewState,
    Ready,
    Refused,
    Status,
    TableLink,
)
from clients.table.i18n import Translator, detect_language
from clients.table.layout import ui_scale
from clients.table.news import HandEnd, News, hint_text
from clients.table.screens import (
    UiState,
    ends_before_last_tile,
    finished_view,
    screen_for,
    seat_needing_the_device,
)
from clients.table.ui import (
    Drag,
    Finale,
    Flight,
    Hit,
    Screen,
    Tap,
    Toast,
)

__all__ = ["TableApp", "Screen", "Hit", "finished_view", "ends_before_last_tile", "ui_scale"]

# A pass stays flagged this long after it happened (seconds).
PASS_FLASH = 1.6
# The finished board stays this long (plus the last tile's flight) before the result.
LANDING_HOLD = 1.0
# While nothing moves the loop wakes this often for input and the network (seconds).
IDLE_POLL = 1 / 30


class TableApp:
    def __init__(
        self,
        connection: TableLink,
        settings: config.Settings | None = None,
        lang: str | None = None,
        size: tuple[int, int] | None = None,
        save_settings: bool = True,
        on_quit: Callable[[], None] | None = None,
    ):
        self.conn = connection
        self.settings = settings or config.Settings()
        self.save_settings = save_settings
        if lang:
            self.settings.lang = lang
        self.tr = Translator(self.settings.lang or detect_language())
        width, height = size or self.settings.window
        self.window_size: tuple[int, int] = (int(width), int(height))
        self.size = self.window_size  # the drawing's size (smaller when scaled up)
        self.scale = 1.0
        self._canvas: pygame.Surface | None = None
        self.set_window_size(self.window_size)
        self.on_quit = on_quit
        self.screen_surface: pygame.Surface | None = None
        self.running = True
        self.states: dict = {}  # seat -> SeatState
        self.seats: list[int] = []  # human seats this account holds here
        self.username = ""
        self.shown: int | None = None  # the human seat whose private screen was last shown
        self.handoff_done: int | None = None  # hand-off confirmed for this seat
        self.selected: str | None = None
        self.chosen_end: str | None = None
        self.hint: dict | None = None  # {"seat", "version", "event"}
        self.panel: str | None = None  # "rules" | "log"
        self.panel_scroll = 0
        self.panel_paused_seat: int | None = None
        self.log_events: list | None = None
        self.confirm: str | None = None  # "restart_hand" | "new_match"
        self.revealed_upto: int | None = None  # hands whose reveal the player dismissed
        self.toasts: list[Toast] = []
        self.flights: dict[str, Flight] = {}
        self.pass_flash: dict[int, float] = {}
        self.drag: Drag | None = None
        self.hits: list[Hit[Tap]] = []
        self.pointer = table_input.PointerTracker(lambda: self.window_size)
        self.message = ""
        self.frame_ms: list[float] = []
        self.news = News()  # what the player has seen (``news.py``)
        self.finale: Finale | None = None  # the hand end being shown
        self.match_end_seen = False  # the match-end screen was dismissed
        self.on_lobby: Callable[[], None] | None = None  # set when a lobby opened this table
        self.dirty = True  # something changed: draw a frame
        self._last_screen: Screen | None = None
        self.sound = sound.Sounds(enabled=self.settings.sound)

    # ------------------------------------------------------------------ state
    @property
    def newest(self):
        """The newest view among the seats held (public facts are the same in all)."""
        if not self.states:
            return None
        return max(self.states.values(), key=lambda s: s.version)

    def view_of(self, seat: int | None) -> dict:
        state = self.states.get(seat) if seat is not None else None
        state = state or self.newest
        return state.view if state else {}

    def allowed(self, seat: int | None, action: str) -> bool:
        state = self.states.get(seat) if seat is not None else None
        return bool(state and action in state.allowed)

    def acting_seat(self) -> int | None:
        """The seat a toolbar button or a panel acts for: the one on screen, or the first held."""
        return self.shown or (self.seats[0] if self.seats else None)

    def ui_state(self) -> UiState:
        return UiState(
            tuple(self.seats),
            self.shown,
            self.handoff_done,
            self.revealed_upto or 0,
            self.finale,
            self.match_end_seen,
            time.monotonic(),
        )

    def seat_needing_the_device(self) -> int | None:
        newest = self.newest
        return (
            None
            if newest is None
            else seat_needing_the_device(newest.seats_to_act, self.ui_state())
        )

    def decide(self) -> Screen:
        """The screen now (``screens.screen_for``); a private screen of another seat than
        the one shown makes it the one shown."""
        newest = self.newest
        if newest is not None:
            results = len(newest.view.get("results") or [])
            if self.revealed_upto is None:  # what was over before we came is not news
                self.revealed_upto = results
            self.revealed_upto = min(self.revealed_upto, results)
        screen = screen_for(
            newest.view if newest else None,
            self.ui_state(),
            newest.seats_to_act if newest else (),
        )
        private = screen.kind in ("accept", "opener", "table")
        if private and screen.seat is not None and screen.seat != self.shown:
            self.show(screen.seat)
        elif not private and len(self.seats) > 1:
            # Pass-and-play: a screen anyone may look at keeps nothing of a private one.
            self.forget_private(keep=None, close_panel=screen.kind == "handoff")
        return screen

    def show(self, seat: int) -> None:
        self.forget_private(keep=seat, close_panel=seat != self.shown)
        self.shown = seat
        self.handoff_done = seat
        self.news.forget_screen()  # what this seat's screen shows now is not "new"
        if seat in self.states:
            self._note_changes(self.states[seat].view)

    def forget_private(self, keep: int | None, close_panel: bool) -> None:
        """Drop what belongs to a private screen other than ``keep``'s: the selection, the
        drag, the hint, private toasts and (``close_panel``) the log fetched for a seat."""
        if self.selected or self.drag or self.hint:
            self.clear_selection()
            self.hint = None
            self.dirty = True
        toasts = [t for t in self.toasts if t.seat is None or t.seat == keep]
        if len(toasts) != len(self.toasts):
            self.toasts, self.dirty = toasts, True
        if close_panel and (self.panel or self.log_events is not None):
            if self.panel:
                self.close_panel()
            self.log_events = None
            self.dirty = True

    # ------------------------------------------------------------------ the loop
    def open_window(self) -> pygame.Surface:
        render.clear_caches()
        pygame.display.set_caption(self.tr("app.title"))
        if pygame.display.get_driver() != "dummy":  # headless: any size is fine
            self.set_window_size(
                config.fit_to_display(self.window_size, pygame.display.get_desktop_sizes())
            )
        self.screen_surface = pygame.display.set_mode(self.window_size, pygame.RESIZABLE)
        return self.screen_surface

    def run(self, seconds: float | None = None) -> None:
        """The window's loop until quit (or ``seconds``, for the idle benchmark). It draws
        only when something changed or moves; otherwise it just looks for input and
        network news ``IDLE_POLL`` times a second, so a waiting table costs next to no CPU."""
        clock = pygame.time.Clock()
        if self.screen_surface is None:
            self.open_window()
        stop = None if seconds is None else time.monotonic() + seconds
        while self.running and (stop is None or time.monotonic() < stop):
            self.tick(force=False)
            if self.animating():
                clock.tick(60)
            else:
                time.sleep(IDLE_POLL)

    def tick(self, events: list | None = None, force: bool = True) -> Screen:
        """One frame: network updates, input, expiry, drawing (always when ``force``; else
        only if something changed). Tests call it directly."""
        started = time.perf_counter()
        self.pump_connection()
        for event in pygame.event.get() if events is None else events:
            self.handle_event(event)
            self.dirty = True
        self.expire(time.monotonic())
        screen = self.decide()
        if screen != self._last_screen:
            self._last_screen = screen
            self.dirty = True
        if self.screen_surface is not None and (force or self.dirty or self.animating()):
            self.dirty = False
            self.hits = render.draw(self, screen, self._drawing_surface(self.screen_surface))
            if self._canvas is not None and self.scale != 1.0:
                pygame.transform.smoothscale(
                    self._canvas, self.screen_surface.get_size(), self.screen_surface
                )
            pygame.display.flip()
            self.frame_ms.append((time.perf_counter() - started) * 1000)
            del self.frame_ms[:-600]
        return screen

    def _drawing_surface(self, window: pygame.Surface) -> pygame.Surface:
        if self.scale == 1.0:
            return window
        if self._canvas is None or self._canvas.get_size() != self.size:
            self._canvas = pygame.Surface(self.size).convert(window)
        return self._canvas

    def animating(self) -> bool:
        """Is anything on screen moving (so frames must keep coming)?"""
        now = time.monotonic()
        return (
            bool(self.flights)
            or bool(self.drag and self.drag.active)
            or any(now - t < PASS_FLASH for t in self.pass_flash.values())
            or (self.finale is not None and now < self.finale.started + self.finale.hold + 0.05)
        )

    def expire(self, now: float) -> None:
        """Drop finished animations and old toasts (drawing never changes the app)."""
        duration = max(1, self.settings.anim_ms) / 1000
        before = (len(self.toasts), len(self.flights), len(self.pass_flash))
        self.toasts = [t for t in self.toasts if t.until > now]
        self.flights = {
            k: f
            for k, f in self.flights.items()
            if self.settings.anim_ms and now - f.started < duration
        }
        self.pass_flash = {k: t for k, t in self.pass_flash.items() if now - t < PASS_FLASH}
        if before != (len(self.toasts), len(self.flights), len(self.pass_flash)):
            self.dirty = True

    def quit(self) -> None:
        if self.panel:
            self.close_panel()
        self.running = False
        if self.save_settings:
            self.settings.window = self.window_size
            config.save(self.settings)
        if self.on_quit:
            self.on_quit()

    # ------------------------------------------------------------------ network
    def pump_connection(self) -> None:
        for update in self.conn.poll():
            self.dirty = True
            match update:
                case Ready(username, seats):
                    self.seats = list(seats)
                    self.username = username
                case NewState(state):
                    self._take_state(state)
                case HintAnswer(seat, event):
                    if seat == self.shown:  # a late answer for another seat is not shown
                        self._take_hint(seat, event)
                case EventLog(seat, events):
                    if self.panel == "log" and seat == self.acting_seat():
                        self.log_events = events
                case Refused(code, message, seat):
                    if seat is None or seat == self.shown or len(self.seats) == 1:
                        self.toast(self.tr.error(code, message), error=True, seat=seat)
                case Status("offline"):
                    self.toast(self.tr("status.offline"), error=True, public=True)

    def _take_state(self, state) -> None:
        old = self.states.get(state.seat)
        if old is not None and old.version > state.version:
            return
        self.states[state.seat] = state
        self._note_hand_end(state)
        self._note_redeal(state)
        if state.seat == self.shown:
            self._note_changes(state.view)
            if self.hint and self.hint["version"] != state.version:
                self.hint = None
            if self.selected and self.selected not in state.view.get("hand", []):
                self.clear_selection()
        if self.panel == "log":
            self.conn.fetch_events(state.seat)

    def _note_hand_end(self, state) -> None:
        """A hand just ended: show its finished board (the last tile landing) first."""
        ended = self.news.hand_end(state.view)
        if ended is True:
            self.match_end_seen = False  # a new match began
        if not isinstance(ended, HandEnd):
            return
        now = time.monotonic()
        hold = LANDING_HOLD + self.settings.anim_ms / 1000
        self.finale = Finale(ended.hand_no, ended.results, now, hold)
        self.match_end_seen = False
        self.clear_selection()
        if ended.last_tile and self.settings.anim_ms > 0:
            self._fly(*ended.last_tile, now)
        self.sound.play("tile")

    def _note_redeal(self, state) -> None:
        """A claimed redeal gives the same hand number a new deal: say so."""
        if self.news.redealt(state.seat, state.view) and state.seat in self.seats:
            self.toast(self.tr("toast.redeal"), public=True)

    def _note_changes(self, view: dict) -> None:
        """Start the animations of what is new since the last view shown."""
        now = time.monotonic()
        changes = self.news.changes(view)
        if changes.placed:
            if self.settings.anim_ms > 0:
                for tile, seat in changes.placed:
                    self._fly(tile, seat, now)
            self.sound.play("tile")
        for seat in changes.passes:
            self.pass_flash[seat] = now
            self.sound.play("pass")
            if seat == self.shown:
                # The server passes for a seat that cannot play: tell its player.
                self.toast(self.tr("play.pass_forced"))

    def _fly(self, tile: str, seat: int | None, now: float) -> None:
        self.flights[tile] = Flight(tile, render.seat_anchor(self, seat), now)

    def _take_hint(self, seat: int, event: dict | None) -> None:
        state = self.states.get(seat)
        if event is None or state is None:
            self.toast(self.tr("hint.none"))
            return
        self.hint = {"seat": seat, "version": state.version, "event": event}
        if event.get("type") == "play":
            self.selected = event["tile"]
            self.chosen_end = event.get("end") or "center"
        text = hint_text(self.tr, event, opening=not state.view.get("line"))
        if text:
            self.toast(text)

    def send(self, seat: int | None, action: str, **fields) -> None:
        if seat is None:  # no seat of ours is on screen yet: nothing to act for
            return
        state = self.states.get(seat)
        self.conn.act(seat, action, state.version if state else None, **fields)

    def toast(
        self,
        value: str,
        error: bool = False,
        seconds: float = 3.5,
        public: bool = False,
        seat: int | None = None,
    ) -> None:
        """A short message; it belongs to the private screen of ``seat`` (the one shown by
        default) unless ``public``, so it never reaches another seat's screen."""
        owner = None if public else (seat if seat is not None else self.shown)
        self.toasts = [t for t in self.toasts if t.text != value][-3:]
        self.toasts.append(Toast(value, time.monotonic() + seconds, error, owner))
        self.dirty = True

    # ------------------------------------------------------------------ moves and panels
    def legal_plays(self, seat: int | None) -> dict[str, list[str]]:
        return moves.legal_plays(self.view_of(seat))

    def my_turn(self, seat: int | None) -> bool:
        return moves.my_turn(self.view_of(seat), seat)

    def clear_selection(self) -> None:
        if self.drag is not None:
            self.pointer.cancel()  # the press that held the tile is over too
        self.selected = None
        self.chosen_end = None
        self.drag = None

    def select(self, tile: str) -> None:
        moves.select(self, tile)

    def play(self, tile: str, end: str | None) -> bool:
        return moves.play(self, tile, end)

    def open_panel(self, name: str) -> None:
        panels.open_panel(self, name)

    def scroll_panel(self, by: int) -> None:
        panels.scroll_panel(self, by)

    def close_panel(self) -> None:
        panels.close_panel(self)

    def press(self, name: str) -> None:
        toolbar.press(self, name)

    def set_language(self, lang: str) -> None:
        self.tr = Translator(lang)
        self.settings.lang = self.tr.lang
        pygame.display.set_caption(self.tr("app.title"))
        self.toast(self.tr("lang.switched", name=self.tr("lang.name")), public=True)
        self.save()

    def save(self) -> None:
        if self.save_settings:
            config.save(self.settings)

    # ------------------------------------------------------------------ input
    def handle_event(self, event) -> None:
        pointer.handle_event(self, event)

    def to_drawing(self, pos) -> tuple[int, int]:
        return int(pos[0] / self.scale), int(pos[1] / self.scale)

    def set_window_size(self, size) -> None:
        """A big window draws the table at a smaller size and scales it up, so tiles and
        text grow with the window instead of floating in an empty board."""
        self.window_size = (int(size[0]), int(size[1]))
        self.scale = ui_scale(self.window_size)
        self.size = (
            round(self.window_size[0] / self.scale),
            round(self.window_size[1] / self.scale),
        )
        self.dirty = True

    def hit_at(self, pos) -> Tap | None:
        return pointer.hit_at(self.hits, pos)

    def tap(self, tap: Tap) -> None:
        taps.tap(self, tap)

    def answer(self, yes: bool) -> None:
        taps.answer(self, yes)

    def command(self, name: str) -> None:
        """A keyboard command (``input.KEYS``), meaning what the current screen offers
        (``keys.py``)."""
        if name == "quit":
            self.quit()
            return
        screen = self.decide()
        keys.command_for(name, screen, bool(self.confirm), bool(self.panel))(self, screen)
