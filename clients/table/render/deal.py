"""The private dialogs of a deal: accepting one's new hand (or claiming a redeal) and the
team representative choosing who opens."""

from __future__ import annotations

import pygame

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.context import TableView
from clients.table.render.frame import Hits, button_row, dialog
from clients.table.ui import Accept, ChooseOpener, ClaimRedeal, Tap


def big_hand(surface: pygame.Surface, area: pygame.Rect, hand: list[str]) -> None:
    for tile, rect in zip(
        hand, lay.layout_hand(area, len(hand), lift=0, max_unit=40), strict=False
    ):
        a, b = (int(x) for x in tile.split("-"))
        d.tile(surface, rect, a, b, True)


def draw_accept(view: TableView, surface: pygame.Surface, hits: Hits, seat: int) -> None:
    hits.modal()
    tr = view.tr
    seat_view = view.view_of(seat)
    box = dialog(surface, 720, 430)
    y = box.y + 20
    d.text(
        surface,
        tr("accept.title", n=seat),
        (box.centerx, y),
        26,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    y += 44
    d.text(
        surface, tr("accept.prompt"), (box.centerx, y), 17, d.INK, anchor="midtop", wrap=box.w - 40
    )
    y += 34
    hand = seat_view.get("hand", [])
    area = pygame.Rect(box.x + 20, y, box.w - 40, 120)
    pygame.draw.rect(surface, d.FELT, area, border_radius=10)
    big_hand(surface, area, hand)
    y = area.bottom + 10
    notes = []
    if seat_view.get("first_hand"):
        notes.append(tr("accept.first_hand"))
    if seat_view.get("can_claim_redeal"):
        doubles = sum(1 for t in hand if t.split("-")[0] == t.split("-")[1])
        notes.append(tr("accept.redeal", doubles=tr("doubles.count", n=doubles)))
    for note in notes:
        rect = d.text(surface, note, (box.centerx, y), 16, d.INK, anchor="midtop", wrap=box.w - 40)
        y = rect.bottom + 6
    items: list[tuple[str, Tap]] = [(tr("btn.accept"), Accept(seat))]
    if seat_view.get("can_claim_redeal"):
        items.append((tr("btn.claim_redeal"), ClaimRedeal(seat)))
    button_row(surface, hits, pygame.Rect(box.x, box.bottom - 76, box.w, 60), items)


def draw_opener(view: TableView, surface: pygame.Surface, hits: Hits, seat: int) -> None:
    hits.modal()
    tr = view.tr
    seat_view = view.view_of(seat)
    partner = int(seat_view.get("partner") or 0)
    box = dialog(surface, 720, 400)
    d.text(
        surface,
        tr("opener.title"),
        (box.centerx, box.y + 20),
        26,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    d.text(
        surface,
        tr("opener.prompt"),
        (box.centerx, box.y + 64),
        17,
        d.INK,
        anchor="midtop",
        wrap=box.w - 40,
    )
    area = pygame.Rect(box.x + 20, box.y + 130, box.w - 40, 120)
    pygame.draw.rect(surface, d.FELT, area, border_radius=10)
    big_hand(surface, area, seat_view.get("hand", []))
    button_row(
        surface,
        hits,
        pygame.Rect(box.x, box.bottom - 76, box.w, 60),
        [
            (tr("btn.opener_self", n=seat), ChooseOpener(seat, seat)),
            (tr("btn.opener_partner", n=partner), ChooseOpener(seat, partner)),
        ],
    )
