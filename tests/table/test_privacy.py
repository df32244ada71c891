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
