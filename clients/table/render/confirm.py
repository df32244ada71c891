"""A yes/no question before a table command that cannot be taken back lightly: restart
the hand, a new game, undo into a finished match, leaving one's seat."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.people import computer_for
from clients.table.render.frame import Hits, button_row, dialog
from clients.table.render.seats import seat_label
from clients.table.ui import Answer

QUESTIONS = {
    "restart_hand": "confirm.restart",
    "new_match": "confirm.new_game",
    "undo_match": "confirm.undo_match",
    "leave_seat": "confirm.leave_seat",
}


def replace_question(view: TableView, seat: int) -> str:
    """ "Give Seat 3 · ann to the computer player house?", "Give the empty seat 3 to the
    computer player house?" (or open it, with none seated)."""
    newest = view.newest
    table = newest.table.raw if newest is not None and newest.table is not None else {}
    bot = computer_for(table)
    who = seat_label(view, seat)
    info = (table.get("seats") or {}).get(str(seat)) or {}
    if bot is not None and info.get("player") is None:
        return view.tr("confirm.replace_open", n=seat, bot=bot)
    if bot is None:
        return view.tr("confirm.open_seat", seat=who)
    return view.tr("confirm.replace_seat", seat=who, bot=bot)


def draw_confirm(view: TableView, surface: pygame.Surface, hits: Hits) -> None:
    hits.clear()
    tr = view.tr
    box = dialog(surface, 560, 220)
    question = tr(QUESTIONS.get(view.progress.confirm or "", "confirm.new_game"))
    if view.progress.confirm == "replace_seat" and view.progress.replacing is not None:
        question = replace_question(view, view.progress.replacing)
    d.text(
        surface,
        question,
        (box.centerx, box.y + 40),
        20,
        d.INK,
        bold=True,
        anchor="midtop",
        wrap=box.w - 40,
    )
    button_row(
        surface,
        hits,
        pygame.Rect(box.x, box.bottom - 80, box.w, 60),
        [(tr("btn.yes"), Answer(True)), (tr("btn.no"), Answer(False))],
    )
