"""The table's drawing, one module per screen:

| screen | module |
|---|---|
| the table (seats, line, hand, guidance) | ``table.py`` (+ ``seats.py``, ``bars.py``: top bar, toolbar) |
| the hand's last tile landing | ``landing.py`` |
| the end of a hand (all hands, result) | ``reveal.py`` |
| the end of the match | ``match_over.py`` |
| pass-and-play hand-off | ``handoff.py`` |
| accepting a deal, choosing the opener | ``deal.py`` |
| rules and log panels | ``panel.py`` |
| settings | ``settings.py`` |
| the start (server and computers starting) | ``starting.py`` |
| a yes/no question | ``confirm.py`` |
| another player's takeback request | ``takeback.py`` |
| the lobby, its league page | ``lobby.py``, ``league.py`` |

``draw(view, screen, surface)`` draws one frame of the table from a ``TableView`` and
returns its tap targets (``Hit``) in drawing order; it changes nothing in the app (a
test checks that no module here keeps state). A modal screen drops what lies under it,
so nothing behind it can be tapped. Other seats' tiles are drawn face down (backs,
counts only) until the hand-end reveal. Shared pieces: ``frame.py`` (hits, dialogs,
toasts), ``results.py`` (a hand's and a match's result in words).
"""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.render import panel as panel_module
from clients.table.render.confirm import draw_confirm
from clients.table.render.deal import draw_accept, draw_opener
from clients.table.render.frame import Hits, centre_message, draw_toasts, seat_anchor
from clients.table.render.handoff import draw_handoff
from clients.table.render.landing import draw_landing
from clients.table.render.match_over import draw_match_over
from clients.table.render.panel import draw_panel, panel_scroll_max
from clients.table.render.reveal import draw_reveal
from clients.table.render.settings import draw_settings
from clients.table.render.starting import draw_starting
from clients.table.render.table import draw_table
from clients.table.render.takeback import draw_takeback
from clients.table.screens import finished_view
from clients.table.ui import Hit, Screen, Tap

__all__ = ["clear_caches", "draw", "panel_scroll_max", "seat_anchor"]

MODAL = ("reveal", "accept", "opener", "match_over", "starting")


def draw(view: TableView, screen: Screen, surface: pygame.Surface) -> list[Hit[Tap]]:
    """Draw one frame on ``surface`` at the view's drawing size; returns its hits
    (topmost last), in the drawing's pixels."""
    d.use_theme(view.settings.theme)
    hits = Hits()
    surface.fill(d.FELT)
    kind = screen.kind
    panel = view.panel.name
    modal = kind in MODAL or bool(panel or view.progress.confirm)
    if kind == "connecting":
        centre_message(surface, view.tr("status.connecting"))
    elif kind == "starting":
        draw_starting(view, surface, hits)
    elif kind == "handoff" and screen.seat is not None:
        draw_handoff(view, surface, hits, screen.seat)
    elif kind in ("landing", "reveal") and view.newest is not None:
        # The finished board of the hand that just ended, not the next deal.
        seat = screen.seat or view.newest.seat
        board = finished_view(view.newest.view)
        draw_table(view, surface, hits, seat, private=False, seat_view=board)
        if kind == "landing":
            draw_landing(view, surface, hits)
        else:
            draw_reveal(view, surface, hits)
    elif screen.seat is not None:
        private = kind != "match_over" and not view.seating.watching
        draw_table(view, surface, hits, screen.seat, private=private)
        if kind == "accept":
            draw_accept(view, surface, hits, screen.seat)
        elif kind == "opener":
            draw_opener(view, surface, hits, screen.seat)
        elif kind == "match_over":
            draw_match_over(view, surface, hits, screen.seat)
    question = view.takeback_question(screen)
    if question is not None:
        draw_takeback(view, surface, hits, *question)
        modal = True
    if panel == "settings":
        draw_settings(view, surface, hits)
    elif panel and kind not in ("handoff", "starting"):
        draw_panel(view, surface, hits)
    if view.progress.confirm:
        draw_confirm(view, surface, hits)
    draw_toasts(view, surface, modal)
    return hits.items


def clear_caches() -> None:
    """Fonts and cached images die with ``pygame.quit()``: a new window starts afresh."""
    d.clear_caches()
    panel_module.clear_caches()
