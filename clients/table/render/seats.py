"""The other three seats around the board: name, team, tile count and backs, whose turn,
a pass, an accepted deal, and whether the player is here (presence)."""

from __future__ import annotations

import time
from typing import Any

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.layout import touch_rect
from clients.table.people import away_for, replaceable
from clients.table.render.frame import Hits
from clients.table.render.results import seat_team, team_label
from clients.table.ui import ReplaceSeat, ToggleLastTiles


def seat_label(view: TableView, seat: int) -> str:
    """ "Seat 2 · computer", "Seat 3 · ann", "Seat 4 · empty seat"; a seat this account
    holds in pass-and-play is named by the seat alone (not the account's name)."""
    tr = view.tr
    newest = view.newest
    table = newest.table if newest else None
    info = table.seats.get(seat) if table else None
    name = tr("seat.name", n=seat)
    if info is None:
        return name
    if info.kind == "bot" or info.is_bot:
        return f"{name} · {tr('seat.computer')}"
    if info.player is None:
        return f"{name} · {tr('seat.open')}"
    if seat in view.seating.seats:
        return f"{name} · {tr('seat.human')}"
    return f"{name} · {info.player}"


def last_turn_was_pass(seat_view: dict[str, Any], seat: int) -> bool:
    for turn in reversed(seat_view.get("turns", [])):
        if turn["seat"] == seat:
            return bool(turn["type"] == "pass")
    return False


def presence_text(view: TableView, seat: int) -> str | None:
    """ "● here", "○ away just now", "○ away 3 min", "○ away 2 h", "○ away 3 days"; None
    when nothing is known of the seat."""
    state, since = view.presence(seat)
    if state == "here":
        return "● " + view.tr("presence.here")
    if state == "away":
        if since is None:
            return "○ " + view.tr("presence.away")
        msg_id, n = away_for(time.time() - since)
        return "○ " + view.tr(msg_id, n=n)
    return None


