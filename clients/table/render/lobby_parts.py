"""What the lobby's two pages (``lobby.py``: sign-in and home; ``league.py``: the league
page) draw alike: the frame's tap targets, buttons, text fields, the status line. Both
import this module; ``league.py`` never imports ``lobby.py`` (which draws the league
page through it), so the three make no cycle."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import LobbyView
from clients.table.ui import FocusField, Hit, LobbyTap

ROW_H = 52
GAP = 12
Colour = tuple[int, ...]


class Frame:
    def __init__(self) -> None:
        self.hits: list[Hit[LobbyTap]] = []

    def hit(self, rect: pygame.Rect, action: LobbyTap) -> None:
        self.hits.append(Hit(pygame.Rect(rect), action))


def lobby_button(
    surface: pygame.Surface,
    frame: Frame,
    rect: pygame.Rect,
    label: str,
    action: LobbyTap,
    enabled: bool = True,
    size: int = 17,
) -> None:
    d.button(surface, rect, label, enabled, size=size)
    if enabled:
        frame.hit(rect, action)


def text_field(
    lobby: LobbyView,
    surface: pygame.Surface,
    frame: Frame,
    rect: pygame.Rect,
    name: str,
    label: str,
) -> None:
    field = lobby.fields[name]
    d.text(surface, label, (rect.x, rect.y - 20), 15, d.WHITE, within=rect)
    focused = lobby.focus == name
    pygame.draw.rect(surface, d.PANEL, rect, border_radius=8)
    pygame.draw.rect(
        surface, d.GOLD if focused else d.MUTED, rect, width=3 if focused else 1, border_radius=8
    )
    shown = field.shown()
    inner = rect.inflate(-20, 0)
    # the end of a long value stays in sight (that is where one types)
    value, size = d.fit(shown, inner.w, 18)
    if value != shown:
        value = shown
        while value and d.text_width("…" + value, 18) > inner.w:
            value = value[1:]
        value, size = "…" + value, 18
    drawn = d.text(
        surface, value, (inner.x, rect.centery), size, d.INK, anchor="midleft", within=inner
    )
    if focused:  # a steady caret: a blinking one would keep redrawing
        pygame.draw.line(
            surface,
            d.INK,
            (min(inner.right, drawn.right + 2), rect.y + 10),
            (min(inner.right, drawn.right + 2), rect.bottom - 10),
            2,
        )
    frame.hit(rect, FocusField(name))


def status_line(lobby: LobbyView) -> tuple[str, Colour] | None:
    if lobby.status == "offline":
        return lobby.tr("lobby.offline"), (255, 170, 160)
    if lobby.busy:
        return lobby.tr("lobby.connecting"), d.SOFT
    return None
