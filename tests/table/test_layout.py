"""Pure geometry of the table (``clients/table/layout.py``): seat positions, the snaking line of
play, the toolbar, the hand, touch targets. No display is needed (``pygame.Rect`` only).

Lines come from folding random legal self-play with the engine, so they have the shapes real
hands produce (lines grown on both ends, doubles anywhere), lengths 0 to 25. A hand cannot
put more than 25 tiles on the table (it ends when one seat has played its 7th tile), so lines
of 26..28 tiles are prefixes of Euler walks through the whole set, with the same item format.
"""

from __future__ import annotations

import functools
import itertools
import random

import pytest
from pygame import Rect

from clients.table.layout import (
    MIN_TOUCH,
    POSITIONS,
    LineLayout,
    layout_hand,
    layout_line,
    layout_table,
    seat_at,
    seat_position,
    touch_rect,
)
from engine import Match
from tests.engine.helpers import self_play

N_BUTTONS = 10  # the toolbar of the table client (render.frame.BUTTONS) and more
WINDOWS = [
    (480, 360),
    (540, 400),
    (640, 480),
    (800, 600),
    (1024, 768),
    (1280, 720),
    (1280, 800),
    (1366, 768),
    (1600, 900),
    (1920, 1080),
    (480, 1080),
    (1920, 360),
]


# ---------------------------------------------------------------------------- lines
def _check_chain(line: list[dict]) -> list[dict]:
    for item in line:
        x, y = (int(v) for v in item["tile"].split("-"))
        assert {x, y} == {item["a"], item["b"]}, item
    for left, right in zip(line, line[1:], strict=False):
        assert left["b"] == right["a"], (left, right)
    return line


@functools.cache
def _played_lines() -> dict[int, tuple]:
    """One line of every length a hand reaches, folded from random legal self-play."""
    found: dict[int, list[dict]] = {}
    for seed in range(40):
        events, _ = self_play(seed, max_events=300)
        m = Match()
        for event in events:
            m.apply(event)
            seat = 1 + len(found) % 4
            line = m.seat_view(seat)["line"]
            found.setdefault(len(line), line)
        if len(found) >= 26:
            break
    return {n: tuple(_check_chain(list(line))) for n, line in found.items()}


def _euler_line(seed: int) -> list[dict]:
    """All 28 tiles as one legal line (the double-six set is an Euler circuit)."""
    rng = random.Random(seed)
    adjacent: dict[int, list[tuple[int, int]]] = {v: [] for v in range(7)}
    for a in range(7):
        for b in range(a, 7):
            adjacent[a].append((a, b))
            if a != b:
                adjacent[b].append((a, b))
    for tiles in adjacent.values():
        rng.shuffle(tiles)
    used: set[tuple[int, int]] = set()
    stack, walk = [rng.randrange(7)], []
    while stack:
        v = stack[-1]
        while adjacent[v] and adjacent[v][-1] in used:
            adjacent[v].pop()
        if adjacent[v]:
            tile = adjacent[v].pop()
            used.add(tile)
            stack.append(tile[1] if tile[0] == v else tile[0])
        else:
            walk.append(stack.pop())
    line = [
        {"tile": f"{min(a, b)}-{max(a, b)}", "a": a, "b": b, "seat": 1 + i % 4}
        for i, (a, b) in enumerate(zip(walk, walk[1:], strict=False))
    ]
    assert len(line) == 28
    return _check_chain(line)


def _lines() -> list[list[dict]]:
    played = _played_lines()
    missing = [n for n in range(26) if n not in played]
    assert not missing, f"self-play did not produce lines of length {missing}"
    full = _euler_line(7)
    return [list(played[n]) for n in range(26)] + [full[:n] for n in (26, 27, 28)]


def _board(size) -> Rect:
    return layout_table(*size, N_BUTTONS).board


def _join_number(tile, outgoing: bool) -> int:
    """The number a placed tile shows on its side toward the next (outgoing) or previous
    tile of the line. A row that runs right-to-left shows the line's order mirrored."""
    if outgoing:
        return tile.right if tile.forward else tile.left
    return tile.left if tile.forward else tile.right


