"""End of a hand, over its finished board: all four hands, pips, the result and why,
points, scores, the next base (not when the match is over); Continue."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.render.frame import Hits, button_row, dialog
from clients.table.render.results import (
    banner_colour,
    result_banner,
    seat_team,
    team_label,
    why_line,
)
from clients.table.ui import Continue


def reveal_lines(view: TableView) -> list[str]:
    """The lines under the four hands: why (not) a Dékabès, points, scores, next base."""
    tr = view.tr
    newest = view.newest
    seat_view = newest.view if newest else {}
    last = seat_view.get("last_hand") or {}
    lines = []
    why = why_line(tr, last)
    plays = [t for t in last.get("turns", []) if t.get("type") == "play"]
    if why:
        lines.append(why)
    elif plays:
        lines.append(tr("reveal.last_tile", tile=plays[-1]["tile"]))
    if last.get("result") == "tie":
        lines.append(tr("reveal.tie_points"))
    else:
        lines.append(
            tr(
                "reveal.points",
                team=last.get("team"),
                points=tr("points.count", n=last.get("points", 0)),
            )
        )
    scores = seat_view.get("scores", {})
    score_line = tr("reveal.scores", a=scores.get("A", 0), b=scores.get("B", 0))
    if seat_view.get("phase") == "match_over":
        lines.append(score_line + " · " + tr("reveal.match_over"))
    else:
        lines.append(score_line + " · " + tr("reveal.next_base", base=seat_view.get("base", 1)))
    return lines


def draw_reveal(view: TableView, surface: pygame.Surface, hits: Hits) -> None:
    hits.modal()
    tr = view.tr
    newest = view.newest
    last = (newest.view.get("last_hand") if newest else None) or {}
    box = dialog(surface, 900, 660)
    d.text(
        surface,
        tr("reveal.title", n=last.get("hand_no", "")),
        (box.centerx, box.y + 14),
        22,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    strip = pygame.Rect(box.x + 16, box.y + 48, box.w - 32, 46)
    pygame.draw.rect(surface, banner_colour(last), strip, border_radius=10)
    d.text(
        surface,
        result_banner(tr, last),
        strip.center,
        24,
        d.WHITE if d.current_theme() == "standard" else d.INK,
        bold=True,
        anchor="center",
        within=strip.inflate(-20, 0),
    )
    y = strip.bottom + 12
    lines = reveal_lines(view)
    line_h = 22
    rows_room = box.bottom - 78 - y - line_h * len(lines) - 8
    row_h = max(30, min(76, rows_room // 4))
    for number in (1, 2, 3, 4):
        team = seat_team(newest.view if newest else {}, number)
        row = pygame.Rect(box.x + 16, y, box.w - 32, row_h - 6)
        pygame.draw.rect(surface, d.ROW, row, border_radius=8)
        pygame.draw.rect(surface, d.TEAM_COLOURS[team], row, width=2, border_radius=8)
        name = f"{tr('seat.name', n=number)} · {team_label(tr, team)}"
        d.text(
            surface,
            name,
            (row.x + 10, row.centery),
            15,
            d.INK,
            bold=True,
            anchor="midleft",
            within=pygame.Rect(row.x + 10, row.y, 200, row.h),
        )
        pips = (last.get("pips") or {}).get(str(number), 0)
        d.text(
            surface,
            tr("pips.count", n=pips),
            (row.right - 10, row.centery),
            16,
            d.INK,
            bold=True,
            anchor="midright",
        )
        unit = max(8, min((row.h - 8) // 2, (row.w - 330) // 15))
        x = row.x + 220
        for tile in (last.get("hands") or {}).get(str(number), []):
            a, b = (int(v) for v in tile.split("-"))
            d.tile(
                surface,
                pygame.Rect(x, row.centery - unit // 2, 2 * unit, unit),
                a,
                b,
                False,
                shadow=False,
            )
            x += 2 * unit + 4
        y += row_h
    for value in lines:
        d.text(
            surface,
            value,
            (box.centerx, y + 4),
            16,
            d.INK,
            anchor="midtop",
            within=box.inflate(-32, 0),
        )
        y += line_h
    button_row(
        surface,
        hits,
        pygame.Rect(box.x, box.bottom - 70, box.w, 60),
        [(tr("btn.continue"), Continue())],
    )
