"""Pass-and-play privacy across a hand-off (issue 24): nothing of the previous seat's
private screen — the hint and its toast, the selection and its ghosts, a dragged tile,
an error toast naming a tile, the log panel with its own deal, a late hint or refusal —
reaches the hand-off screen or the next seat's screen.

Engine folds stand in for the server (``EngineTable``); every private element is made
through the client's own input (keys, taps, a mouse drag), then the table moves on to
the other human seat and every drawn text and the client's state are walked."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.table import draw as d
from clients.table.connection import EventLog, HintAnswer, Refused
from clients.table.ui import HandOver, PickTile
from tests.table.driver import ivory_pixels
from tests.table.test_table_offline import app_for, match_where, tap


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


@pytest.fixture
def drawn(monkeypatch):
    """Every text drawn from now on."""
    seen: list[str] = []
    real = d.text

    def recording(surface, value, *args, **kwargs):
        seen.append(str(value))
        return real(surface, value, *args, **kwargs)

    monkeypatch.setattr(d, "text", recording)
    return seen


def _key(app, key, mod=0):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode="", scancode=0))
    return app.tick()


def _mouse(app, kind, pos):
    if kind == "move":
        event = pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(1, 0, 0))
    else:
        event = pygame.event.Event(kind, pos=pos, button=1)
    pygame.event.post(event)
    return app.tick()


def _seat_one_holds_two_legal_tiles_and_seat_two_can_play(m) -> bool:
    if m.phase != "play" or m.to_act != 1 or not m.seat_view(1)["line"]:
        return False
    tiles = {e["tile"] for e in m.legal_events(1) if e["type"] == "play"}
    counts = m.seat_view(1)["tile_counts"]
    return len(tiles) >= 2 and len(m.seat_view(1)["hand"]) >= 4 and counts["2"] >= 2


def _private_texts(texts: list[str], tiles: list[str], secrets: list[str]) -> list[str]:
    """Drawn texts that name one of ``tiles`` or say one of ``secrets`` (toasts)."""
    return [t for t in texts if t in secrets or any(tile in t for tile in tiles)]


def test_nothing_private_survives_a_hand_off(drawn):
    m = match_where(_seat_one_holds_two_legal_tiles_and_seat_two_can_play)
    app, conn = app_for(m, [1, 3])
    if app.tick([]).kind == "handoff":
        tap(app, HandOver(1))
    assert app.decide().kind == "table" and app.seating.shown == 1
    hand = list(conn.match.seat_view(1)["hand"])

    # --- seat 1 fills its private screen through its own input
    _key(app, pygame.K_h)  # the hint: the engine's first legal play, selected, toasted
    app.tick([])  # its answer
    hinted = app.selection.tile
    secrets = [t.text for t in app.effects.toasts]
    assert hinted and any(hinted in t for t in secrets), secrets
    legal = app.legal_plays(1)
    other = next(t for t in sorted(legal) if t != hinted)
    illegal = next((t for t in hand if t not in legal), None)
    if illegal is not None:  # Enter on a tile that cannot go: a toast naming it
        tap(app, PickTile(illegal))
        _key(app, pygame.K_RETURN)
        secrets += [t.text for t in app.effects.toasts]
    _key(app, pygame.K_l)  # the log panel, with seat 1's own deal in it
    deal = {"type": "deal", "hands": {"1": hand, "2": None, "3": None, "4": None}}
    conn.updates.put(EventLog(1, [{"seq": 2, "type": "deal", "seat": None, "event": deal}]))
    app.tick([])
    assert app.panel.name == "log" and app.panel.log_events
    _key(app, pygame.K_l)  # closed again (the computers resume)
    tap(app, PickTile(other))  # seat 1 picks another tile...
    grabbed = next(t for t in hand if t not in (other, hinted))
    start = next(h.rect.center for h in app.hits if h.action == PickTile(grabbed))
    _mouse(app, pygame.MOUSEBUTTONDOWN, start)  # ...holds a third one in a drag...
    _mouse(app, "move", (start[0], start[1] - 120))
    assert app.selection.drag is not None and app.selection.drag.active
    _key(app, pygame.K_l)  # ...opens the log again...
    assert app.panel.name == "log"
    _key(app, pygame.K_l)
    if app.selection.end is None:  # ...and plays the picked tile with the keyboard
        _key(app, pygame.K_UP if "left" in legal[other] else pygame.K_DOWN)
    _key(app, pygame.K_RETURN)
    assert other not in conn.match.seat_view(1)["hand"], "seat 1 played another tile"
    still_held = list(conn.match.seat_view(1)["hand"])
    assert hinted in still_held

    # --- seat 2 (not on this device) plays; seat 3, on this device, is next
    if conn.match.phase == "play" and conn.match.to_act == 2:
        event = conn.match.legal_events(2)[0]
        conn.act(2, event["type"], **{k: v for k, v in event.items() if k not in ("seat", "type")})
    assert conn.match.phase == "play" and conn.match.to_act == 3
    # a late hint and a late refusal for seat 1 arrive while the device changes hands
    conn.updates.put(HintAnswer(1, {"type": "play", "seat": 1, "tile": hinted, "end": "left"}))
    conn.updates.put(Refused("tile_not_in_hand", f"tile {hinted} is not in seat 1's hand"))
    drawn.clear()
    screen = app.tick([])
    assert (screen.kind, screen.seat) == ("handoff", 3)
    for _ in range(3):
        app.tick([])
    assert ivory_pixels(app.window.surface) == 0
    assert _private_texts(drawn, still_held, secrets) == [], "the hand-off shows seat 1's"
    assert [t.text for t in app.effects.toasts if t.text in secrets or hinted in t.text] == []
    assert (app.selection.tile, app.selection.end, app.selection.drag, app.selection.hint) == (
        None,
        None,
        None,
        None,
    )
    assert app.panel.name is None and app.panel.log_events is None

    # --- seat 3 takes the device: its own screen, nothing of seat 1's
    drawn.clear()
    tap(app, HandOver(3))
    screen = app.tick([])
    assert (screen.kind, screen.seat) == ("table", 3)
    assert _private_texts(drawn, still_held, secrets) == [], "seat 3's screen shows seat 1's"
    drawn_tiles = sorted(h.action.tile for h in app.hits if isinstance(h.action, PickTile))
    assert drawn_tiles == sorted(conn.match.seat_view(3)["hand"])
    assert (app.selection.tile, app.selection.end, app.selection.drag, app.selection.hint) == (
        None,
        None,
        None,
        None,
    )


# ---------------------------------------------------------------------- input given early
class Clock:
    """The hand-off guard's clock, moved by the test (how long a person took)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _enter_down_up() -> list:
    return [
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0),
        pygame.event.Event(pygame.KEYUP, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0),
    ]


