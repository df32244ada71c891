"""The match's own moment: the winner, your team won or lost, the final score, hands won
per team (and ties), Dékabès per team; New game, Lobby, Look at the board."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.render.frame import Hits, button_row, dialog
from clients.table.render.results import match_summary
from clients.table.ui import BackToLobby, MatchSeen, NewMatch, Tap


def draw_match_over(view: TableView, surface: pygame.Surface, hits: Hits, seat: int | None) -> None:
    hits.modal()
    tr = view.tr
    seat_view = view.view_of(seat)
    box = dialog(surface, 720, 420)
    winner = seat_view.get("winner")
    d.text(
        surface,
        tr("match.title"),
        (box.centerx, box.y + 18),
        24,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    strip = pygame.Rect(box.x + 16, box.y + 58, box.w - 32, 50)
    pygame.draw.rect(surface, d.TEAM_COLOURS.get(str(winner), d.MUTED), strip, border_radius=10)
    d.text(
        surface,
        d.team_text(tr("match.over", team=winner), str(winner)),
        strip.center,
        26,
        d.WHITE if d.current_theme() == "standard" else d.INK,
        bold=True,
        anchor="center",
        within=strip.inflate(-20, 0),
    )
    summary = match_summary(seat_view)
    scores = seat_view.get("scores", {})
    lines = [
        tr("match.you_won" if winner == seat_view.get("team") else "match.you_lost"),
        tr("match.final_score", a=scores.get("A", 0), b=scores.get("B", 0)),
        tr("match.hands_won", a=summary["won"]["A"], b=summary["won"]["B"], ties=summary["ties"]),
        tr("match.dekabes_count", a=summary["dekabes"]["A"], b=summary["dekabes"]["B"]),
    ]
    y = strip.bottom + 16
    for i, value in enumerate(lines):
        d.text(
            surface,
            value,
            (box.centerx, y),
            18,
            d.INK,
            bold=(i == 0),
            anchor="midtop",
            within=box.inflate(-32, 0),
        )
        y += 30
    items: list[tuple[str, Tap]] = []
    if view.allowed(seat, "new_match"):
        items.append((tr("btn.new_game"), NewMatch()))
    if view.on_lobby is not None:
        items.append((tr("btn.lobby"), BackToLobby()))
    items.append((tr("btn.view_board"), MatchSeen()))
    button_row(surface, hits, pygame.Rect(box.x, box.bottom - 76, box.w, 60), items)
