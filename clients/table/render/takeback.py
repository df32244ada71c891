"""Another player's takeback request (undo, redo, restart the hand, a new game at a
casual table with several people): the question over the table, Accept / Decline."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.people import Takeback, takeback_text
from clients.table.render.frame import Hits, button_row, dialog
from clients.table.render.seats import seat_label
from clients.table.ui import AnswerTakeback


def draw_takeback(
    view: TableView, surface: pygame.Surface, hits: Hits, seat: int, request: Takeback
) -> None:
    """The question for ``seat`` (one held here that the request waits for)."""
    hits.clear()
    tr = view.tr
    box = dialog(surface, 600, 220)
    question = takeback_text(tr, request, lambda n: seat_label(view, n))
    d.text(
        surface,
        question,
        (box.centerx, box.y + 36),
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
        [
            (tr("btn.agree"), AnswerTakeback(seat, True)),
            (tr("btn.decline"), AnswerTakeback(seat, False)),
        ],
    )
