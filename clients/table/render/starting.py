"""``make play``: the window is open at once; this screen shows the embedded server and
the computer players starting behind it, step by step, until the deal arrives."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.render.frame import Hits, dialog
from clients.table.state import STARTUP_STEPS
from clients.table.ui import Press


def draw_starting(view: TableView, surface: pygame.Surface, hits: Hits) -> None:
    tr = view.tr
    startup = view.startup
    box = dialog(surface, 620, 330)
    within = box.inflate(-40, 0)
    d.text(
        surface,
        tr("start.title"),
        (box.centerx, box.y + 22),
        26,
        d.INK,
        bold=True,
        anchor="midtop",
        within=within,
    )
    y = box.y + 80
    for step in STARTUP_STEPS:
        if startup is not None and startup.done(step):
            mark, colour, bold = "✓", d.INK, False
        elif startup is not None and startup.step == step and not startup.failed:
            mark, colour, bold = "▶", d.INK, True
        else:
            mark, colour, bold = "·", d.MUTED, False
        d.text(
            surface,
            f"{mark}  {tr('start.' + step)}",
            (box.x + 40, y),
            19,
            colour,
            bold=bold,
            within=within,
        )
        y += 40
    if startup is not None and startup.failed:
        d.text(
            surface,
            tr("start.failed", message=startup.failed),
            (box.centerx, y + 6),
            15,
            d.DANGER,
            anchor="midtop",
            wrap=within.w,
        )
    else:
        bar = pygame.Rect(box.x + 40, y + 14, box.w - 80, 10)
        pygame.draw.rect(surface, d.ROW, bar, border_radius=5)
        done = sum(1 for s in STARTUP_STEPS if startup is not None and startup.done(s))
        filled = bar.copy()
        filled.width = max(10, bar.w * (done + 1) // (len(STARTUP_STEPS) + 1))
        pygame.draw.rect(surface, d.GOLD, filled, border_radius=5)
    quit_button = pygame.Rect(0, 0, 200, 48)
    quit_button.midbottom = (box.centerx, box.bottom - 14)
    d.button(surface, quit_button, tr("btn.quit"), size=17)
    hits.add(quit_button, Press("quit"))
