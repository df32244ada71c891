"""Pure geometry of the table: where seats, the line of play, the hand and the buttons go.

Nothing here draws or needs a display (``pygame.Rect`` is plain arithmetic), so it is
unit-tested directly. Seats are placed counter-clockwise from the viewer (RULES §1):
the next seat on the right, the partner on top, the previous seat on the left.

The line of play is a single line (no branches). The hand's first tile sits at the
centre; the line grows only at its ends — the right end to the right, then down a row
and back, the left end to the left, then up a row and back — so a tile never moves
once it is on the table; when the line would leave the board, all of it shrinks
alike. Its two open ends get a *target slot* each: where the next tile of that end
goes. A double is drawn across the line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
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


# The line in units of a tile's short side: a tile is 2 long, a double across 1 wide and
# 2 high; rows are 2 high and ROW_PITCH apart; GAP between neighbours. Doing the layout
# in units, and only then in pixels, is what keeps it still: which row a tile goes in
# never depends on the tile size, so a smaller tile size shrinks the drawing uniformly.
GAP = 0.15
ROW_PITCH = 2.5
FULL_LINE = 25 * 2.15  # units of line a whole hand can lay (25 tiles and their gaps)


def opener_index(view: dict[str, Any]) -> int | None:
    """Where the hand's first tile sits in the line: every later play on the left end
    went in front of it (the seat view's ``turns``, or a finished hand's)."""
    line = view.get("line") or []
    if not line:
        return None
    plays = [t for t in view.get("turns") or [] if t.get("type") == "play"]
    lefts = sum(1 for t in plays[1:] if t.get("end") == "left")
    return max(0, min(len(line) - 1, lefts))


def row_units(area: Rect, max_unit: int) -> float:
    """How many units wide a row of the line is in ``area``: the width at which a whole
    hand's line (``FULL_LINE`` units, split between the two ends) gets the biggest
    tiles there, rows and the spare row of each end included; never less than five
    tiles. A function of the area alone, so the line keeps its shape as it grows."""
    return _row_units(area.w, area.h, max_unit)


@lru_cache(maxsize=64)
def _row_units(width: int, height: int, max_unit: int) -> float:  # a search: once per size
    inner_w, half_h = max(1, width - 2), max(1, height / 2 - 1)
    best = 0.0
    row = 10.5  # units
    while row <= max(10.5, inner_w / 4):
        rows_per_end = math.ceil(max(0.0, FULL_LINE / 2 - row / 2) / row)
        reach_y = (rows_per_end + 1) * ROW_PITCH + 1
        best = max(best, min(max_unit, inner_w / row, half_h / reach_y))
        row += 0.5
    return max(10.5, inner_w / max(best, 1.0))


@dataclass
class _Slot:
    x: float  # left edge, units from the opener's centre
    y: float  # row centre
    w: float
    h: float
    forward: bool


class _Arm:
    """One side of the line growing away from the opener: along its row, and at the
    row's end back along the next row (down for the right arm, up for the left one)."""

    def __init__(self, start: float, direction: int, step: int, half: float) -> None:
        self.cursor = start  # the edge the next tile touches
        self.direction = direction  # +1: to the right, -1: to the left
        self.step = step  # +1: rows go down, -1: up
        self.row = 0
        self.half = half  # half the row's width

    def forward(self) -> bool:
        # The right arm reads left to right when it runs right; the left arm, whose
        # line order runs towards the opener, when it runs left.
        return (self.direction == 1) == (self.step == 1)

    def place(self, width: float, height: float) -> _Slot:
        # At the row's end, turn: the next row starts flush with the last tile's edge.
        if self.direction == 1 and self.cursor + width > self.half:
            self.row, self.direction, self.cursor = self.row + self.step, -1, self.cursor - GAP
        elif self.direction == -1 and self.cursor - width < -self.half:
            self.row, self.direction, self.cursor = self.row + self.step, 1, self.cursor + GAP
        x = self.cursor if self.direction == 1 else self.cursor - width
        self.cursor = x + width + GAP if self.direction == 1 else x - GAP
        return _Slot(x, self.row * ROW_PITCH, width, height, self.forward())

    def peek(self, width: float, height: float) -> _Slot:
        state = (self.cursor, self.direction, self.row)
        slot = self.place(width, height)
        self.cursor, self.direction, self.row = state
        return slot


