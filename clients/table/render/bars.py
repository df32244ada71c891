"""The table's top bar (scores, hand, base, rated, who paused, the connection) and its
toolbar."""

from __future__ import annotations

from typing import Any

import pygame

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.context import TableView
from clients.table.render.frame import Hits, buttons
from clients.table.render.results import team_label
from clients.table.ui import Press

BUTTON_TEXT = {
    "hint": "btn.hint",
    "undo": "btn.undo",
    "redo": "btn.redo",
    "restart_hand": "btn.restart",
    "new_match": "btn.new_game",
    "rules": "btn.rules",
    "log": "btn.log",
    "settings": "btn.settings",
    "language": "btn.language",
    "lobby": "btn.lobby",
    "leave": "btn.leave",
}


def status_text(view: TableView) -> str:
    """The connection, and who paused the computer players (rules, log or settings open)."""
    tr, conn = view.tr, view.conn
    status = (
        tr(f"status.{conn.status}") if conn.status in ("online", "connecting", "offline") else ""
    )
    newest = view.newest
    if newest is not None and newest.paused:
        by = paused_by(newest.table.raw if newest.table else {})
        who = ", ".join(tr("seat.name", n=n) for n in by)
        status = (
            (tr("status.paused_by", seats=who) if who else tr("status.paused")) + " · " + status
        )
    if conn.busy.is_set():
        status = tr("status.sending") + " · " + status
    if view.seating.watching:
        status = tr("status.watching") + " · " + status
    return status


def paused_by(table: dict[str, Any]) -> list[int]:
    return sorted(int(n) for n in table.get("paused_by") or [] if str(n).isdigit())


def draw_topbar(
    view: TableView, surface: pygame.Surface, layout: lay.TableLayout, seat_view: dict[str, Any]
) -> None:
    tr = view.tr
    bar = layout.topbar
    pygame.draw.rect(surface, d.FELT_DARK, bar)
    scores = seat_view.get("scores", {"A": 0, "B": 0})
    x = 10
    size = 18 if bar.h >= 44 else 15
    for team in ("A", "B"):
        label = team_label(tr, team) + f": {scores.get(team, 0)}"
        if seat_view.get("team") == team and not view.seating.watching:
            label += f" ({tr('seat.you')})"
        width = d.text_width(label, size, True) + 20
        chip = pygame.Rect(x, bar.y + 6, width, bar.h - 12)
        pygame.draw.rect(surface, d.TEAM_COLOURS[team], chip, border_radius=6)
        d.text(
            surface,
            label,
            chip.center,
            size,
            d.WHITE if d.current_theme() == "standard" else d.INK,
            bold=True,
            anchor="center",
            within=chip.inflate(-8, 0),
        )
        x = chip.right + 8
    newest = view.newest
    if newest is not None and newest.table is not None and newest.table.rated:
        tag = "★ " + tr("table.rated")
        chip = pygame.Rect(x, bar.y + 8, d.text_width(tag, size - 2, True) + 16, bar.h - 16)
        pygame.draw.rect(surface, d.GOLD, chip, border_radius=6)
        d.text(surface, tag, chip.center, size - 2, d.INK, bold=True, anchor="center")
        x = chip.right + 8
    colour = (255, 170, 160) if view.conn.status == "offline" else d.SOFT
    status_line = f"{status_text(view)}  {view.conn.code}"
    status_box = pygame.Rect(max(x, bar.right - 10 - max(60, bar.w // 3)), bar.y, 0, bar.h)
    status_box.width = bar.right - 10 - status_box.x
    status_rect = d.text(
        surface,
        status_line,
        (bar.right - 10, bar.centery),
        size - 2,
        colour,
        anchor="midright",
        within=status_box,
    )
    parts = [
        tr("score.hand", n=max(1, seat_view.get("hand_no", 1))),
        tr("score.base", base=seat_view.get("base", 1)),
        tr("score.goal"),
    ]
    room = status_rect.left - x - 16
    centre = " · ".join(parts)
    if d.text_width(centre, size) > room:
        centre = " · ".join(parts[:2])  # the goal is in the rules; the base is not
    if room > 20:
        d.text(
            surface,
            centre,
            ((x + status_rect.left) // 2, bar.centery),
            size,
            d.WHITE,
            anchor="center",
            within=pygame.Rect(x + 8, bar.y, room, bar.h),
        )


def button_label(view: TableView, name: str) -> str:
    return view.tr(BUTTON_TEXT[name])


def button_enabled(view: TableView, name: str, seat: int | None, seat_view: dict[str, Any]) -> bool:
    if name == "hint":
        newest = view.newest
        rated = newest is not None and newest.table is not None and newest.table.rated
        return bool(seat_view.get("legal")) and not rated
    if name in ("undo", "redo", "restart_hand", "new_match"):
        return view.allowed(seat, name)
    return True


def draw_toolbar(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    layout: lay.TableLayout,
    seat: int | None,
    seat_view: dict[str, Any],
) -> None:
    pygame.draw.rect(surface, d.FELT_DARK, layout.toolbar)
    named = list(zip(buttons(view), layout.buttons, strict=False))
    size = toolbar_size(view, named)
    for name, rect in named:
        enabled = button_enabled(view, name, seat, seat_view)
        d.button(
            surface,
            rect,
            button_label(view, name),
            enabled,
            hot=(view.panel.name == name),
            size=size,
        )
        hits.add(rect, Press(name))


def toolbar_size(view: TableView, named: list[tuple[str, pygame.Rect]]) -> int:
    """One size for every label of the toolbar: the biggest at which each fits its
    button (a long word is not drawn smaller than its neighbours)."""
    return min(
        (d.fit_size(button_label(view, name), rect.w - 16, 17, True, 11) for name, rect in named),
        default=17,
    )
