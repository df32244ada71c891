"""A played tile until the server answers: it is on its way — lifted out of the hand,
faint, not pickable, the guidance line saying so — and no second action goes for it
(a second play at the same version was sent with a new key and refused as
``stale_version``: "The table moved on" after a play that had gone through). The
server's answer takes it out of the hand; a refusal brings it back. The seat view stays
the truth: the hand is the server's until then, nothing is taken out of it here."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import NewState, Refused
from clients.table.render.table import guidance
from clients.table.ui import PickTile, PlaceAt
from tests.table.test_table_offline import EngineTable, match_where, tap


class HeldTable(EngineTable):
    """The engine as the server, but an action waits for ``answer()`` (or ``refuse()``)
    as a slow network would hold it; ``busy`` is set meanwhile, like ``Connection``'s."""

    def __init__(self, match, seats):
        super().__init__(match, seats)
        self.held: list[tuple] = []

    def act(self, seat, type_, version=None, **fields):
        self.busy.set()
        self.held.append((seat, type_, version, fields))

    def answer(self):
        seat, type_, version, fields = self.held.pop(0)
        super().act(seat, type_, version, **fields)
        self.busy.clear()

    def refuse(self, code):
        seat, *_ = self.held.pop(0)
        self.updates.put(Refused(code, "", seat))
        self.busy.clear()


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


def _my_turn_to_play():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and len(m.seat_view(1)["line"]) >= 1
            and len({e["tile"] for e in m.legal_events(1)}) >= 2
        ),
        seats={"1": "human", "2": "bot", "3": "human", "4": "bot"},
    )
    pygame.init()
    conn = HeldTable(m, [1])
    app = TableApp(conn, Settings(lang="en", speed="instant"), save_settings=False)
    app.open_window()
    app.tick([])
    return app, conn


def _play(app, tile):
    ends = app.legal_plays(1)[tile]
    tap(app, PickTile(tile))
    tap(app, PlaceAt(ends[0]))
    return ends[0]


def _pickable(app) -> set[str]:
    return {h.action.tile for h in app.hits if isinstance(h.action, PickTile)}


def test_a_played_tile_is_on_its_way_and_not_sent_twice():
    app, conn = _my_turn_to_play()
    tile = sorted(app.legal_plays(1))[0]
    other = sorted(app.legal_plays(1))[1]
    end = _play(app, tile)
    app.tick([])
    assert [h[1] for h in conn.held] == ["play"]
    # The server has not answered: its view still has the tile in the hand...
    assert tile in app.seating.states[1].view["hand"]
    # ...and the screen shows it on its way: nothing of the hand is picked meanwhile.
    assert _pickable(app) == set()
    assert guidance(app, app.seating.states[1].view, 1) == f"Playing {tile}…"
    app.select(tile)
    assert app.selection.tile is None
    assert app.play(tile, end) is False and app.play(other, None) is False
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
    app.tick()
    assert len(conn.held) == 1 and len(conn.sent) == 0, "one play per decision"
    # The answer: the tile leaves the hand (the server's view), the mark goes with it.
    conn.answer()
    app.tick([])
    assert tile not in app.seating.states[1].view["hand"]
    assert app.seating.sent == {}
    assert [e["tile"] for e in conn.sent if e["type"] == "play"] == [tile]
    assert not any(t.error for t in app.effects.toasts), [t.text for t in app.effects.toasts]


def test_a_refused_play_brings_its_tile_back():
    app, conn = _my_turn_to_play()
    tile = sorted(app.legal_plays(1))[0]
    _play(app, tile)
    app.tick([])
    assert _pickable(app) == set()
    conn.refuse("not_your_turn")
    app.tick([])
    assert app.seating.sent == {}
    assert tile in _pickable(app), "the refusal brings the tile back"
    assert any(t.error for t in app.effects.toasts)
    _play(app, tile)  # and it may be played again
    assert len(conn.held) == 1


def test_a_newer_view_while_the_play_is_sent_again_keeps_it_on_its_way():
    """``Connection`` sends a play again at a newer version when the table moved for
    reasons that do not touch it (a pause): that view still has the tile in the hand;
    it stays on its way until the link has nothing more on its way."""
    app, conn = _my_turn_to_play()
    tile = sorted(app.legal_plays(1))[0]
    _play(app, tile)
    app.tick([])
    state = app.seating.states[1]
    newer = type(state)(**{**state.__dict__, "version": state.version + 1})
    conn.updates.put(NewState(newer))
    app.tick([])
    assert app.seating.sent and _pickable(app) == set()
    conn.busy.clear()  # the link gave up without a word (nothing is left on its way)
    app.tick([])
    assert app.seating.sent == {} and tile in _pickable(app)