def _slots(line: list[dict], anchor: int, half: float) -> tuple[list[_Slot], _Slot, _Slot]:
    """Every tile's slot and the two targets', in units around the opener."""
    sizes = [(1.0, 2.0) if _is_double(item) else (2.0, 1.0) for item in line]
    w0, h0 = sizes[anchor]
    slots: list[_Slot | None] = [None] * len(line)
    slots[anchor] = _Slot(-w0 / 2, 0.0, w0, h0, True)
    right = _Arm(w0 / 2 + GAP, 1, 1, half)
    for i in range(anchor + 1, len(line)):
        slots[i] = right.place(*sizes[i])
    left = _Arm(-w0 / 2 - GAP, -1, -1, half)
    for i in range(anchor - 1, -1, -1):
        slots[i] = left.place(*sizes[i])
    placed = [s for s in slots if s is not None]
    return placed, left.peek(2.0, 1.0), right.peek(2.0, 1.0)


def layout_line(
    line: list[dict],
    area: Rect,
    max_unit: int = 36,
    anchor: int | None = None,
) -> LineLayout:
    """Lay ``line`` (the seat view's ``line``, left to right) out inside ``area``, the
    hand's first tile (``line[anchor]``, ``opener_index``) at the centre.

    The line grows only at its ends: the right end goes right, then at the edge down
    a row and back; the left end left, then up a row and back. A tile, once placed,
    keeps its place as tiles are added; when the drawing would leave the area, every
    tile shrinks alike towards the centre (the relative positions stay).
    """
    area = Rect(area)
    half = row_units(area, max_unit) / 2
    if not line:
        tiles: list[_Slot] = []
        targets = {"center": _Slot(-1.0, 0.0, 2.0, 1.0, True)}
    else:
        anchor = len(line) // 2 if anchor is None else max(0, min(len(line) - 1, anchor))
        tiles, left, right = _slots(line, anchor, half)
        targets = {"left": left, "right": right}
    everything = tiles + list(targets.values())
    cx, cy = area.centerx, area.centery
    rows = {round(s.y / ROW_PITCH) for s in tiles} or {0}
    # The tile size fits the whole row width and one row more than used on each side
    # (where the next tile of an end may turn to): both only grow with the line, so the
    # size only ever shrinks, and every tile keeps its place relative to the centre.
    reach_x = max([half] + [max(-s.x, s.x + s.w) for s in everything])
    reach_y = max(abs(min(rows) - 1), abs(max(rows) + 1)) * ROW_PITCH + 1
    unit = int(max(1, min(max_unit, (area.w / 2 - 1) / reach_x, (area.h / 2 - 1) / reach_y)))

    def to_rect(slot: _Slot, u: int) -> Rect:
        x = cx + round(slot.x * u)
        top = cy + round(slot.y * u) - round(slot.h * u / 2)
        return Rect(x, top, round(slot.w * u), round(slot.h * u))

    while unit > 1 and not all(area.contains(to_rect(s, unit)) for s in everything):
        unit -= 1  # rounding at the very edge
    result = LineLayout(unit=unit, rows=len(rows))
    for i, (item, slot) in enumerate(zip(line, tiles, strict=True)):
        a, b = item.get("a"), item.get("b")
        shown_left, shown_right = (a, b) if slot.forward else (b, a)
        result.tiles.append(
            Placed(
                "tile",
                to_rect(slot, unit),
                i,
                tile=item.get("tile"),
                left=shown_left,
                right=shown_right,
                across=_is_double(item),
                forward=slot.forward,
            )
        )
    for key, slot in targets.items():
        index = -1 if key == "left" else len(line)
        result.targets[key] = Placed(
            "target",
            to_rect(slot, unit),
            index,
            end=None if key == "center" else key,
            forward=slot.forward,
        )
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