def _guarded_app(seats):
    """Pass-and-play at a fresh deal, the hand-off guard on a test clock (armed after
    ``HANDOFF_ARM`` seconds, as for a person)."""
    from clients.table.guard import HandoffGuard

    m = match_where(lambda m: m.phase == "accept")
    app, conn = app_for(m, seats)
    clock = Clock()
    app.guard = HandoffGuard(clock)  # armed after HANDOFF_ARM, as for a person
    screen = app.tick([])
    assert (screen.kind, screen.seat) == ("handoff", seats[0])
    clock.now += 5  # seat 1's player reads the hand-off and takes the device
    app.tick(_enter_down_up())
    assert (app.tick([]).kind, app.seating.shown) == ("accept", seats[0])
    return app, conn, clock


def _tiles_on_screen(app) -> bool:
    """Is any tile face on this frame (a hand: no tile is on the line at a deal)?"""
    return ivory_pixels(app.window.surface) > 0


def _accepted(conn, seat) -> bool:
    return any(e["type"] == "accept" and e["seat"] == seat for e in conn.sent)


def test_a_double_enter_in_consecutive_frames_never_passes_the_next_hand_off():
    """Issue 34: "Seat 1: your new hand", Enter twice 80 ms apart. The first accepts;
    the second, and a key held down, and a tap queued meanwhile, must not pass seat 2's
    hand-off: seat 2's hand is never drawn for seat 1."""
    app, conn, clock = _guarded_app([1, 2])
    app.tick(_enter_down_up())  # frame 1: seat 1 accepts its hand
    assert _accepted(conn, 1)
    clock.now += 0.04
    screen = app.tick(_enter_down_up())  # frame 2: the answer came; the second Enter
    assert (screen.kind, screen.seat) == ("handoff", 2)
    assert ivory_pixels(app.window.surface) == 0 and app.seating.shown == 1
    clock.now += 0.04  # 80 ms after the first press: the hand-off is on display now
    down = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="", scancode=0)
    screen = app.tick([down])  # a third press, held down
    assert (screen.kind, screen.seat) == ("handoff", 2), "a press 80 ms after passed it"
    press = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(640, 400), button=1)
    app.tick([press])  # a tap begun before the hand-off could be read
    clock.now += 5
    for _ in range(3):  # the held key repeats; the early tap is released
        screen = app.tick([down])
    screen = app.tick([pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(640, 400), button=1)])
    assert (screen.kind, screen.seat) == ("handoff", 2), "a held key or an early tap passed it"
    assert ivory_pixels(app.window.surface) == 0
    assert not _tiles_on_screen(app) and not _accepted(conn, 2)
    # Seat 2's player, a moment later, presses Enter: now it is theirs.
    app.tick([pygame.event.Event(pygame.KEYUP, key=pygame.K_RETURN, mod=0)])
    screen = app.tick(_enter_down_up())
    assert (screen.kind, screen.seat) == ("accept", 2)
    assert _tiles_on_screen(app) and not _accepted(conn, 2)