def draw_seat_box(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    box: pygame.Rect,
    seat_view: dict[str, Any],
    seat: int,
) -> None:
    tr = view.tr
    to_act = seat_view.get("to_act") == seat and seat_view.get("phase") in (
        "play",
        "choose_opener",
    )
    team = seat_team(seat_view, seat)
    pygame.draw.rect(surface, (0, 0, 0), box.move(2, 3), border_radius=10)
    pygame.draw.rect(surface, d.PANEL, box, border_radius=10)
    pygame.draw.rect(
        surface,
        d.GOLD if to_act else d.TEAM_COLOURS[team],
        box,
        width=5 if to_act else max(2, d.LINE_WIDTH + 1),
        border_radius=10,
    )
    size = 15 if box.w >= 150 else 13
    compact = box.w > 1.6 * box.h  # the partner's wide box on top: two columns
    room = box.w - 14 - (110 if compact else 0)
    d.text(
        surface,
        seat_label(view, seat),
        (box.x + 8, box.y + 6),
        size,
        d.INK,
        bold=True,
        within=pygame.Rect(box.x + 8, box.y, room, box.h),
    )
    inner = box.inflate(-16, 0)
    team_line = team_label(tr, team)
    if seat == seat_view.get("partner") and not view.seating.watching:
        team_line += f" · {tr('seat.partner')}"
    here = presence_text(view, seat)
    team_y = box.y + 8 + size + 2
    team_rect = d.text(
        surface,
        team_line,
        (box.x + 8, team_y),
        size - 2,
        d.team_ink(team),
        within=inner,
    )
    count = seat_view.get("tile_counts", {}).get(str(seat), 0)
    y = box.y + (8 + size + 2 if compact else 12 + 2 * (size + 2))
    count_text = tr("tiles.count", n=count)
    if compact:
        d.text(
            surface,
            count_text,
            (box.right - 8, y),
            size - 1,
            d.MUTED,
            anchor="topright",
            within=inner,
        )
        if here and box.h >= 66:  # on the backs' row, at the right
            d.text(
                surface,
                here,
                (box.right - 8, box.bottom - 8 - 16),
                size - 2,
                d.MUTED,
                anchor="topright",
                within=pygame.Rect(box.centerx, box.y, box.w // 2 - 8, box.h),
            )
        elif here:  # a low box: after the team, when there is room
            presence_box = pygame.Rect(team_rect.right + 10, team_y, 0, size)
            presence_box.width = max(0, box.right - 8 - 90 - presence_box.x)
            if d.text_width(here, size - 2) <= presence_box.width:
                d.text(surface, here, presence_box.topleft, size - 2, d.MUTED, within=presence_box)
    else:
        d.text(surface, count_text, (box.x + 8, y), size - 1, d.MUTED, within=inner)
        if here:
            y += size + 2
            d.text(surface, here, (box.x + 8, y), size - 2, d.MUTED, within=inner)
    back_w = 8 if compact else max(6, min(14, (box.w - 16) // 8))
    backs_y = box.bottom - 2 * back_w - 6 if compact else y + size + 4
    flag_y = box.y + 6 if compact else box.bottom - size - 10
    if not compact and backs_y + 2 * back_w > flag_y - 2:
        backs_y = -1  # too low for the backs: the count says it
    for i in range(count if (not compact or box.h >= 66) and backs_y >= 0 else 0):
        d.tile_back(surface, pygame.Rect(box.x + 8 + i * (back_w + 2), backs_y, back_w, 2 * back_w))
    flag_x, flag_anchor = (box.right - 8, "topright") if compact else (box.x + 8, "topleft")
    if to_act:
        word = tr("turn.to_play" if seat_view.get("phase") == "play" else "turn.choosing")
        d.text(
            surface,
            "▶ " + word,
            (flag_x, flag_y),
            size,
            d.TURN_INK,
            bold=True,
            anchor=flag_anchor,
            within=inner,
        )
    elif seat_view.get("phase") == "accept" and seat_view.get("accepted", {}).get(str(seat)):
        d.text(
            surface,
            "✓ " + tr("turn.accepted"),
            (flag_x, flag_y),
            size - 1,
            d.MUTED,
            anchor=flag_anchor,
            within=inner,
        )
    elif seat_view.get("phase") == "play" and last_turn_was_pass(seat_view, seat):
        tag = tr("turn.passed")
        rect = pygame.Rect(0, 0, d.text_width(tag, size, True) + 14, size + 8)
        setattr(rect, flag_anchor, (flag_x, flag_y - 2))
        pygame.draw.rect(surface, d.DANGER, rect, border_radius=5)
        d.text(surface, tag, rect.center, size, d.WHITE, bold=True, anchor="center")
    pass_flash(view, surface, seat, box.center)
    hits.add(box, ToggleLastTiles())


def may_replace(view: TableView, seat: int) -> bool:
    """The owner of a casual table may hand over a seat that is open or whose person has
    been away five minutes (``people.replaceable``)."""
    newest = view.newest
    table = newest.table.raw if newest is not None and newest.table is not None else {}
    return not view.seating.watching and replaceable(
        table, view.seating.username, seat, view.presence(seat), time.time()
    )


def replace_button(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    box: pygame.Rect,
    seat: int,
    free: pygame.Rect,
) -> None:
    """The owner's Replace button of ``seat``, drawn over everything else of the table
    (after the board and the hand) so it is never hidden, and never over the line: in
    the free band ``free`` beside the box (the partner's, between the side boxes) or
    under it (a side box's, down to the guidance line) when it fits there, else across
    the box's own bottom edge."""
    label = view.tr("btn.replace")
    rect = pygame.Rect(0, 0, min(box.w, d.text_width(label, 14, True) + 24), 34)
    rect.midtop = (box.centerx, box.bottom + 6)
    beside_right = pygame.Rect(box.right + 8, box.centery - rect.h // 2, rect.w, rect.h)
    beside_left = beside_right.move(-(box.w + 16 + rect.w), 0)
    for place in (beside_right, beside_left, rect):
        if free.contains(place):
            rect = place
            break
    else:
        rect.bottom = box.bottom - 4
    d.button(surface, rect, label, size=14)
    hits.add(touch_rect(rect), ReplaceSeat(seat))


def pass_flash(
    view: TableView, surface: pygame.Surface, seat: int, centre: tuple[int, int]
) -> None:
    """A big PASS growing over the seat for a moment after it passed."""
    flashed = view.effects.pass_flash.get(seat)
    if flashed is None:
        return
    anim_ms = view.settings.anim_ms
    age = time.monotonic() - flashed
    grow = min(1.0, age * 1000 / max(1, anim_ms)) if anim_ms else 1
    tag = view.tr("turn.passed")
    size_big = int(14 + 12 * grow)
    rect = pygame.Rect(0, 0, d.text_width(tag, size_big, True) + 24, size_big + 16)
    rect.center = centre
    pygame.draw.rect(surface, d.DANGER, rect, border_radius=12)
    d.text(surface, tag, rect.center, size_big, d.WHITE, bold=True, anchor="center")