def place_tags(
    slots: dict[str, Rect],
    sizes: dict[str, tuple[int, int]],
    obstacles: list[Rect],
    bounds: Rect,
) -> dict[str, Rect]:
    """Where to write a label of ``sizes[key]`` by each ``slots[key]`` (the open ends'
    names): above the slot (the left end first: its line turns up), below it, or beside
    it, the first place that covers no ``obstacles`` (the line's tiles, the marks), no
    slot and no label placed before, inside ``bounds``; the first place when none is
    free."""
    placed: dict[str, Rect] = {}
    for key, slot in slots.items():
        w, h = sizes[key]
        above = Rect(slot.centerx - w // 2, slot.top - 2 - h, w, h)
        below = Rect(slot.centerx - w // 2, slot.bottom + 2, w, h)
        outer = Rect(slot.left - 4 - w, slot.centery - h // 2, w, h)
        inner = Rect(slot.right + 4, slot.centery - h // 2, w, h)
        if key == "right":
            outer, inner = inner, outer
        order = [above, below, outer, inner] if key == "left" else [below, above, outer, inner]
        taken = [*obstacles, *slots.values(), *placed.values()]
        free = [r for r in order if bounds.contains(r) and not any(r.colliderect(o) for o in taken)]
        placed[key] = free[0] if free else order[0].clamp(bounds)
    return placed


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


LINE_MAX_UNIT = 40  # px: the line's tiles are never drawn bigger (short side)
MIN_DRAWING = (480, 360)  # the smallest drawing the table lays out
SIZE_STEP = 0.05  # a chosen size that does not fit is tried this much smaller
TILES_KEPT = 0.95  # a bigger size keeps the board's tiles at least this big (rounding)


def board_unit(size: tuple[int, int]) -> int:
    """The short side (px) of the line's tiles on a board of a ``size`` drawing: what a
    whole hand's line gets there (``layout_line`` of its first tile)."""
    layout = layout_table(size[0], size[1], 10)  # the widest toolbar: 8 + Leave + Lobby
    first = [{"tile": "6-6", "a": 6, "b": 6}]
    return layout_line(first, layout.board.inflate(-16, -16), max_unit=LINE_MAX_UNIT).unit


@lru_cache(maxsize=64)
def fitting_scale(window: tuple[int, int], wanted: float) -> float:
    """The biggest scale up to ``wanted`` at which the window still shows the board's
    tiles as big as at 100 % (``TILES_KEPT``): text and buttons grow with the scale,
    but the drawing shrinks, and the board with it faster than the rest; past a point
    the tiles would come out smaller than at 100 % and the board unreadable. 1.0 when
    no bigger size fits the window."""
    w, h = window
    keep = TILES_KEPT * board_unit((w, h))
    scale = round(wanted, 3)
    while scale > 1.0:
        drawing = (round(w / scale), round(h / scale))
        fits = drawing[0] >= MIN_DRAWING[0] and drawing[1] >= MIN_DRAWING[1]
        if fits and board_unit(drawing) * scale >= keep:
            return scale
        scale = round(scale - SIZE_STEP, 3)
    return 1.0


def ui_scale(window: tuple[int, int], choice: str = "auto") -> float:
    """How much bigger than the drawing the window is drawn. ``auto``: as much bigger
    than the 1280×800 design as the window is (1 up to 15 % more, at most 2×); a
    percentage ("125"): that size where it fits the window, else the biggest that does
    (``fitting_scale``: a size that makes the board's tiles smaller does not fit; the
    settings screen says so)."""
    if choice != "auto" and choice.isdigit():
        return fitting_scale((int(window[0]), int(window[1])), int(choice) / 100)
    ratio = min(window[0] / 1280, window[1] / 800)
    return 1.0 if ratio < 1.15 else min(2.0, round(ratio, 3))