def test_two_enter_presses_in_one_frame_act_only_on_the_screen_on_display():
    """Two presses in one frame: the first acts on what was drawn, the second meets a
    screen the player never saw and does nothing — neither the next seat's hand-off is
    passed nor a deal accepted unseen."""
    app, conn, clock = _guarded_app([1, 2])
    app.tick(_enter_down_up())  # seat 1 accepts...
    clock.now += 0.08
    screen = app.tick(_enter_down_up() + _enter_down_up())  # ...the answer, two presses
    assert (screen.kind, screen.seat) == ("handoff", 2)
    assert ivory_pixels(app.window.surface) == 0 and not _tiles_on_screen(app)

    # From an armed hand-off: one press passes it, the second in the same frame would
    # accept a hand that was never on screen.
    clock.now += 5
    screen = app.tick(_enter_down_up() + _enter_down_up())
    assert (screen.kind, screen.seat) == ("accept", 2)
    assert not _accepted(conn, 2), "a deal was accepted before it was drawn"
    clock.now += 1
    app.tick(_enter_down_up())
    assert _accepted(conn, 2)


def test_the_hand_off_button_is_dimmed_and_deaf_until_armed():
    app, conn, clock = _guarded_app([1, 3])
    app.tick(_enter_down_up())  # seat 1 accepts; seat 3's hand-off comes
    screen = app.tick([])
    assert (screen.kind, screen.seat) == ("handoff", 3)
    assert not any(isinstance(h.action, HandOver) for h in app.hits)
    assert app.animating(), "frames keep coming until the button comes alive"
    clock.now += 1
    app.tick([])
    assert any(h.action == HandOver(3) for h in app.hits) and not app.animating()
    tap(app, HandOver(3))  # a tap whose press began after it was armed
    assert app.tick([]).kind == "accept" and app.seating.shown == 3
