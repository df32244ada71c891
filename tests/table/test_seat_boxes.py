"""What the seat boxes carry (issue 34, point 3): the owner's Replace button of an open
seat (or one whose person is away) is drawn where it can be seen and tapped — not under
the board or the hand — at every window size, for every position around the table."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.table import draw as d
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import Ready
from clients.table.render.frame import table_layout
from clients.table.render.table import line_layout
from clients.table.ui import ReplaceSeat
from tests.table.answers import Answers

OPEN = {"kind": "human", "player": None, "is_bot": False}
ANN = {"kind": "human", "player": "ann", "is_bot": False}
HOUSE = {"kind": "bot", "player": "house", "is_bot": True}
# An open seat goes to a computer seated at the table: one at seat 2 or at seat 4, the
# open seats on the other sides (right = 2, top = 3, left = 4 from seat 1).
TABLES = {
    "computer on the right": ({"1": ANN, "2": HOUSE, "3": OPEN, "4": OPEN}, [3, 4]),
    "computer on the left": ({"1": ANN, "2": OPEN, "3": OPEN, "4": HOUSE}, [2, 3]),
}


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


def _owner_app(size, seats):
    link = Answers()
    link.updates.put(Ready("ann", (1,), None))
    link.answer(seats)
    pygame.init()
    app = TableApp(link, Settings(lang="en", scale="100"), size=size, save_settings=False)
    app.open_window()
    app.tick([])
    return app


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("size", [(1280, 800), (1024, 768), (800, 600), (480, 360)])
def test_the_replace_button_of_every_open_seat_is_on_top_and_in_sight(size, table):
    seats, replaceable = TABLES[table]
    app = _owner_app(size, seats)
    surface = app.window.surface
    layout = table_layout(app)
    buttons = {h.action.seat: h.rect for h in app.hits if isinstance(h.action, ReplaceSeat)}
    assert sorted(buttons) == replaceable
    for seat, hit in buttons.items():
        button = hit.inflate(0, -(hit.h - 34)) if hit.h > 34 else hit
        assert surface.get_rect().contains(button), (seat, button)
        # Its face shows at both ends of the label (the board, the hand or a box drawn
        # after it would cover it with their own colours).
        for x in (button.x + 8, button.right - 9):
            assert surface.get_at((x, button.centery))[:3] == d.BUTTON, (seat, size, x)
        assert not button.colliderect(layout.hand) and not button.colliderect(layout.toolbar)
        placed = line_layout(layout, app.view_of(1))
        for item in [*placed.tiles, *placed.targets.values()]:
            assert not button.colliderect(item.rect), (seat, size, "over the line")
