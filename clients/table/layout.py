"""Pure geometry of the table: where seats, the line of play, the hand and the buttons go.

Nothing here draws or needs a display (``pygame.Rect`` is plain arithmetic), so it is
unit-tested directly. Seats are placed counter-clockwise from the viewer (RULES §1):
the next seat on the right, the partner on top, the previous seat on the left.

The line of play is a single line (no branches). It is laid out as a snake: rows of
tiles alternately left-to-right and right-to-left, the tiles of a row touching the
tiles before and after them, so a line of any length fits a window of any size. Its
two open ends get a *target slot* each: before the first tile and after the last. A
double is drawn across the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pygame import Rect

POSITIONS = ("bottom", "right", "top", "left")
MIN_TOUCH = 44  # px: the smallest touch target (issue 5)


def seat_position(viewer: int, seat: int) -> str:
    """Where ``seat`` sits on the screen of ``viewer`` (turn order is counter-clockwise)."""
    return POSITIONS[(int(seat) - int(viewer)) % 4]


def seat_at(viewer: int, position: str) -> int:
    return (int(viewer) - 1 + POSITIONS.index(position)) % 4 + 1


def touch_rect(rect: Rect, minimum: int = MIN_TOUCH) -> Rect:
    """``rect`` grown (around its centre) to at least ``minimum`` px each way."""
    grown = Rect(rect)
    if grown.w < minimum:
        grown.inflate_ip(minimum - grown.w, 0)
    if grown.h < minimum:
        grown.inflate_ip(0, minimum - grown.h)
    return grown


# ---------------------------------------------------------------------------- line of play
@dataclass
class Placed:
    """One slot of the laid-out line: a tile, or the target slot of an open end."""

    kind: str  # "tile" | "target"
    rect: Rect
    index: int  # position in the line; -1 for the left target, len for the right
    tile: str | None = None
    left: int | None = None  # the number drawn on the screen-left (or top) half
    right: int | None = None  # ... on the screen-right (or bottom) half
    across: bool = False  # a double, drawn across the line (upright)
    end: str | None = None  # targets: "left" | "right" | None (empty line: the first tile)
    forward: bool = True  # the row runs left-to-right


@dataclass
class LineLayout:
    unit: int  # short side of a tile; the long side is 2 * unit
    tiles: list[Placed] = field(default_factory=list)
    targets: dict[str, Placed] = field(default_factory=dict)  # "left"/"right" or "center"
    rows: int = 1

    def target_hit(self, key: str) -> Rect:
        return touch_rect(self.targets[key].rect)


def _is_double(item: dict) -> bool:
    return item.get("a") == item.get("b")


def _pack(widths: list[int], width: int, gap: int) -> list[list[int]] | None:
    rows: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if w > width:
            return None
        need = w if not rows[-1] else used + gap + w
        if rows[-1] and need > width:
            rows.append([i])
            used = w
        else:
            rows[-1].append(i)
            used = need
    return rows


def layout_line(line: list[dict], area: Rect, max_unit: int = 36, min_unit: int = 6) -> LineLayout:
    """Lay ``line`` (the seat view's ``line``, left to right) out as a snake inside ``area``.

    Picks the biggest tile size that fits, with the two target slots included.
    """
    area = Rect(area)
    empty = not line
    # items: ("target", end) | ("tile", index)
    items: list[tuple[str, Any]] = []  # ("tile", int) | ("target", str | None)
    if empty:
        items.append(("target", None))
    else:
        items.append(("target", "left"))
        items.extend(("tile", i) for i in range(len(line)))
        items.append(("target", "right"))

    def width_of(item, u):
        if item[0] == "tile" and _is_double(line[item[1]]):
            return u
        return 2 * u

    unit = max(min_unit, min(max_unit, area.h // 2 if area.h > 0 else min_unit))
    rows = None
    # Below ``min_unit`` only when nothing else fits: a tiny line beats one out of its area.
    while unit >= 2:
        gap = max(1, unit // 10)
        row_gap = max(2, unit // 2)
        rows = _pack([width_of(it, unit) for it in items], area.w, gap)
        if rows is not None:
            total_h = len(rows) * 2 * unit + (len(rows) - 1) * row_gap
            if total_h <= area.h:
                break
        unit -= 1
    if rows is None or unit < 2:
        unit = 2
        gap, row_gap = 1, 2
        rows = _pack([width_of(it, unit) for it in items], max(area.w, 2 * unit), gap) or [
            list(range(len(items)))
        ]

    widths = [width_of(it, unit) for it in items]
    row_widths = [sum(widths[i] for i in r) + gap * (len(r) - 1) for r in rows]
    block_w = max(row_widths)
    total_h = len(rows) * 2 * unit + (len(rows) - 1) * row_gap
    bx = area.centerx - block_w // 2
    by = area.centery - total_h // 2
    result = LineLayout(unit=unit, rows=len(rows))
    for r, members in enumerate(rows):
        forward = r % 2 == 0
        last = r == len(rows) - 1
        extra = 0.0
        if not last and len(members) > 1:
            extra = (block_w - row_widths[r]) / (len(members) - 1)  # justify: the snake turns
        row_y = by + r * (2 * unit + row_gap)
        cursor = float(bx if forward else bx + block_w)
        for _k, i in enumerate(members):
            w = widths[i]
            if forward:
                x = cursor
                cursor += w + gap + extra
            else:
                x = cursor - w
                cursor -= w + gap + extra
            kind, ref = items[i]
            if kind == "tile":
                item = line[ref]
                across = _is_double(item)
                h = 2 * unit if across else unit
                rect = Rect(round(x), row_y + (2 * unit - h) // 2, w, h)
                a, b = item.get("a"), item.get("b")
                left, right = (a, b) if forward else (b, a)
                result.tiles.append(
                    Placed(
                        "tile",
                        rect,
                        ref,
                        tile=item.get("tile"),
                        left=left,
                        right=right,
                        across=across,
                        forward=forward,
                    )
                )
            else:
                rect = Rect(round(x), row_y + unit // 2, w, unit)
                key = ref or "center"
                index = -1 if ref == "left" else len(line)
                result.targets[key] = Placed("target", rect, index, end=ref, forward=forward)
    return result


def ghost_numbers(
    tile: str, end: str | None, ends: list[int] | None, slot: Placed
) -> tuple[int, int, bool]:
    """How a ghost of ``tile`` placed at ``end`` is drawn in its target slot:
    (screen-left number, screen-right number, across). The touching number faces the line."""
    x, y = (int(p) for p in tile.split("-"))
    if x == y:
        return x, y, True
    if end is None or not ends:
        return x, y, False
    value = ends[0] if end == "left" else ends[1]
    other = y if x == value else x
    # In line order a left-end tile reads (other, value); a right-end tile (value, other).
    a, b = (other, value) if end == "left" else (value, other)
    return (a, b, False) if slot.forward else (b, a, False)


def ghost_rect(slot: Placed, across: bool) -> Rect:
    if not across:
        return Rect(slot.rect)
    u = slot.rect.h
    return Rect(slot.rect.centerx - u // 2, slot.rect.centery - u, u, 2 * u)


# ---------------------------------------------------------------------------- the screen
@dataclass
class TableLayout:
    size: tuple[int, int]
    topbar: Rect
    board: Rect
    hand: Rect
    me_label: Rect
    seats: dict[str, Rect]  # "right" | "top" | "left" seat boxes
    buttons: list[Rect]  # toolbar, in the order asked for
    toolbar: Rect
    message: Rect  # one line of guidance above the hand


def layout_table(width: int, height: int, n_buttons: int) -> TableLayout:
    width, height = max(320, int(width)), max(240, int(height))
    top_h = 44 if height >= 500 else 36
    per_row = n_buttons
    if n_buttons and width / n_buttons < 96:
        per_row = (n_buttons + 1) // 2
    rows = 0 if not n_buttons else (n_buttons + per_row - 1) // per_row
    button_h = max(MIN_TOUCH, min(52, height // 14))
    toolbar_h = rows * (button_h + 4) + 4 if rows else 0
    toolbar = Rect(0, height - toolbar_h, width, toolbar_h)
    buttons: list[Rect] = []
    for i in range(n_buttons):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n_buttons - r * per_row)
        bw = (width - 4 * (in_row + 1)) / in_row
        buttons.append(
            Rect(
                round(4 + c * (bw + 4)),
                toolbar.y + 4 + r * (button_h + 4),
                max(MIN_TOUCH, round(bw)),
                button_h,
            )
        )
    low = height < 420  # a low window: the board needs every pixel
    hand_h = int(max(80 if low else 96, min(190, (height - top_h - toolbar_h) * 0.26)))
    hand = Rect(0, toolbar.y - hand_h, width, hand_h)
    message = Rect(8, hand.y - 30, width - 16, 28)
    side_w = int(max(84, min(180, width * 0.13)))
    top_box_h = int(max(44 if low else 52, min(78, height * 0.09)))
    top_w = min(320, width - 2 * side_w - 24)  # between the side boxes
    top_box = Rect(width // 2 - top_w // 2, top_h + 4, top_w, top_box_h)
    board = Rect(
        side_w + 8, top_box.bottom + 6, width - 2 * side_w - 16, message.y - top_box.bottom - 10
    )
    # Side boxes: centred on the board, but never over the message line below them.
    room = Rect(0, top_h + 4, side_w, message.y - 4 - (top_h + 4))
    side_h = int(min(room.h, max(96, min(170, board.h * 0.6))))
    side_y = min(max(room.y, board.centery - side_h // 2), room.bottom - side_h)
    seats = {
        "top": top_box,
        "left": Rect(4, side_y, side_w, side_h),
        "right": Rect(width - side_w - 4, side_y, side_w, side_h),
    }
    me_label = Rect(8, hand.y + 4, min(360, width // 3), 24)
    return TableLayout(
        (width, height),
        Rect(0, 0, width, top_h),
        board,
        hand,
        me_label,
        seats,
        buttons,
        toolbar,
        message,
    )


def layout_hand(area: Rect, count: int, lift: int = 14, max_unit: int = 46) -> list[Rect]:
    """Upright tiles of one's own hand, centred in ``area`` (the legal ones are drawn
    ``lift`` px higher). Each slot is at least ``MIN_TOUCH`` px wide when the area allows."""
    if count <= 0:
        return []
    usable_h = area.h - lift - 34
    unit = max(12, min(max_unit, usable_h // 2, int((area.w - 24) / (count * 1.25))))
    step = max(int(unit * 1.25), min(MIN_TOUCH, (area.w - 24) // count))
    total = step * (count - 1) + unit
    x0 = area.centerx - total // 2
    y = area.bottom - 8 - 2 * unit
    return [Rect(x0 + i * step, y, unit, 2 * unit) for i in range(count)]


def centered_buttons(
    area: Rect, labels_w: list[int], height: int = 56, gap: int = 16
) -> list[Rect]:
    """A row of buttons centred in ``area`` (dialogs); widths from their labels."""
    widths = [max(MIN_TOUCH * 3, w + 48) for w in labels_w]
    total = sum(widths) + gap * (len(widths) - 1)
    if total > area.w - 16:  # too wide: stack them
        rects = []
        y = area.y
        for w in widths:
            w = min(w, area.w - 16)
            rects.append(Rect(area.centerx - w // 2, y, w, height))
            y += height + 10
        return rects
    x = area.centerx - total // 2
    rects = []
    for w in widths:
        rects.append(Rect(x, area.y, w, height))
        x += w + gap
    return rects


def ui_scale(window: tuple[int, int]) -> float:
    """How much bigger than the 1280×800 design the window is (1 up to 15 % more)."""
    ratio = min(window[0] / 1280, window[1] / 800)
    return 1.0 if ratio < 1.15 else min(2.0, round(ratio, 3))
