"""The one window of the desktop app: opened resizable, and never smaller than the
smallest size the table is usable in (``config.MIN_WINDOW``, or the display's size when
that is smaller): the window manager is told the minimum, so a drag stops there."""

from __future__ import annotations

import warnings

import pygame

from clients.table import config


def open_window(size: tuple[int, int]) -> pygame.Surface:
    """The window at ``size``, held at its minimum (headless, SDL's dummy driver: any
    size is fine, as for ``config.fit_to_display``: the tests draw small windows too)."""
    surface = pygame.display.set_mode(size, pygame.RESIZABLE)
    if pygame.display.get_driver() != "dummy":
        hold_minimum()
        surface = pygame.display.get_surface() or surface  # made bigger to the minimum
    return surface


def hold_minimum() -> tuple[int, int] | None:
    """Tell the window manager the window's minimum size; the size held (None: this
    pygame cannot say it, and the window keeps the size it is given)."""
    minimum = config.minimum_window(pygame.display.get_desktop_sizes())
    try:
        with warnings.catch_warnings():
            # pygame-ce warns against drawing through a ``Window`` made from the display
            # module's window; it is only told its minimum size here, never drawn on.
            warnings.simplefilter("ignore", DeprecationWarning)
            window = pygame.Window.from_display_module()
        window.minimum_size = minimum
    except (AttributeError, pygame.error):
        return None
    return minimum
