"""The table client's controller: what the player sees next and what a tap or key does.

The server's seat views are the truth. This class only keeps what belongs to the
screen: which human seat's private screen is shown (pass-and-play), the selected tile
and its preview, the open panel, the hand-end reveal waiting to be dismissed, toasts
and animations. Drawing is ``render.draw(app)``; it also records the clickable regions
of the frame (``app.hits``) that the next pointer event is tested against.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import pygame

from clients.table import config, render, sound
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
from clients.table.i18n import Translator, detect_language, next_language
from clients.table.screens import (
    UiState,
    ends_before_last_tile,
    finished_view,
    screen_for,
    seat_needing_the_device,
)
from clients.table.ui import (
    Accept,
    Answer,
    BackToLobby,
    ChooseOpener,
    ClaimRedeal,
    ClosePanel,
    Continue,
    Drag,
    Finale,
    Flight,
    HandOver,
    Hit,
    MatchSeen,
    NewMatch,
    PickTile,
    PlaceAt,
    Press,
    Screen,
    SkipLanding,
    Tap,
    Toast,
)

__all__ = ["TableApp", "Screen", "Hit", "finished_view", "ends_before_last_tile"]

# A pass stays flagged this long after it happened (seconds).
PASS_FLASH = 1.6
# The finished board stays this long (plus the last tile's flight) before the result.
LANDING_HOLD = 1.0
# While nothing moves the loop wakes this often for input and the network (seconds).
IDLE_POLL = 1 / 30


def ui_scale(window: tuple[int, int]) -> float:
    """How much bigger than the 1280×800 design the window is (1 up to 15 % more)."""
    ratio = min(window[0] / 1280, window[1] / 800)
    return 1.0 if ratio < 1.15 else min(2.0, round(ratio, 3))


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
        self._set_window_size(self.window_size)
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
        self._line_seen: list[str] | None = None  # None: nothing seen yet on this screen
        self._turns_seen = 0
        self._results_seen: int | None = None  # None: nothing seen yet
        self._deal_seen: dict[int, tuple] = {}  # seat -> (hand_no, hand) of its last deal
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
        return None if newest is None else seat_needing_the_device(newest.view, self.ui_state())

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
            {seat: state.view for seat, state in self.states.items()},
            self.ui_state(),
        )
        private = screen.kind in ("accept", "opener", "table")
        if private and screen.seat is not None and screen.seat != self.shown:
            self._show(screen.seat)
        return screen

    def _show(self, seat: int) -> None:
        self.shown = seat
        self.handoff_done = seat
        self.clear_selection()
        self._line_seen = None  # what this seat's screen shows now is not "new"
        if seat in self.states:
            self._note_changes(self.states[seat].view)

    # ------------------------------------------------------------------ the loop
    def open_window(self) -> pygame.Surface:
        render.clear_caches()
        pygame.display.set_caption(self.tr("app.title"))
        if pygame.display.get_driver() != "dummy":  # headless: any size is fine
            self._set_window_size(
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
                    self._take_hint(seat, event)
                case EventLog(_, events):
                    self.log_events = events
                case Refused(code, message):
                    self.toast(self.tr.error(code, message), error=True)
                case Status("offline"):
                    self.toast(self.tr("status.offline"), error=True)

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
        view = state.view
        results = len(view.get("results") or [])
        seen, self._results_seen = self._results_seen, results
        if seen is None or results <= seen or not view.get("last_hand"):
            if seen is not None and results < seen:
                self.match_end_seen = False  # a new match began
            return
        now = time.monotonic()
        last = view["last_hand"]
        self.finale = Finale(
            last.get("hand_no") or 0, results, now, LANDING_HOLD + self.settings.anim_ms / 1000
        )
        self.match_end_seen = False
        self.clear_selection()
        plays = [t for t in last.get("turns") or [] if t.get("type") == "play"]
        if plays and self.settings.anim_ms > 0 and plays[-1]["tile"] not in (self._line_seen or []):
            origin = render.seat_anchor(self, plays[-1]["seat"])
            self.flights[plays[-1]["tile"]] = Flight(plays[-1]["tile"], origin, now)
        self._line_seen = [item["tile"] for item in last.get("line") or []]
        self._turns_seen = len(last.get("turns") or [])
        self.sound.play("tile")

    def _note_redeal(self, state) -> None:
        """A claimed redeal gives the same hand number a new deal: say so."""
        view = state.view
        if view.get("phase") != "accept":
            return
        key = (view.get("hand_no"), tuple(view.get("hand") or ()))
        old = self._deal_seen.get(state.seat)
        self._deal_seen[state.seat] = key
        if old is not None and old[0] == key[0] and old[1] != key[1] and state.seat in self.seats:
            self.toast(self.tr("toast.redeal"))

    def _note_changes(self, view: dict) -> None:
        """Start the animations of what is new since the last view shown."""
        now = time.monotonic()
        line = [item["tile"] for item in view.get("line", [])]
        turns = view.get("turns", [])
        seen = self._line_seen
        if seen is not None and len(line) > len(seen) and set(seen) <= set(line):
            if self.settings.anim_ms > 0:
                for item in view["line"]:
                    if item["tile"] not in seen:
                        origin = render.seat_anchor(self, item.get("seat"))
                        self.flights[item["tile"]] = Flight(item["tile"], origin, now)
            self.sound.play("tile")
        if seen is not None and len(turns) > self._turns_seen:
            for turn in turns[self._turns_seen :]:
                if turn.get("type") == "pass":
                    self.pass_flash[turn["seat"]] = now
                    self.sound.play("pass")
                    if turn["seat"] == self.shown:
                        # The server passes for a seat that cannot play: tell its player.
                        self.toast(self.tr("play.pass_forced"))
        self._line_seen = line
        self._turns_seen = len(turns)

    def _take_hint(self, seat: int, event: dict | None) -> None:
        state = self.states.get(seat)
        if event is None or state is None:
            self.toast(self.tr("hint.none"))
            return
        self.hint = {"seat": seat, "version": state.version, "event": event}
        kind = event.get("type")
        if kind == "play":
            self.selected = event["tile"]
            self.chosen_end = event.get("end") or "center"
            if not state.view.get("line"):
                self.toast(self.tr("hint.open", tile=event["tile"]))
            else:
                self.toast(
                    self.tr("hint.play", tile=event["tile"], end=self.tr(f"end.{self.chosen_end}"))
                )
        elif kind == "accept":
            self.toast(self.tr("hint.accept"))
        elif kind == "claim_redeal":
            self.toast(self.tr("hint.claim"))
        elif kind == "choose_opener":
            self.toast(self.tr("hint.opener", n=event["opener"]))
        elif kind == "pass":
            self.toast(self.tr("hint.pass"))

    def send(self, seat: int | None, action: str, **fields) -> None:
        if seat is None:  # no seat of ours is on screen yet: nothing to act for
            return
        state = self.states.get(seat)
        self.conn.act(seat, action, state.version if state else None, **fields)

    def toast(self, value: str, error: bool = False, seconds: float = 3.5) -> None:
        self.toasts = [t for t in self.toasts if t.text != value][-3:]
        self.toasts.append(Toast(value, time.monotonic() + seconds, error))
        self.dirty = True

    # ------------------------------------------------------------------ moves
    def legal_plays(self, seat: int | None) -> dict[str, list[str]]:
        """tile -> the ends it may go to ("left"/"right", or "center" to open)."""
        out: dict[str, list[str]] = {}
        for event in self.view_of(seat).get("legal", []):
            if event.get("type") == "play":
                out.setdefault(event["tile"], []).append(event.get("end") or "center")
        return out

    def my_turn(self, seat: int | None) -> bool:
        view = self.view_of(seat)
        return view.get("phase") == "play" and view.get("to_act") == seat

    def clear_selection(self) -> None:
        self.selected = None
        self.chosen_end = None
        self.drag = None

    def select(self, tile: str) -> None:
        seat = self.shown
        if self.selected == tile:
            self.clear_selection()
            return
        self.selected = tile
        self.chosen_end = None
        ends = self.legal_plays(seat).get(tile, [])
        if not self.my_turn(seat):
            return
        if len(ends) == 1:  # no end: the guidance line says why, once
            self.chosen_end = ends[0]
        self.sound.play("click")

    def play(self, tile: str, end: str | None) -> bool:
        """Send the play if it is legal; otherwise explain. True when sent."""
        seat = self.shown
        ends = self.legal_plays(seat).get(tile, [])
        if not self.my_turn(seat) or not ends:
            self.toast(self.tr("play.not_legal", tile=tile), error=True)
            return False
        if end is None:
            if len(ends) > 1:
                self.toast(self.tr("play.choose_end", tile=tile))
                return False
            end = ends[0]
        if end not in ends:
            self.toast(self.tr("err.tile_does_not_fit"), error=True)
            return False
        fields = {"tile": tile} if end == "center" else {"tile": tile, "end": end}
        self.send(seat, "play", **fields)
        self.clear_selection()
        self.hint = None
        return True

    # ------------------------------------------------------------------ panels and buttons
    def open_panel(self, name: str) -> None:
        if self.panel == name:
            self.close_panel()
            return
        if self.panel:
            self.close_panel()
        self.panel = name
        self.panel_scroll = 0
        seat = self.acting_seat()
        if seat is not None and self.allowed(seat, "pause"):
            self.send(seat, "pause")
            self.panel_paused_seat = seat
        if name == "log" and seat is not None:
            self.log_events = None
            self.conn.fetch_events(seat)

    def scroll_panel(self, by: int) -> None:
        """Scroll the open panel, never past its text (the extent comes from render)."""
        self.panel_scroll = max(0, min(self.panel_scroll + by, render.panel_scroll_max(self)))

    def close_panel(self) -> None:
        self.panel = None
        seat = self.panel_paused_seat
        self.panel_paused_seat = None
        if seat is not None:
            self.conn.act(seat, "resume", None)

    def press(self, name: str) -> None:
        seat = self.acting_seat()
        if name in ("rules", "log"):
            self.open_panel(name)
        elif name == "hint":
            if seat is not None and self.view_of(seat).get("legal"):
                self.conn.hint(seat)
            else:
                self.toast(self.tr("hint.none"))
        elif name in ("undo", "redo"):
            if seat is not None and self.allowed(seat, name):
                self.send(seat, name)
            else:
                self.toast(self.tr(f"err.nothing_to_{name}"))
        elif name in ("restart_hand", "new_match"):
            if seat is not None and self.allowed(seat, name):
                self.confirm = name
            else:
                self.toast(self.tr("toast.not_allowed"))
        elif name == "lobby":
            if self.on_lobby is not None:
                self.on_lobby()
        elif name == "language":
            self.set_language(next_language(self.tr.lang))
        elif name == "sound":
            self.settings.sound = not self.settings.sound
            self.sound.enabled = self.settings.sound
            self.toast(self.tr("toast.sound_on" if self.settings.sound else "toast.sound_off"))
            self._save()
        elif name == "speed":
            speed = self.settings.next_speed()
            self.toast(self.tr("toast.speed", speed=self.tr(f"speed.{speed}")))
            self._save()

    def set_language(self, lang: str) -> None:
        self.tr = Translator(lang)
        self.settings.lang = self.tr.lang
        pygame.display.set_caption(self.tr("app.title"))
        self.toast(self.tr("lang.switched", name=self.tr("lang.name")))
        self._save()

    def _save(self) -> None:
        if self.save_settings:
            config.save(self.settings)

    # ------------------------------------------------------------------ input
    def handle_event(self, event) -> None:
        if event.type == pygame.QUIT:
            self.quit()
            return
        if event.type in (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED):
            surface = pygame.display.get_surface()
            if surface is not None:
                self.screen_surface = surface
                self._set_window_size(surface.get_size())
            return
        command = table_input.key_action(event)
        if command:
            self.command(command)
            return
        for pointer in self.pointer.feed(event):
            if self.scale != 1.0:  # window pixels -> the drawing's pixels
                pointer = replace(
                    pointer, pos=self.to_drawing(pointer.pos), start=self.to_drawing(pointer.start)
                )
            self.pointer_event(pointer)

    def to_drawing(self, pos) -> tuple[int, int]:
        return int(pos[0] / self.scale), int(pos[1] / self.scale)

    def _set_window_size(self, size) -> None:
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
        for hit in reversed(self.hits):  # drawn last = on top
            if hit.rect.collidepoint(pos):
                return hit.action
        return None

    def pointer_event(self, p: table_input.Pointer) -> None:
        if p.kind == "wheel":
            if self.panel:
                self.scroll_panel(-p.dy * 40)
            return
        if p.kind == "down":
            tap = self.hit_at(p.pos)
            if isinstance(tap, PickTile) and self.my_turn(self.shown):
                self.drag = Drag(tap.tile, p.pos)
            return
        if p.kind == "move":
            if self.drag and p.dragging:
                self.drag.active = True
                self.drag.pos = p.pos
            elif self.panel and p.dragging and p.source == "touch":
                self.scroll_panel((self.pointer.start[1] - p.pos[1]) // 8)
            return
        if p.kind == "up":
            drag, self.drag = self.drag, None
            if drag and drag.active:
                self.drop(drag.tile, p.pos)
                return
            if p.dragging:
                return
            tap = self.hit_at(p.pos)
            if tap is not None:
                self.tap(tap)

    def drop(self, tile: str, pos) -> None:
        """A tile dragged onto an end plays there (the drop is the confirmation)."""
        for hit in reversed(self.hits):
            if isinstance(hit.action, PlaceAt) and hit.rect.inflate(24, 24).collidepoint(pos):
                self.play(tile, hit.action.end)
                return
        self.selected = tile
        self.chosen_end = None

    def tap(self, tap: Tap) -> None:
        match tap:
            case PickTile(tile):
                self.select(tile)
            case PlaceAt(end):
                if self.selected:
                    self.play(self.selected, end)
            case Press(button):
                self.press(button)
            case HandOver(seat):
                self._show(seat)
            case Accept(seat):
                self.send(seat, "accept")
            case ClaimRedeal(seat):
                self.send(seat, "claim_redeal")
            case ChooseOpener(seat, opener):
                self.send(seat, "choose_opener", opener=opener)
            case SkipLanding():
                self.finale = None
            case Continue():
                self._result_seen()
            case MatchSeen():
                self.match_end_seen = True
            case BackToLobby():
                if self.on_lobby is not None:
                    self.on_lobby()
            case ClosePanel():
                self.close_panel()
            case Answer(yes):
                self._answer(yes)
            case NewMatch():
                self.press("new_match")

    def _result_seen(self) -> None:
        newest = self.newest
        self.revealed_upto = len(newest.view.get("results") or []) if newest else 0
        self.finale = None
        if len(self.seats) > 1:
            # Pass-and-play: the reveal was for everyone; the next private screen,
            # whoever's it is, starts with a hand-off.
            self.shown = self.handoff_done = None

    def _answer(self, yes: bool) -> None:
        """The restart / new game question was answered."""
        what, self.confirm = self.confirm, None
        seat = self.acting_seat()
        if yes and what and seat is not None:
            self.send(seat, what)
            if what == "new_match":
                self.revealed_upto = self._results_seen = None
                self.finale = None
                self.match_end_seen = True

    def command(self, name: str) -> None:
        """A keyboard command (``input.KEYS``), meaning what the current screen offers."""
        if name == "quit":
            self.quit()
            return
        screen = self.decide()
        if self.confirm:
            if name in ("confirm", "cancel"):
                self._answer(name == "confirm")
            return
        if self.panel:
            if name == "cancel":
                self.close_panel()
            elif name in ("rules", "log"):
                self.open_panel(name)  # the same key closes, the other switches
            elif name == "page_down" or name == "end_right":
                self.scroll_panel(200 if name == "page_down" else 40)
            elif name == "page_up" or name == "end_left":
                self.scroll_panel(-(200 if name == "page_up" else 40))
            return
        if screen.kind == "handoff":
            if name == "confirm" and screen.seat is not None:
                self._show(screen.seat)
            return
        if screen.kind == "landing":
            if name in ("confirm", "cancel"):
                self.tap(SkipLanding())
            elif name in ("rules", "log"):
                self.open_panel(name)
            return
        if screen.kind == "reveal":
            if name in ("confirm", "cancel"):
                self.tap(Continue())
            elif name in ("rules", "log"):
                self.open_panel(name)
            return
        if screen.kind == "match_over":
            if name in ("confirm", "cancel"):
                self.tap(MatchSeen())
            elif name in ("rules", "log", "language"):
                self.press(name)
            return
        if screen.kind == "accept":
            if name in ("accept", "confirm"):
                self.send(screen.seat, "accept")
                return
            if name == "claim_redeal" and self.view_of(screen.seat).get("can_claim_redeal"):
                self.send(screen.seat, "claim_redeal")
                return
        if screen.kind == "opener" and name in ("choose_1", "choose_2"):
            view = self.view_of(screen.seat)
            opener = screen.seat if name == "choose_1" else view.get("partner")
            self.send(screen.seat, "choose_opener", opener=opener)
            return
        if name in ("select_prev", "select_next"):
            self._step_selection(-1 if name == "select_prev" else 1)
        elif name in ("end_left", "end_right"):
            self.chosen_end = "left" if name == "end_left" else "right"
            if self.selected and self.chosen_end not in self.legal_plays(self.shown).get(
                self.selected, []
            ):
                ends = self.legal_plays(self.shown).get(self.selected, [])
                self.chosen_end = ends[0] if len(ends) == 1 else None
        elif name == "confirm":
            if self.selected:
                self.play(self.selected, self.chosen_end)
        elif name == "cancel":
            self.clear_selection()
        elif name in ("hint", "undo", "redo", "rules", "log", "language", "sound", "speed"):
            self.press(name)

    def _step_selection(self, step: int) -> None:
        hand = self.view_of(self.shown).get("hand", [])
        if not hand:
            return
        if self.selected in hand:
            index = (hand.index(self.selected) + step) % len(hand)
        else:
            legal = [t for t in hand if t in self.legal_plays(self.shown)]
            index = hand.index(legal[0]) if legal else (0 if step > 0 else len(hand) - 1)
        self.selected = None
        self.select(hand[index])