def _check_line(line: list[dict], placed: LineLayout, area: Rect, label) -> None:
    u = placed.unit
    assert len(placed.tiles) == len(line), label
    assert [p.index for p in placed.tiles] == list(range(len(line))), label
    rects = [p.rect for p in placed.tiles] + [t.rect for t in placed.targets.values()]
    # Inside the area.
    for r in rects:
        assert area.contains(r), (label, r, area)
    # No two slots overlap.
    for a, b in itertools.combinations(rects, 2):
        assert not a.colliderect(b), (label, a, b)
    # Targets: the two ends, or the centre of an empty table.
    if not line:
        assert set(placed.targets) == {"center"}, label
        assert placed.targets["center"].end is None
    else:
        assert set(placed.targets) == {"left", "right"}, label
        assert placed.targets["left"].end == "left" and placed.targets["right"].end == "right"
        assert placed.targets["left"].index == -1
        assert placed.targets["right"].index == len(line)
    for t in placed.targets.values():
        assert t.rect.size == (2 * u, u), (label, t.rect)
    # Tiles: doubles across, the right numbers, the right size.
    for item, tile in zip(line, placed.tiles, strict=False):
        double = item["a"] == item["b"]
        assert tile.tile == item["tile"], label
        assert tile.across == double, (label, item)
        assert tile.rect.size == ((u, 2 * u) if double else (2 * u, u)), (label, item, tile.rect)
        in_line_order = (tile.left, tile.right) if tile.forward else (tile.right, tile.left)
        assert in_line_order == (item["a"], item["b"]), (label, item, tile)
    # Neighbours touch with the line's matching number, also where the snake turns.
    for i, (prev, nxt) in enumerate(zip(placed.tiles, placed.tiles[1:], strict=False)):
        shared = line[i]["b"]
        assert _join_number(prev, True) == shared == _join_number(nxt, False), (label, i)
        if prev.forward == nxt.forward:  # same row: the next tile follows on its side
            assert abs(prev.rect.centery - nxt.rect.centery) <= 1, (label, i)
            if prev.forward:
                assert prev.rect.right <= nxt.rect.left, (label, i)
            else:
                assert nxt.rect.right <= prev.rect.left, (label, i)
            gap = (
                (nxt.rect.left - prev.rect.right)
                if prev.forward
                else (prev.rect.left - nxt.rect.right)
            )
            assert gap <= u, (label, i, "neighbours drawn too far apart to read as joined")
        else:  # the snake turns down at the same edge
            assert nxt.rect.top > prev.rect.bottom - u, (label, i)
            if prev.forward:
                assert abs(prev.rect.right - nxt.rect.right) <= 1, (label, i)
            else:
                assert abs(prev.rect.left - nxt.rect.left) <= 1, (label, i)
    # Each end target sits beside its end tile when they share a row.
    if line:
        first, last = placed.tiles[0], placed.tiles[-1]
        left, right = placed.targets["left"], placed.targets["right"]
        if abs(left.rect.centery - first.rect.centery) <= 1:
            assert (
                (left.rect.right <= first.rect.left)
                if first.forward
                else (left.rect.left >= first.rect.right)
            ), label
        if abs(right.rect.centery - last.rect.centery) <= 1:
            assert (
                (right.rect.left >= last.rect.right)
                if last.forward
                else (right.rect.right <= last.rect.left)
            ), label


# ---------------------------------------------------------------------------- seats
@pytest.mark.parametrize("viewer", [1, 2, 3, 4])
def test_seats_sit_counter_clockwise_from_every_viewer(viewer):
    nxt = viewer % 4 + 1
    partner = nxt % 4 + 1
    prev = partner % 4 + 1
    assert seat_position(viewer, viewer) == "bottom"
    assert seat_position(viewer, nxt) == "right", "the next seat sits on the right"
    assert seat_position(viewer, partner) == "top", "the partner sits across"
    assert seat_position(viewer, prev) == "left", "the previous seat sits on the left"
    assert (viewer + partner) % 2 == 0, "partners are on the same team (1 & 3, 2 & 4)"
    assert sorted(seat_position(viewer, s) for s in (1, 2, 3, 4)) == sorted(POSITIONS)


@pytest.mark.parametrize("viewer", [1, 2, 3, 4])
def test_seat_at_is_the_inverse_of_seat_position(viewer):
    for position in POSITIONS:
        seat = seat_at(viewer, position)
        assert seat in (1, 2, 3, 4)
        assert seat_position(viewer, seat) == position
    for seat in (1, 2, 3, 4):
        assert seat_at(viewer, seat_position(viewer, seat)) == seat
    # String seat numbers (as in JSON keys) work the same.
    assert seat_position(str(viewer), "1") == seat_position(viewer, 1)


# ---------------------------------------------------------------------------- the line
def test_the_test_lines_are_legal_chains():
    lines = _lines()
    assert [len(line) for line in lines] == list(range(29))
    assert any(item["a"] == item["b"] for line in lines for item in line), "doubles included"
    assert {item["tile"] for item in lines[28]} == {
        f"{a}-{b}" for a in range(7) for b in range(a, 7)
    }


