"""The smallest window (``config.MIN_WINDOW``): the table is usable there — the line of
play's tiles big enough to read (at 480×360 they were 5 px across, the line a few
pixels high) — and the window cannot be made smaller, unless the display is."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.table import config, window
from clients.table.layout import board_unit

READABLE = 12  # px: a tile's short side on the line, its pips still told apart


@pytest.fixture(autouse=True)
def _pygame():
    pygame.init()
    yield
    pygame.quit()


def test_the_smallest_window_shows_the_line_of_play_readable():
    assert board_unit(config.MIN_WINDOW) >= READABLE, config.MIN_WINDOW
    w, h = config.MIN_WINDOW
    assert w * 3 == h * 4, "4:3, the shape of the smallest screens"


def _window() -> pygame.Window:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pygame.Window.from_display_module()


def test_the_window_cannot_be_made_smaller_than_the_minimum(monkeypatch):
    # headless windows may be any size (the tests draw small ones): a real driver's is held
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "x11")
    assert pygame.display.get_desktop_sizes()[0][1] - 60 >= config.MIN_WINDOW[1]
    surface = window.open_window((1280, 800))
    assert surface.get_size() == (1280, 800)
    _window().size = (480, 360)  # the player drags the corner in
    assert tuple(_window().size) == config.MIN_WINDOW
    assert pygame.display.get_surface().get_size() == config.MIN_WINDOW
    # a size remembered smaller opens at the minimum
    assert window.open_window((480, 360)).get_size() == config.MIN_WINDOW


@pytest.mark.parametrize(
    "desktops, minimum",
    [
        ([(1920, 1080)], (720, 540)),
        ([], (720, 540)),
        ([(800, 480)], (720, 420)),  # a 7" screen: the window still fits on it
        ([(640, 480)], (640, 420)),
    ],
)
def test_the_minimum_is_the_display_s_when_the_display_is_smaller(desktops, minimum):
    assert config.minimum_window(desktops) == minimum
    assert config.fit_to_display((100, 100), desktops) == minimum
