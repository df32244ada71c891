"""The table client's controller: what the player sees next and what a tap or key does.

The server's seat views are the truth. This class keeps only what belongs to the
screen, grouped in the dataclasses of ``state.py``: who sits at this device and whose
private screen is shown (``seating``), the selection and the hint (``selection``), the
open panel (``panel``), how far the player followed the match (``progress``), toasts
and animations (``effects``), the window (``window``), who was seen at the table
(``people``). It wires small collaborators that receive it as a
``context.TableContext``: ``news`` (what is new in a view), ``keys`` (the keyboard's
tables), ``taps``, ``toolbar``, ``pointer``, ``moves``, ``panels``. Drawing is
``render.draw(app, screen, surface)`` (a ``context.TableView``), which returns the
clickable regions of the frame (``app.hits``) that the next pointer event is tested
against.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import pygame

from clients.sdk import SeatState
from clients.table import (
    config,
    keys,
    moves,
    panels,
    people,
    pointer,
    render,
    sound,
    taps,
    toolbar,
)
from clients.table import input as table_input
from clients.table.connection import (
    EventLog,
    HintAnswer,
    Left,
    NewState,
    Ready,
    Refused,
    Starting,
    Status,
    TableLink,
)
from clients.table.guard import HandoffGuard
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
from clients.table.state import (
    Effects,
    Hint,
    PanelState,
    People,
    Progress,
    Seating,
    Selection,
    Startup,
    Window,
)
from clients.table.ui import Finale, Flight, Hit, Screen, Tap, Toast
from clients.table.window import open_window

__all__ = ["TableApp", "Screen", "Hit", "finished_view", "ends_before_last_tile", "ui_scale"]

# A pass stays flagged this long after it happened (seconds).
PASS_FLASH = 1.6
# The finished board stays this long (plus the last tile's flight) before the result.
LANDING_HOLD = 1.0
# While nothing moves the loop wakes this often for input and the network (seconds).
IDLE_POLL = 1 / 30
# A seat seen acting this recently counts as here when the server sends no presence.
SEEN_HERE = 90.0
# Screens only the seat they are for may see (everything else anyone at the device may).
PRIVATE_SCREENS = ("accept", "opener", "table")
# The seat at the bottom of a spectator's screen (it holds none).
WATCH_VIEWPOINT = 1
# Screens over which another player's takeback request is asked.
QUESTION_SCREENS = ("table", "accept", "opener", "match_over")


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
        self.window = Window()
        self.set_window_size((int(width), int(height)))
        self.seating = Seating()
        self.selection = Selection()
        self.panel = PanelState()
        self.progress = Progress()
        self.effects = Effects()
        self.people = People()
        self.startup: Startup | None = None
        self.news = News()  # what the player has seen (``news.py``)
        self.on_quit = on_quit
        self.on_lobby: Callable[[], None] | None = None  # set when a lobby opened this table
        self.on_computer_speed: Callable[[float], None] | None = None  # ``--local``
        self.running = True
        self.hits: list[Hit[Tap]] = []
        self.pointer = table_input.PointerTracker(lambda: self.window.window_size)
        self.guard = HandoffGuard()  # input acts only on what was on display (``guard.py``)
        self.dirty = True  # something changed: draw a frame
        self._last_screen: Screen | None = None
        self._on_display: Screen | None = None  # the screen of the last frame drawn
        self._title = ""
        self.sound = sound.Sounds(enabled=self.settings.sound)
        self._startup_log = os.environ.get("DEKABES_STARTUP_LOG")  # ``startup.measure``
        self._delay = self.settings.computer_delay  # the computer players' speed in use

    # ------------------------------------------------------------------ state
    @property
    def newest(self) -> SeatState | None:
        """The newest view among the seats held (public facts are the same in all)."""
        return self.seating.newest

    def view_of(self, seat: int | None) -> dict[str, Any]:
        state = self.seating.states.get(seat) if seat is not None else None
        state = state or self.newest
        return state.view if state else {}

    def allowed(self, seat: int | None, action: str) -> bool:
        state = self.seating.states.get(seat) if seat is not None else None
        return bool(state and action in state.allowed)

    def acting_seat(self) -> int | None:
        """The seat a toolbar button or a panel acts for: the one on screen, or the first held."""
        return self.seating.acting()

    def ui_state(self) -> UiState:
        return UiState(
            tuple(self.seating.seats),
            self.seating.shown,
            self.seating.handoff_done,
            self.progress.revealed_upto or 0,
            self.progress.finale,
            self.progress.match_end_seen,
            time.monotonic(),
            self.seating.watching,
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
        if newest is None and self.startup is not None:
            return Screen("starting")
        if newest is not None:
            results = len(newest.view.get("results") or [])
            if self.progress.revealed_upto is None:  # what was over before we came is not news
                self.progress.revealed_upto = results
            self.progress.revealed_upto = min(self.progress.revealed_upto, results)
        screen = screen_for(
            newest.view if newest else None,
            self.ui_state(),
            newest.seats_to_act if newest else (),
        )
        private = screen.kind in PRIVATE_SCREENS
        if private and screen.seat is not None and screen.seat != self.seating.shown:
            self.show(screen.seat)
        elif not private and len(self.seating.seats) > 1:
            # Pass-and-play: a screen anyone may look at keeps nothing of a private one.
            self.forget_private(keep=None, close_panel=screen.kind == "handoff")
        return screen

    def show(self, seat: int) -> None:
        self.forget_private(keep=seat, close_panel=seat != self.seating.shown)
        self.seating.shown = seat
        self.seating.handoff_done = seat
        self.news.forget_screen()  # what this seat's screen shows now is not "new"
        if seat in self.seating.states:
            self._note_changes(self.seating.states[seat].view)

    def forget_private(self, keep: int | None, close_panel: bool) -> None:
        """Drop what belongs to a private screen other than ``keep``'s: the selection, the
        drag, the hint, private toasts and (``close_panel``) the log fetched for a seat."""
        if not self.selection.empty():
            self.clear_selection()
            self.selection.hint = None
            self.dirty = True
        toasts = [t for t in self.effects.toasts if t.seat is None or t.seat == keep]
        if len(toasts) != len(self.effects.toasts):
            self.effects.toasts, self.dirty = toasts, True
        if close_panel and (
            self.panel.name in ("rules", "log") or self.panel.log_events is not None
        ):
            if self.panel.name in ("rules", "log"):
                self.close_panel()
            self.panel.log_events = None
            self.dirty = True

    def presence(self, seat: int) -> tuple[str, float | None]:
        """("here" | "away" | "unknown" | "computer" | "open", away since (epoch seconds)
        or None) for ``seat``. A computer's seat and an open one (never taken, or left)
        have no person to be here or away, whatever the server's leases say; a person's
        seat is as the server's ``presence`` says when it sends one, else as this client
        knows (its own seats are here while it is online; a seat seen acting lately)."""
        newest = self.newest
        info = newest.table.seats.get(seat) if newest and newest.table else None
        if info is not None and (info.kind == "bot" or info.is_bot):
            return "computer", None
        if info is not None and info.player is None:
            return "open", None
        if newest is not None:
            sent = newest.raw.get("presence") or newest.view.get("presence")
            if isinstance(sent, dict) and isinstance(sent.get(str(seat)), dict):
                entry = sent[str(seat)]
                if entry.get("connected"):
                    return "here", None
                return "away", _epoch(entry.get("away_since"))
        if seat in self.seating.seats:
            return ("here", None) if self.conn.status == "online" else ("unknown", None)
        seen = self.people.seen.get(seat)
        if seen is not None and time.monotonic() - seen < SEEN_HERE:
            return "here", None
        return "unknown", None

    def takeback_question(self, screen: Screen) -> tuple[int, people.Takeback] | None:
        """(the seat that answers, the request) when another player's takeback request
        waits for an answer from a seat held here and ``screen`` may carry the question
        (not under a panel or another question)."""
        newest = self.newest
        request = people.takeback(newest.raw) if newest is not None else None
        if (
            request is None
            or screen.kind not in QUESTION_SCREENS
            or self.panel.name
            or self.progress.confirm
        ):
            return None
        for seat in [screen.seat, *self.seating.seats]:
            if seat is not None and self.allowed(seat, "accept_takeback"):
                return seat, request
        return None

    # ------------------------------------------------------------------ the loop
    def open_window(self) -> pygame.Surface:
        render.clear_caches()
        self._set_title(self.tr("app.title"))
        if pygame.display.get_driver() != "dummy":  # headless: any size is fine
            self.set_window_size(
                config.fit_to_display(self.window.window_size, pygame.display.get_desktop_sizes())
            )
        self.window.surface = open_window(self.window.window_size)
        return self.window.surface

    def run(self, seconds: float | None = None) -> None:
        """The window's loop until quit (or ``seconds``, for the idle benchmark). It draws
        only when something changed or moves; otherwise it just looks for input and
        network news ``IDLE_POLL`` times a second, so a waiting table costs next to no CPU."""
        clock = pygame.time.Clock()
        if self.window.surface is None:
            self.open_window()
        stop = None if seconds is None else time.monotonic() + seconds
        while self.running and (stop is None or time.monotonic() < stop):
            self.tick(force=False)
            if self.animating():
                clock.tick(60)
            else:
                time.sleep(IDLE_POLL)

    def tick(self, events: list[Any] | None = None, force: bool = True) -> Screen:
        """One frame: network updates, input, expiry, drawing (always when ``force``; else
        only if something changed). Tests call it directly."""
        started = time.perf_counter()
        self.pump_connection()
        if self.seating.sent:
            before = len(self.seating.sent)
            moves.settle_sent(self, self.conn.busy.is_set())
            self.dirty = self.dirty or len(self.seating.sent) != before
        for event in pygame.event.get() if events is None else events:
            self.handle_event(event)
            self.dirty = True
        screen = self.decide()
        self.expire(time.monotonic())
        self._tell_turn(screen)
        if screen != self._last_screen:
            self._last_screen = screen
            self.dirty = True
        surface = self.window.surface
        if surface is not None and (force or self.dirty or self.animating()):
            self.dirty = False
            self.guard.shown(screen.seat if screen.kind == "handoff" else None)
            self.hits = render.draw(self, screen, self._drawing_surface(surface))
            if self.window.canvas is not None and self.window.scale != 1.0:
                pygame.transform.smoothscale(self.window.canvas, surface.get_size(), surface)
            pygame.display.flip()
            self._on_display = screen
            self.window.frame_ms.append((time.perf_counter() - started) * 1000)
            del self.window.frame_ms[:-600]
            self._log_startup(screen)
        return screen

    def _drawing_surface(self, window: pygame.Surface) -> pygame.Surface:
        if self.window.scale == 1.0:
            return window
        canvas = self.window.canvas
        if canvas is None or canvas.get_size() != self.window.size:
            canvas = self.window.canvas = pygame.Surface(self.window.size).convert(window)
        return canvas

    def animating(self) -> bool:
        """Is anything on screen moving (so frames must keep coming)?"""
        now = time.monotonic()
        finale = self.progress.finale
        drag = self.selection.drag
        return (
            bool(self.effects.flights)
            or bool(drag and drag.active)
            or any(now - t < PASS_FLASH for t in self.effects.pass_flash.values())
            or (finale is not None and now < finale.started + finale.hold + 0.05)
            or self.guard.arming()  # the hand-off's button comes alive when armed
        )

    def expire(self, now: float) -> None:
        """Drop finished animations, and toasts whose time is up or whose state is gone
        (drawing never changes the app)."""
        duration = max(1, self.settings.anim_ms) / 1000
        effects = self.effects
        before = (len(effects.toasts), len(effects.flights), len(effects.pass_flash))
        effects.toasts = [t for t in effects.toasts if t.until > now and self._still_true(t)]
        effects.flights = {
            k: f
            for k, f in effects.flights.items()
            if self.settings.anim_ms and now - f.started < duration
        }
        effects.pass_flash = {k: t for k, t in effects.pass_flash.items() if now - t < PASS_FLASH}
        if before != (len(effects.toasts), len(effects.flights), len(effects.pass_flash)):
            self.dirty = True

    def _still_true(self, toast: Toast) -> bool:
        """Does the state a toast describes still hold?"""
        if toast.lasts == "always":
            return True
        if toast.lang and toast.lang != self.tr.lang:
            return False  # written in the language left behind
        if toast.lasts == "language":
            return True  # "Language: …": its time, or until the language changes again
        newest = self.newest
        if newest is None:
            return True
        if len(newest.view.get("results") or []) != toast.hand:
            return False  # a hand ended (or the match began again): not about this board
        seat = toast.seat if toast.seat is not None else self.seating.shown
        state = self.seating.states.get(seat) if seat is not None else None
        if toast.lasts == "version" and state is not None and state.version != toast.version:
            return False
        if toast.lasts == "turn" and state is not None and self.my_turn(seat):
            return False
        return True

    def quit(self) -> None:
        if self.panel.name:
            self.close_panel()
        self.running = False
        if self.save_settings:
            self.settings.window = self.window.window_size
            config.save(self.settings)
        if self.on_quit:
            self.on_quit()

    # ------------------------------------------------------------------ the window's title
    def _set_title(self, title: str) -> None:
        if title != self._title:
            self._title = title
            pygame.display.set_caption(title)

    def _tell_turn(self, screen: Screen) -> None:
        """Your turn while the window is not focused: the title says so and a sound
        plays (once per decision); the plain title is back when the window is focused."""
        newest = self.newest
        waiting = [s for s in (newest.seats_to_act if newest else []) if s in self.seating.seats]
        if not waiting or self.window.focused or screen.kind in ("landing", "reveal"):
            self._set_title(self.tr("app.title"))
            if self.window.focused or not waiting:
                self.people.turn_told = None
            return
        assert newest is not None
        key = (waiting[0], newest.version)
        self._set_title("▶ " + self.tr("title.your_turn") + " — " + self.tr("app.title"))
        told = self.people.turn_told
        if told is None or told[0] != key[0]:
            self.sound.play("turn")
        self.people.turn_told = key

    def set_focus(self, focused: bool) -> None:
        self.window.focused = focused
        self.dirty = True

    def _log_startup(self, screen: Screen) -> None:
        """``DEKABES_STARTUP_LOG``: when the window first showed and when the deal did
        (for ``make bench-table``)."""
        if not self._startup_log:
            return
        moment = "deal" if screen.kind not in ("starting", "connecting") else "window"
        with open(self._startup_log, "a", encoding="utf-8") as stream:
            stream.write(json.dumps({"event": moment, "t": time.time()}) + "\n")
        if moment == "deal":
            self._startup_log = None

    # ------------------------------------------------------------------ network
    def pump_connection(self) -> None:
        for update in self.conn.poll():
            self.dirty = True
            match update:
                case Ready(username, seats, _, watching):
                    self.seating.seats = list(seats)
                    self.seating.username = username
                    self.startup = None
                    if watching:  # a spectator looks from seat 1's side, holding none
                        self.seating.watching = True
                        self.seating.shown = self.seating.handoff_done = WATCH_VIEWPOINT
                case NewState(state):
                    self._take_state(state)
                case HintAnswer(seat, event):
                    if seat == self.seating.shown:  # a late answer for another seat: not shown
                        self._take_hint(seat, event)
                case EventLog(seat, events):
                    if self.panel.name == "log" and seat == self.panel.log_seat:
                        self.panel.log_events = events
                case Refused(code, _, seat):
                    moves.forget_sent(self, seat)
                    if seat is None or seat == self.seating.shown or len(self.seating.seats) == 1:
                        self.toast(self.tr.error(code), error=True, seat=seat, lasts="version")
                case Left(seat):
                    self._left(seat)
                case Starting(step, message):
                    self.startup = self.startup or Startup()
                    if step == "failed":
                        self.startup.failed = message
                    else:
                        self.startup.step = step
                case Status("offline"):
                    self.toast(self.tr("status.offline"), error=True, public=True, lasts="always")

    def _left(self, seat: int) -> None:
        """This account left ``seat``: it is no longer ours; leaving the last one ends
        the table for this window (back to the lobby, or quit)."""
        self.seating.seats = [s for s in self.seating.seats if s != seat]
        self.seating.states.pop(seat, None)
        if self.seating.shown == seat:
            self.forget_private(keep=None, close_panel=True)
            self.seating.shown = self.seating.handoff_done = None
        self.toast(self.tr("toast.left", seat=self.tr("seat.name", n=seat)), public=True)
        if not self.seating.seats:
            if self.on_lobby is not None:
                self.on_lobby()
            else:
                self.quit()

    def _take_state(self, state: SeatState) -> None:
        states = self.seating.states
        old = states.get(state.seat)
        if old is not None and old.version > state.version:
            return
        self._note_seen(old, state)
        states[state.seat] = state
        self._note_people(old, state)
        self.startup = None
        self._note_hand_end(state)
        self._note_redeal(state)
        if state.seat == self.seating.shown:
            self._note_changes(state.view)
            hint = self.selection.hint
            if hint is not None and hint.version != state.version:
                self.selection.hint = None
            tile = self.selection.tile
            if tile and tile not in state.view.get("hand", []):
                self.clear_selection()
        if self.panel.name == "log" and state.seat == self.panel.log_seat:
            self.conn.fetch_events(state.seat)

    def _note_seen(self, old: SeatState | None, new: SeatState) -> None:
        """Seats whose actions arrive are at the table (presence without the server's)."""
        if old is None:
            return  # what happened before we came says nothing of who is here now
        now = time.monotonic()
        before = len(old.view.get("turns") or [])
        if old.view.get("hand_no") != new.view.get("hand_no"):
            before = 0
        for turn in (new.view.get("turns") or [])[before:]:
            if turn.get("seat"):
                self.people.seen[int(turn["seat"])] = now
        was = old.view.get("accepted") or {}
        for seat, accepted in (new.view.get("accepted") or {}).items():
            if accepted and not was.get(seat):
                self.people.seen[int(seat)] = now

    def _note_people(self, old: SeatState | None, state: SeatState) -> None:
        """Seats that changed hands, a match ended by forfeit, a takeback request
        declined: told to everyone at the device (``people.py``)."""
        if state.table is None:
            return  # a response without its table: nothing to tell from
        table = state.table.raw
        found = people.handovers(table)
        seen = self.people.handovers_seen
        if seen is not None and len(found) > seen:
            for handover in found[seen:]:
                self.toast(
                    people.handover_text(self.tr, handover),
                    public=True,
                    lasts="always",
                    seconds=8,
                )
        if seen is None or len(found) > seen:
            self.people.handovers_seen = len(found)  # what happened before we came is no news
        if people.forfeited(table) and not self.people.forfeit_told:
            self.people.forfeit_told = True
            if old is not None:
                self.toast(self.tr("status.forfeited"), public=True, lasts="always", seconds=8)
        asked = people.takeback(old.raw) if old is not None else None
        if (
            asked is not None
            and old is not None
            and people.takeback(state.raw) is None
            and people.same_board(old.view, state.view)
        ):
            what = self.tr(people.TAKEBACK_WHAT.get(asked.command, "takeback.undo"))
            self.toast(
                self.tr("takeback.declined", what=what), public=True, lasts="always", seconds=5
            )

    def _note_hand_end(self, state: SeatState) -> None:
        """A hand just ended: show its finished board (the last tile landing) first."""
        ended = self.news.hand_end(state.view)
        if ended is True:
            self.progress.match_end_seen = False  # a new match began
        if not isinstance(ended, HandEnd):
            return
        now = time.monotonic()
        hold = LANDING_HOLD + self.settings.anim_ms / 1000
        self.progress.finale = Finale(ended.hand_no, ended.results, now, hold)
        self.progress.match_end_seen = False
        self.clear_selection()
        self.selection.hint = None
        if ended.last_tile and self.settings.anim_ms > 0:
            self._fly(*ended.last_tile, now)
        self.sound.play("tile")

    def _note_redeal(self, state: SeatState) -> None:
        """A claimed redeal gives the same hand number a new deal: say so."""
        if self.news.redealt(state.seat, state.view) and state.seat in self.seating.seats:
            self.toast(self.tr("toast.redeal"), public=True)

    def _note_changes(self, view: dict[str, Any]) -> None:
        """Start the animations of what is new since the last view shown."""
        now = time.monotonic()
        changes = self.news.changes(view)
        if changes.placed:
            if self.settings.anim_ms > 0:
                for tile, seat in changes.placed:
                    self._fly(tile, seat, now)
            self.sound.play("tile")
        for seat in changes.passes:
            self.effects.pass_flash[seat] = now
            self.sound.play("pass")
            if seat == self.seating.shown and not self.seating.watching:
                # The server passes for a seat that cannot play: tell its player, until
                # it is that seat's turn again.
                self.toast(self.tr("play.pass_forced"), lasts="turn")

    def _fly(self, tile: str, seat: int | None, now: float) -> None:
        self.effects.flights[tile] = Flight(tile, render.seat_anchor(self, seat), now)

    def _take_hint(self, seat: int, event: dict[str, Any] | None) -> None:
        state = self.seating.states.get(seat)
        if event is None or state is None:
            self.toast(self.tr("hint.none"), lasts="version")
            return
        self.selection.hint = Hint(seat, state.version, event)
        if event.get("type") == "play":
            self.selection.tile = event["tile"]
            self.selection.end = event.get("end") or "center"
        text = hint_text(self.tr, event, opening=not state.view.get("line"))
        if text:
            self.toast(text, lasts="version")

    def send(self, seat: int | None, action: str, **fields: Any) -> None:
        if seat is None:  # no seat of ours is on screen yet: nothing to act for
            return
        state = self.seating.states.get(seat)
        self.conn.act(seat, action, state.version if state else None, **fields)

    def toast(
        self,
        value: str,
        *,
        error: bool = False,
        seconds: float = 3.5,
        public: bool = False,
        seat: int | None = None,
        lasts: str = "hand",
    ) -> None:
        """A short message. It belongs to the private screen of ``seat`` (the one shown by
        default) unless ``public``, so it never reaches another seat's screen; it goes
        with the state it describes (``lasts``, see ``ui.Toast``)."""
        owner = None if public else (seat if seat is not None else self.seating.shown)
        state = self.seating.states.get(owner if owner is not None else -1) or self.newest
        toast = Toast(
            value,
            time.monotonic() + seconds,
            error,
            owner,
            lasts,
            len(state.view.get("results") or []) if state else 0,
            state.version if state else 0,
            self.tr.lang,
        )
        self.effects.toasts = [t for t in self.effects.toasts if t.text != value][-3:]
        self.effects.toasts.append(toast)
        self.dirty = True

    # ------------------------------------------------------------------ moves and panels
    def legal_plays(self, seat: int | None) -> dict[str, list[str]]:
        return moves.legal_plays(self.view_of(seat))

    def my_turn(self, seat: int | None) -> bool:
        return moves.my_turn(self.view_of(seat), seat)

    def clear_selection(self) -> None:
        if self.selection.drag is not None:
            self.pointer.cancel()  # the press that held the tile is over too
        self.selection.clear()

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
        self.settings.lang = Translator(lang).lang
        self.apply_settings()
        self.toast(
            self.tr("lang.switched", name=self.tr("lang.name")), public=True, lasts="language"
        )
        self.save()

    def apply_settings(self) -> None:
        """Take a changed setting into use: language, sound, size, computer speed."""
        if self.settings.lang and self.settings.lang != self.tr.lang:
            self.tr = Translator(self.settings.lang)
            self.expire(time.monotonic())  # nothing stays in the old language
            self._title = ""
            self._set_title(self.tr("app.title"))
        self.sound.enabled = self.settings.sound
        self.set_window_size(self.window.window_size)
        delay = self.settings.computer_delay
        if self.on_computer_speed is not None and delay != self._delay:
            self.on_computer_speed(delay)  # the runner restarts: only when it changed
        self._delay = delay
        self.dirty = True

    def save(self) -> None:
        if self.save_settings:
            config.save(self.settings)

    # ------------------------------------------------------------------ input
    def handle_event(self, event: Any) -> None:
        pointer.handle_event(self, event)

    def to_drawing(self, pos: tuple[int, int]) -> tuple[int, int]:
        return int(pos[0] / self.window.scale), int(pos[1] / self.window.scale)

    def set_window_size(self, size: tuple[int, int]) -> None:
        """A big window (or a bigger size chosen in the settings) draws the table at a
        smaller size and scales it up, so tiles and text grow with the window."""
        window = self.window
        window.window_size = (int(size[0]), int(size[1]))
        window.scale = ui_scale(window.window_size, self.settings.scale)
        window.size = (
            round(window.window_size[0] / window.scale),
            round(window.window_size[1] / window.scale),
        )
        self.dirty = True

    def hit_at(self, pos: tuple[int, int]) -> Tap | None:
        return pointer.hit_at(self.hits, pos)

    def tap(self, tap: Tap) -> None:
        if self.on_display(self.decide()):
            taps.tap(self, tap)

    def on_display(self, screen: Screen) -> bool:
        """Is ``screen`` the one the player sees (the last frame drawn)? Input given for
        one screen never acts on another that was not drawn yet (``guard.py``)."""
        return self.window.surface is None or screen == self._on_display

    def answer(self, yes: bool) -> None:
        taps.answer(self, yes)

    def command(self, name: str) -> None:
        """A keyboard command (``input.KEYS``), meaning what the current screen offers
        (``keys.py``)."""
        if name == "quit":
            self.quit()
            return
        screen = self.decide()
        if name not in keys.ANY_SCREEN and not self.on_display(screen):
            self.dirty = True  # the key was meant for the screen before: show this one first
            return
        keys.command_for(
            name,
            screen,
            bool(self.progress.confirm),
            self.panel.name is not None,
            asked=self.takeback_question(screen) is not None,
        )(self, screen)


def _epoch(value: Any) -> float | None:
    """An ISO time from the server as epoch seconds (None when absent or unreadable)."""
    if not isinstance(value, str):
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