@pytest.mark.parametrize("size", WINDOWS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_lines_of_every_length_fit_the_board(size):
    board = _board(size)
    assert board.w > 0 and board.h > 0
    for line in _lines():
        _check_line(line, layout_line(line, board), board, (size, len(line)))


@pytest.mark.parametrize("size", [s for s in WINDOWS if s[1] > 360], ids=lambda s: f"{s[0]}x{s[1]}")
def test_lines_fit_the_inset_board_the_table_draws_them_in(size):
    """``render.draw_line`` lays the line out in ``board.inflate(-16, -16)`` with max_unit 40."""
    area = _board(size).inflate(-16, -16)
    for line in _lines():
        _check_line(line, layout_line(line, area, max_unit=40), area, (size, len(line)))


def test_a_long_line_fits_the_inset_board_of_the_smallest_window():
    area = _board((480, 360)).inflate(-16, -16)
    for line in _lines()[20:]:
        placed = layout_line(line, area, max_unit=40)
        rects = [p.rect for p in placed.tiles] + [t.rect for t in placed.targets.values()]
        assert all(area.contains(r) for r in rects), (len(line), area, placed.unit)


@pytest.mark.parametrize("size", [(640, 200), (300, 500), (1500, 120), (200, 200)])
def test_lines_fit_odd_areas(size):
    area = Rect(37, 53, *size)
    for line in _lines():
        _check_line(line, layout_line(line, area), area, (size, len(line)))


def test_a_bigger_board_never_gets_smaller_tiles():
    for line in _lines()[::4]:
        units = [
            layout_line(line, _board(size)).unit
            for size in [(640, 480), (800, 600), (1280, 800), (1920, 1080)]
        ]
        assert units == sorted(units), (len(line), units)


def test_a_short_line_is_centred_and_big():
    board = _board((1280, 800))
    line = _lines()[3]
    placed = layout_line(line, board)
    # on a roomy board the tiles are as big as a whole hand's line allows there, from
    # its first tile to its last (they never shrink during a hand)
    assert placed.rows == 1 and placed.unit >= 30
    assert placed.unit == layout_line(_lines()[25], board).unit
    rects = [p.rect for p in placed.tiles] + [t.rect for t in placed.targets.values()]
    block = rects[0].unionall(rects[1:])
    assert abs(block.centerx - board.centerx) <= 1 and abs(block.centery - board.centery) <= 1


def test_the_empty_table_has_one_centred_target():
    board = _board((800, 600))
    placed = layout_line([], board)
    assert placed.tiles == [] and list(placed.targets) == ["center"]
    target = placed.targets["center"]
    assert board.contains(target.rect)
    assert abs(target.rect.centerx - board.centerx) <= 1
    hit = placed.target_hit("center")
    assert hit.w >= MIN_TOUCH and hit.h >= MIN_TOUCH and hit.contains(target.rect)


def test_end_targets_are_touchable_on_a_crowded_small_board():
    board = _board((480, 360))
    line = _lines()[25]
    placed = layout_line(line, board)
    for key in ("left", "right"):
        hit = placed.target_hit(key)
        assert hit.w >= MIN_TOUCH and hit.h >= MIN_TOUCH
        assert hit.contains(placed.targets[key].rect)


# ---------------------------------------------------------------------------- the table
@pytest.mark.parametrize(
    "size", WINDOWS + [(320, 240), (2560, 1440)], ids=lambda s: f"{s[0]}x{s[1]}"
)
def test_toolbar_buttons_are_big_enough_inside_and_apart(size):
    for n in (1, 4, 8, N_BUTTONS, 12):
        layout = layout_table(*size, n)
        window = Rect(0, 0, *layout.size)
        assert len(layout.buttons) == n
        for r in layout.buttons:
            assert r.w >= MIN_TOUCH and r.h >= MIN_TOUCH, (size, n, r)
            assert window.contains(r), (size, n, r)
            assert layout.toolbar.contains(r), (size, n, r)
        for a, b in itertools.combinations(layout.buttons, 2):
            assert not a.colliderect(b), (size, n, a, b)


def test_no_buttons_no_toolbar():
    layout = layout_table(800, 600, 0)
    assert layout.buttons == [] and layout.toolbar.h == 0
    assert layout.hand.bottom == 600


@pytest.mark.parametrize("size", WINDOWS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_main_regions_fill_the_window_without_overlapping(size):
    layout = layout_table(*size, N_BUTTONS)
    window = Rect(0, 0, *size)
    regions = {
        "topbar": layout.topbar,
        "board": layout.board,
        "message": layout.message,
        "hand": layout.hand,
        "toolbar": layout.toolbar,
        "top seat": layout.seats["top"],
    }
    for name, r in regions.items():
        assert r.w > 0 and r.h > 0 and window.contains(r), (size, name, r)
    for (na, a), (nb, b) in itertools.combinations(regions.items(), 2):
        assert not a.colliderect(b), (size, na, nb)
    for side in ("left", "right"):
        seat = layout.seats[side]
        assert window.contains(seat), (size, side)
        assert not seat.colliderect(layout.board), (size, side)
        assert not seat.colliderect(layout.hand) and not seat.colliderect(layout.toolbar)
    assert layout.seats["left"].right <= layout.board.left
    assert layout.seats["right"].left >= layout.board.right
    assert layout.seats["top"].bottom <= layout.board.top
    assert layout.hand.contains(layout.me_label)


@pytest.mark.parametrize(
    "size",
    [s for s in WINDOWS if s[1] >= 420] + [(1280, 400), (1920, 380)],
    ids=lambda s: f"{s[0]}x{s[1]}",
)
def test_seat_boxes_do_not_cover_each_other_or_the_message(size):
    layout = layout_table(*size, N_BUTTONS)
    boxes = dict(layout.seats, message=layout.message)
    for (na, a), (nb, b) in itertools.combinations(boxes.items(), 2):
        assert not a.colliderect(b), (size, na, nb, a, b)


@pytest.mark.parametrize("size", [(480, 360), (1280, 360)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_seat_boxes_do_not_cover_the_message_in_low_windows(size):
    layout = layout_table(*size, N_BUTTONS)
    boxes = dict(layout.seats, message=layout.message)
    for (na, a), (nb, b) in itertools.combinations(boxes.items(), 2):
        assert not a.colliderect(b), (size, na, nb, a, b)


# ---------------------------------------------------------------------------- the hand
@pytest.mark.parametrize("size", WINDOWS + [(320, 240)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_hand_tiles_in_the_table_hand_area(size):
    area = layout_table(*size, N_BUTTONS).hand
    for count in range(0, 8):
        rects = layout_hand(area, count)
        assert len(rects) == count
        for r in rects:
            assert area.contains(r), (size, count, r)
            assert area.contains(r.move(0, -14)), "a legal tile is drawn 14 px higher"
            assert r.h == 2 * r.w, "hand tiles stand upright"
        for a, b in zip(rects, rects[1:], strict=False):
            assert not a.colliderect(b)
            if area.w - 24 >= MIN_TOUCH * count:  # wide enough for 44 px slots
                assert b.x - a.x >= MIN_TOUCH, (size, count, a, b)
        if rects:
            block = rects[0].unionall(rects[1:])
            assert abs(block.centerx - area.centerx) <= 1, "the hand is centred"


@pytest.mark.parametrize("width", [60, 90, 120, 200, 340, 500, 800, 1400])
@pytest.mark.parametrize("height", [96, 120, 190])
def test_hand_tiles_in_any_area(width, height):
    area = Rect(11, 23, width, height)
    for count in range(1, 8):
        if width - 24 < 15 * count:
            continue  # not even 12 px tiles fit: nothing is promised
        rects = layout_hand(area, count, lift=14)
        for r in rects:
            assert area.contains(r) and area.contains(r.move(0, -14)), (width, height, count, r)
        for a, b in zip(rects, rects[1:], strict=False):
            assert not a.colliderect(b), (width, height, count)
            if width - 24 >= MIN_TOUCH * count:  # wide enough for 44 px slots
                assert b.x - a.x >= MIN_TOUCH, (width, height, count, a, b)


# ---------------------------------------------------------------------------- touch targets
@pytest.mark.parametrize(
    "rect",
    [
        Rect(10, 10, 8, 8),
        Rect(0, 0, 7, 3),
        Rect(5, 5, 100, 10),
        Rect(200, 300, 12, 90),
        Rect(0, 0, 0, 0),
        Rect(1, 1, 43, 45),
        Rect(-20, -20, 25, 31),
    ],
)
def test_touch_rect_grows_small_targets_to_44_px(rect):
    grown = touch_rect(rect)
    assert grown.w >= MIN_TOUCH and grown.h >= MIN_TOUCH
    assert grown.contains(rect)
    assert abs(grown.centerx - rect.centerx) <= 1 and abs(grown.centery - rect.centery) <= 1
    assert grown.w == max(rect.w, MIN_TOUCH) and grown.h == max(rect.h, MIN_TOUCH)
    assert rect == Rect(rect), "the original is not changed"


def test_touch_rect_keeps_big_targets_and_honours_the_minimum():
    big = Rect(5, 6, 120, 60)
    assert touch_rect(big) == big
    assert touch_rect(Rect(0, 0, 10, 10), minimum=60).size == (60, 60)
