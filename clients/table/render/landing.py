"""The hand's last tile lands on the finished board; the result follows (a tap: now)."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.render.frame import Hits, table_layout
from clients.table.render.results import banner_colour, result_banner, why_line
from clients.table.ui import SkipLanding


def draw_landing(view: TableView, surface: pygame.Surface, hits: Hits) -> None:
    hits.modal()
    tr = view.tr
    newest = view.newest
    last = (newest.view.get("last_hand") if newest else None) or {}
    layout = table_layout(view)
    lines = [result_banner(tr, last)]
    why = why_line(tr, last)
    if why:
        lines.append(why)
    # In the hand's place (empty now), so the whole finished line stays in sight.
    strip = pygame.Rect(
        layout.hand.x + 12,
        layout.hand.y + 8,
        layout.hand.w - 24,
        min(layout.hand.h - 16, 34 + 24 * (len(lines) - 1)),
    )
    pygame.draw.rect(surface, banner_colour(last), strip, border_radius=10)
    y = strip.y + 4
    for i, value in enumerate(lines):
        d.text(
            surface,
            value,
            (strip.centerx, y),
            20 if i == 0 else 15,
            d.WHITE if i == 0 else d.INK,
            bold=(i == 0),
            anchor="midtop",
            within=strip.inflate(-16, 0),
        )
        y += 26 if i == 0 else 22
    d.text(
        surface,
        tr("landing.tap"),
        layout.message.center,
        16,
        d.WHITE,
        anchor="center",
        within=layout.message,
    )
    hits.add(surface.get_rect(), SkipLanding())
