"""What every table screen shares: the frame's tap targets (``Hits``), the table's
layout at the drawing's size, a dialog over a veil, a row of buttons, the toasts."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pygame

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.context import TableView
from clients.table.ui import Hit, Press, Tap

TOAST_STRIP = 52  # px at the bottom kept for toasts while a dialog or panel is up

# The toolbar, left to right (Leave at a casual table; Lobby when a lobby opened it).
BUTTONS = (
    "hint",
    "undo",
    "redo",
    "restart_hand",
    "new_match",
    "rules",
    "log",
    "settings",
)
# A spectator's toolbar (``watch.py``): nothing that acts for a seat or reads one's log.
WATCH_BUTTONS = ("rules", "settings", "language")


class Hits:
    """The tap targets of one frame (topmost last), collected by the drawing functions it
    is handed to: ``draw`` makes one per frame and returns what it gathered."""

    def __init__(self) -> None:
        self.items: list[Hit[Tap]] = []

    def add(self, rect: pygame.Rect | Sequence[int], tap: Tap) -> None:
        self.items.append(Hit(pygame.Rect(rect), tap))

    def keep(self, keep: Callable[[Hit[Tap]], bool]) -> None:
        self.items = [h for h in self.items if keep(h)]

    def modal(self) -> None:
        """What is drawn next covers the table: keep only the toolbar tappable."""
        self.keep(lambda h: isinstance(h.action, Press))

    def clear(self) -> None:
        self.items = []


def buttons(view: TableView) -> tuple[str, ...]:
    """The toolbar: a Lobby button too when a lobby opened this table; a spectator's
    offers only what reads nothing of a seat."""
    own = WATCH_BUTTONS if view.seating.watching else BUTTONS
    newest = view.newest
    casual = newest is not None and newest.table is not None and not newest.table.rated
    leave = ("leave",) if casual and not view.seating.watching and view.seating.seats else ()
    return own + leave + (("lobby",) if view.on_lobby is not None else ())


def table_layout(view: TableView) -> lay.TableLayout:
    return lay.layout_table(view.window.size[0], view.window.size[1], len(buttons(view)))


def seat_anchor(view: TableView, seat: int | None) -> tuple[int, int]:
    """Where a tile played by ``seat`` comes from on the viewer's screen."""
    layout = table_layout(view)
    shown = view.seating.shown
    if seat is None or shown is None:
        return layout.board.center
    position = lay.seat_position(shown, seat)
    if position == "bottom":
        return layout.hand.center
    return layout.seats[position].center


def centre_message(surface: pygame.Surface, value: str) -> None:
    w, h = surface.get_size()
    d.text(
        surface,
        value,
        (w // 2, h // 2),
        28,
        d.WHITE,
        bold=True,
        anchor="center",
        within=surface.get_rect().inflate(-24, 0),
    )


def dialog(surface: pygame.Surface, width: int, height: int) -> pygame.Rect:
    """A centred dialog over a veil; it leaves the toast strip at the bottom free."""
    w, h = surface.get_size()
    box = pygame.Rect(0, 0, min(width, w - 24), min(height, h - TOAST_STRIP - 12))
    box.center = (w // 2, h // 2)
    if box.bottom > h - TOAST_STRIP:
        box.bottom = h - TOAST_STRIP
    veil = pygame.Surface((w, h), pygame.SRCALPHA)
    veil.fill((0, 0, 0, 140))
    surface.blit(veil, (0, 0))
    pygame.draw.rect(surface, d.PANEL, box, border_radius=14)
    pygame.draw.rect(surface, d.GOLD, box, width=2, border_radius=14)
    return box


def button_row(
    surface: pygame.Surface, hits: Hits, area: pygame.Rect, items: list[tuple[str, Tap]]
) -> None:
    """Buttons centred in ``area`` (stacked when they do not fit side by side)."""
    rects = lay.centered_buttons(area, [d.text_width(label, 18, True) for label, _ in items])
    for (label, action), rect in zip(items, rects, strict=False):
        d.button(surface, rect, label, size=18)
        hits.add(rect, action)


def draw_toasts(view: TableView, surface: pygame.Surface, modal: bool = False) -> None:
    """Toasts sit above the guidance line; over a dialog or a panel only the newest one,
    in the strip at the bottom, so it never covers their text. Only what anyone may see
    and the private screen's own are drawn (never another seat's)."""
    now = time.monotonic()
    shown = view.seating.shown
    live = [t for t in view.effects.toasts if t.until > now and t.seat in (None, shown)]
    w, h = surface.get_size()
    if modal:
        live, y = live[-1:], h - 8
    else:
        y = table_layout(view).message.y - 8
    for toast in reversed(live):
        value, size = d.fit(toast.text, w - 80, 17)
        width = d.text_width(value, size) + 32
        rect = pygame.Rect(0, 0, width, size + 18)
        rect.midbottom = (w // 2, y)
        pygame.draw.rect(surface, d.DANGER if toast.error else d.TOAST, rect, border_radius=10)
        d.text(surface, value, rect.center, size, d.WHITE, anchor="center")
        y = rect.top - 6
