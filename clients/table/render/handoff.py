"""Pass-and-play: the device goes to another seat. Nothing private on screen, no tile at
all, until the tap."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.render.frame import Hits
from clients.table.ui import HandOver


def draw_handoff(view: TableView, surface: pygame.Surface, hits: Hits, seat: int) -> None:
    tr = view.tr
    w, h = surface.get_size()
    surface.fill(d.HANDOFF)
    within = surface.get_rect().inflate(-40, 0)
    d.text(
        surface,
        tr("handoff.title", n=seat),
        (w // 2, h // 2 - 70),
        40,
        d.WHITE,
        bold=True,
        within=within,
        anchor="center",
    )
    d.text(
        surface,
        tr("handoff.private"),
        (w // 2, h // 2 - 20),
        20,
        d.SOFT,
        anchor="center",
        within=within,
    )
    ready = pygame.Rect(0, 0, min(w - 40, 460), 72)
    ready.center = (w // 2, h // 2 + 60)
    # Dimmed, and deaf, until it has been on display a moment (``guard.py``): a double
    # press or a queued tap meant for the screen before must not pass it.
    armed = view.guard.armed(seat)
    d.button(surface, ready, tr("btn.ready", n=seat), armed, size=22)
    d.text(
        surface,
        tr("handoff.tap"),
        (w // 2, ready.bottom + 24),
        18,
        d.SOFT,
        anchor="center",
        within=within,
    )
    if armed:
        hits.add(surface.get_rect(), HandOver(seat))
