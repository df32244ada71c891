"""The table screen: the seats around the board, the line of play with its open ends,
the last tile marked, one's own hand, the guidance line, the toolbar."""

from __future__ import annotations

import time
from typing import Any

import pygame

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.context import TableView
from clients.table.people import takeback, waiting_text
from clients.table.render.bars import draw_toolbar, draw_topbar
from clients.table.render.frame import Hits, table_layout
from clients.table.render.results import seat_team
from clients.table.render.seats import (
    draw_seat_box,
    last_turn_was_pass,
    may_replace,
    pass_flash,
    replace_button,
    seat_label,
)
from clients.table.screens import ends_before_last_tile
from clients.table.ui import PickTile, PlaceAt

LINE_MAX_UNIT = lay.LINE_MAX_UNIT


def draw_table(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    seat: int,
    private: bool = True,
    seat_view: dict[str, Any] | None = None,
) -> None:
    """The table as ``seat`` sees it; ``private=False`` leaves its hand face down;
    ``seat_view`` replaces the seat's current view (the finished board of the last hand)."""
    layout = table_layout(view)
    seat_view = view.view_of(seat) if seat_view is None else seat_view
    draw_topbar(view, surface, layout, seat_view)
    for position in ("right", "top", "left"):
        draw_seat_box(
            view, surface, hits, layout.seats[position], seat_view, lay.seat_at(seat, position)
        )
    draw_line(view, surface, hits, layout, seat_view, seat)
    if private:
        draw_hand(view, surface, hits, layout, seat_view, seat)
    else:
        pygame.draw.rect(surface, d.FELT_DARK, layout.hand)
        if view.seating.watching:  # a spectator: the bottom seat is a box like the others
            box = layout.seats["top"].copy()
            box.midleft = (layout.hand.x + 12, layout.hand.centery)
            box.height = min(box.height, layout.hand.height - 12)
            box.centery = layout.hand.centery
            draw_seat_box(view, surface, hits, box, seat_view, seat)
    draw_guidance(view, surface, layout, seat_view, seat)
    draw_replace_buttons(view, surface, hits, layout, seat)
    draw_toolbar(view, surface, hits, layout, seat, seat_view)
    drag = view.selection.drag
    if private and drag is not None and drag.active:
        a, b = (int(x) for x in drag.tile.split("-"))
        unit = max(24, layout.hand.h // 4)
        rect = pygame.Rect(0, 0, unit, 2 * unit)
        rect.center = drag.pos
        d.tile(surface, rect, a, b, True, outline=d.GOLD, width=3)


def draw_replace_buttons(
    view: TableView, surface: pygame.Surface, hits: Hits, layout: lay.TableLayout, seat: int
) -> None:
    """The owner's Replace buttons, over the board and the hand (never under them)."""
    top, left, right = layout.seats["top"], layout.seats["left"], layout.seats["right"]
    # Beside the partner's box: between the side boxes, above the board. Under a side
    # box: its column, down to the guidance line.
    bands = {
        "top": pygame.Rect(left.right + 4, 0, right.x - left.right - 8, layout.board.y),
        "right": pygame.Rect(right.x, right.y, right.w, layout.message.y - right.y),
        "left": pygame.Rect(left.x, left.y, left.w, layout.message.y - left.y),
    }
    for position, box in (("top", top), ("right", right), ("left", left)):
        shown = lay.seat_at(seat, position)
        if may_replace(view, shown):
            replace_button(view, surface, hits, box, shown, bands[position])


def line_layout(layout: lay.TableLayout, seat_view: dict[str, Any]) -> lay.LineLayout:
    """The line laid out around the hand's first tile (it never moves as tiles come)."""
    return lay.layout_line(
        seat_view.get("line") or [],
        layout.board.inflate(-16, -16),
        max_unit=LINE_MAX_UNIT,
        anchor=lay.opener_index(seat_view),
    )


def last_plays(seat_view: dict[str, Any]) -> tuple[str | None, dict[int, str]]:
    """The last tile played, and each seat's last tile, from the view's turns."""
    last: str | None = None
    by_seat: dict[int, str] = {}
    for turn in seat_view.get("turns") or []:
        if turn.get("type") == "play" and turn.get("tile"):
            last = str(turn["tile"])
            by_seat[int(turn["seat"])] = last
    return last, by_seat


def _ease(t: float) -> float:
    return 1 - (1 - t) ** 3


def draw_line(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    layout: lay.TableLayout,
    seat_view: dict[str, Any],
    seat: int,
) -> None:
    board = layout.board
    pygame.draw.rect(surface, d.FELT_DARK, board, border_radius=16)
    placed = line_layout(layout, seat_view)
    now = time.monotonic()
    anim_ms = view.settings.anim_ms
    duration = max(1, anim_ms) / 1000
    for item in placed.tiles:
        rect = pygame.Rect(item.rect)
        flight = view.effects.flights.get(item.tile or "")
        if flight is not None and anim_ms and now - flight.started < duration:
            k = _ease(max(0.0, (now - flight.started) / duration))
            ox, oy = flight.origin
            rect.center = (round(ox + (rect.centerx - ox) * k), round(oy + (rect.centery - oy) * k))
        d.tile(surface, rect, item.left or 0, item.right or 0, item.across)
    if seat_view.get("phase") == "hand_over":
        _mark_last_ends(view, surface, placed)
        return
    mark_last_tiles(view, surface, placed, seat_view)
    draw_targets(view, surface, hits, placed, seat_view, seat, board)


def mark_last_tiles(
    view: TableView, surface: pygame.Surface, placed: lay.LineLayout, seat_view: dict[str, Any]
) -> None:
    """The last tile played is framed, with a small ▼ over it (someone who looked away
    catches up); on request (T, or a tap on a seat) each seat's last tile carries its
    seat number."""
    last, by_seat = last_plays(seat_view)
    where = {item.tile: item.rect for item in placed.tiles}
    if last in where and last not in view.effects.flights:
        rect = where[last].inflate(6, 6)
        pygame.draw.rect(surface, d.GOLD, rect, width=3, border_radius=5)
        d.marker_triangle(surface, rect.centerx, rect.top, max(4, placed.unit // 5), d.GOLD)
    if not view.progress.last_tiles:
        return
    size = max(12, min(18, placed.unit // 2 + 4))
    for seat, tile in by_seat.items():
        if tile not in where:
            continue
        badge = pygame.Rect(0, 0, size + 6, size + 6)
        badge.center = (where[tile].right - 2, where[tile].bottom - 2)
        team = seat_team(seat_view, seat)
        pygame.draw.ellipse(surface, d.TEAM_COLOURS[team], badge)
        pygame.draw.ellipse(surface, d.INK, badge, width=1)
        d.text(surface, str(seat), badge.center, size, d.INK, bold=True, anchor="center")


def _mark_last_ends(view: TableView, surface: pygame.Surface, placed: lay.LineLayout) -> None:
    """The finished board: frame the last tile and the other open end, each with the
    number it showed before that tile was played (why it was, or was not, a Dékabès)."""
    newest = view.newest
    last = (newest.view.get("last_hand") if newest else None) or {}
    before = ends_before_last_tile(last) if last.get("result") == "domino" else None
    if before is None or len(placed.tiles) < 2:
        return
    tile, left, right = before
    colour = d.GOLD if last.get("dekabes") else (235, 235, 235)
    first, final = placed.tiles[0], placed.tiles[-1]
    for item, value in ((first, left), (final, right)):
        rect = item.rect.inflate(8, 8)
        pygame.draw.rect(
            surface, colour, rect, width=3 if item.tile == tile else 2, border_radius=6
        )
        badge = pygame.Rect(0, 0, max(22, placed.unit), max(22, placed.unit))
        badge.midbottom = (rect.centerx, rect.top - 2)
        if badge.top < placed.tiles[0].rect.top - 4 * placed.unit:
            badge.midtop = (rect.centerx, rect.bottom + 2)
        pygame.draw.ellipse(surface, colour, badge)
        d.text(
            surface,
            str(value),
            badge.center,
            max(12, badge.h * 2 // 3),
            d.INK,
            bold=True,
            anchor="center",
        )


def draw_targets(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    placed: lay.LineLayout,
    seat_view: dict[str, Any],
    seat: int,
    board: pygame.Rect | None = None,
) -> None:
    my_turn = view.my_turn(seat)
    ends = seat_view.get("ends")
    selected = view.selection.tile
    legal = view.legal_plays(seat) if my_turn else {}
    options = legal.get(selected, []) if selected else []
    hint = view.selection.hint
    hinted = hint is not None and hint.event.get("tile") == selected
    shown: dict[str, pygame.Rect] = {}  # what stands at each end (the slot, or a ghost)
    for key, slot in placed.targets.items():
        rect = slot.rect
        shown[key] = rect
        chosen = view.selection.end == key
        if selected and key in options:
            numbers = lay.ghost_numbers(selected, slot.end, ends, slot)
            ghost = lay.ghost_rect(slot, numbers[2])
            shown[key] = ghost.union(rect)
            d.tile(
                surface,
                ghost,
                numbers[0],
                numbers[1],
                numbers[2],
                alpha=170,
                shadow=False,
                outline=d.GOLD if chosen else d.WHITE,
                width=3 if chosen else 2,
            )
            if hinted and chosen:
                d.text(
                    surface,
                    view.tr("btn.hint"),
                    (ghost.centerx, ghost.top - 4),
                    14,
                    d.GOLD,
                    bold=True,
                    anchor="midbottom",
                )
            hits.add(lay.touch_rect(ghost.union(rect)), PlaceAt(key))
            continue
        colour = d.WHITE if my_turn else d.SOFT
        d.dashed_rect(surface, rect, colour, width=2)
        if ends and key in ("left", "right"):
            value = ends[0] if key == "left" else ends[1]
            d.text(
                surface,
                str(value),
                rect.center,
                max(12, rect.h // 2),
                colour,
                bold=True,
                anchor="center",
            )
        if my_turn:
            hits.add(lay.touch_rect(rect), PlaceAt(key))
    if ends:
        bounds = board if board is not None else surface.get_rect()
        end_tags(view, surface, placed, shown, marks(view, placed, seat_view), bounds)


def marks(view: TableView, placed: lay.LineLayout, seat_view: dict[str, Any]) -> list[pygame.Rect]:
    """Where ``mark_last_tiles`` draws: the last tile's frame and its ▼, and each seat's
    badge when they are shown (the end names keep clear of them)."""
    last, by_seat = last_plays(seat_view)
    where = {item.tile: item.rect for item in placed.tiles}
    found = []
    if last in where:
        frame = where[last].inflate(6, 6)
        found.append(frame.union(frame.move(0, -max(4, placed.unit // 5) - 2)))
    if view.progress.last_tiles:
        size = max(12, min(18, placed.unit // 2 + 4))
        for tile in by_seat.values():
            if tile in where:
                badge = pygame.Rect(0, 0, size + 6, size + 6)
                badge.center = (where[tile].right - 2, where[tile].bottom - 2)
                found.append(badge)
    return found


def end_tags(
    view: TableView,
    surface: pygame.Surface,
    placed: lay.LineLayout,
    shown: dict[str, pygame.Rect],
    marked: list[pygame.Rect],
    bounds: pygame.Rect,
) -> None:
    """The names of the open ends, written by what stands there (its target, or the
    ghost of the lifted tile): "left" and "right" in hints, keys and the log point at
    what is drawn, wherever the line turned. Both in the same form (the words, or both
    short where one does not fit), each where no tile, mark or the other name covers
    it (``layout.place_tags``)."""
    size = max(11, min(15, placed.unit // 2 + 3))
    room = max(3 * placed.unit, 60)
    names = {key: view.tr(f"end.{key}") for key in ("left", "right")}
    if any(d.text_width(name, size, True) > room for name in names.values()):
        names = {key: view.tr(f"end.tag_{key}") for key in names}
    boxes = {
        key: (d.text_width(name, size, True) + 4, d.font(size, True).get_height())
        for key, name in names.items()
    }
    obstacles = [item.rect for item in placed.tiles] + marked
    places = lay.place_tags(shown, boxes, obstacles, bounds)
    for key, rect in places.items():
        d.text(surface, names[key], rect.center, size, d.SOFT, bold=True, anchor="center")


def draw_hand(
    view: TableView,
    surface: pygame.Surface,
    hits: Hits,
    layout: lay.TableLayout,
    seat_view: dict[str, Any],
    seat: int,
) -> None:
    tr = view.tr
    area = layout.hand
    pygame.draw.rect(surface, d.FELT_DARK, area)
    hand = seat_view.get("hand", [])
    my_turn = view.my_turn(seat)
    sent = view.seating.sent.get(seat)
    on_its_way = sent[0] if sent is not None else None  # played, not answered yet
    legal = view.legal_plays(seat) if my_turn and on_its_way is None else {}
    selected = view.selection.tile
    drag = view.selection.drag
    me = (
        f"{tr('seat.name', n=seat)} ({tr('seat.you')}) · "
        f"{d.team_text(tr('team.label', team=seat_view.get('team', 'A')), seat_view.get('team', 'A'))}"
    )
    if my_turn:
        me = "▶ " + me + " · " + tr("turn.to_play")
    label = d.text(
        surface,
        me,
        (layout.me_label.x, layout.me_label.y),
        16,
        d.GOLD if my_turn else d.WHITE,
        bold=True,
        within=pygame.Rect(layout.me_label.x, area.y, area.w - 110, area.h),
    )
    if seat_view.get("phase") == "play" and last_turn_was_pass(seat_view, seat):
        tag = tr("turn.passed")
        rect = pygame.Rect(label.right + 10, label.y - 2, d.text_width(tag, 15, True) + 14, 23)
        pygame.draw.rect(surface, d.DANGER, rect, border_radius=5)
        d.text(surface, tag, rect.center, 15, d.WHITE, bold=True, anchor="center")
    pass_flash(view, surface, seat, (area.centerx, area.y + 14))
    for tile, slot in zip(hand, lay.layout_hand(area, len(hand)), strict=False):
        a, b = (int(x) for x in tile.split("-"))
        rect = pygame.Rect(slot)
        playable = tile in legal
        if playable:
            rect.y -= 14
        if tile == selected:
            rect.y -= 10
        if tile == on_its_way:  # lifted out of the hand, faint, not pickable
            rect.y -= 24
            d.tile(surface, rect, a, b, True, alpha=90, shadow=False)
            continue
        if drag is not None and drag.active and drag.tile == tile:
            d.tile(surface, rect, a, b, True, alpha=90, shadow=False)
            continue
        face = d.IVORY if (playable or not my_turn) else d.IVORY_DIM
        outline = d.GOLD if tile == selected else (60, 60, 60)
        d.tile(
            surface,
            rect,
            a,
            b,
            True,
            face=face,
            outline=outline,
            width=4 if tile == selected else 1,
        )
        if playable:
            d.marker_triangle(surface, rect.centerx, rect.top, max(5, rect.w // 6), d.GOLD)
        if on_its_way is None:  # while a play is on its way nothing is picked
            hits.add(lay.touch_rect(rect), PickTile(tile))


def guidance(view: TableView, seat_view: dict[str, Any], seat: int) -> str:
    """The one line that says what to do now (or why a tile cannot go)."""
    tr = view.tr
    phase = seat_view.get("phase")
    selected = view.selection.tile
    newest = view.newest
    if view.seating.watching:  # a spectator: whom the table waits for, nothing to do
        if phase == "play":
            return tr("play.waiting", n=seat_view.get("to_act"))
        return tr("accept.waiting") if phase == "accept" else ""
    request = takeback(newest.raw) if newest is not None else None
    if request is not None and not view.allowed(seat, "accept_takeback"):
        return waiting_text(tr, request, lambda n: seat_label(view, n), viewer=seat)
    if newest is not None and newest.table is not None and newest.table.raw.get("forfeited"):
        return tr("status.forfeited")
    if phase == "match_over":
        return tr("match.over", team=seat_view.get("winner"))
    if phase == "accept":
        return tr("accept.waiting")
    if phase == "choose_opener":
        return tr("opener.waiting", n=seat_view.get("to_act"))
    if phase == "play":
        if seat_view.get("to_act") != seat:
            return tr("play.waiting", n=seat_view.get("to_act"))
        sent = view.seating.sent.get(seat)
        if sent is not None:
            return tr("play.sending", tile=sent[0])
        if seat_view.get("first_hand") and not seat_view.get("line"):
            return tr("play.must_66")
        if not seat_view.get("line") and not selected:
            return tr("play.open_any")
        if selected:
            ends = view.legal_plays(seat).get(selected, [])
            if not ends:
                return tr("play.not_legal", tile=selected)
            if len(ends) > 1 and view.selection.end not in ends:
                return tr("play.choose_end", tile=selected)
            return tr("play.confirm", tile=selected)
        return tr("play.your_turn")
    return ""


def draw_guidance(
    view: TableView,
    surface: pygame.Surface,
    layout: lay.TableLayout,
    seat_view: dict[str, Any],
    seat: int,
) -> None:
    value = guidance(view, seat_view, seat)
    if value:
        size = d.fit_size(value, layout.message.w, 18)
        d.text(
            surface,
            value,
            layout.message.center,
            size,
            d.WHITE,
            bold=True,
            anchor="center",
            within=layout.message,
        )
