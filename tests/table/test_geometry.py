"""The table's geometry (``clients/table/layout.py``) and pointer input (``input.py``)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import itertools

import pygame
import pytest
from pygame import Rect

from clients.table import input as table_input
from clients.table.layout import (
    MIN_TOUCH,
    layout_hand,
    layout_line,
    layout_table,
    seat_at,
    seat_position,
    touch_rect,
)
from tests.engine.helpers import self_play


@pytest.mark.parametrize("viewer", [1, 2, 3, 4])
def test_seats_run_counter_clockwise_from_the_viewer(viewer):
    nxt, partner, prev = viewer % 4 + 1, (viewer + 1) % 4 + 1, (viewer + 2) % 4 + 1
    assert seat_position(viewer, viewer) == "bottom"
    assert seat_position(viewer, nxt) == "right"
    assert seat_position(viewer, partner) == "top"
    assert seat_position(viewer, prev) == "left"
    for position in ("bottom", "right", "top", "left"):
        assert seat_position(viewer, seat_at(viewer, position)) == position


def _lines():
    """Lines of every length a hand reaches, from random legal play."""
    found = {}
    for seed in range(40):
        events, m = self_play(seed, max_events=120)
        line = m.seat_view(1)["line"]
        found.setdefault(len(line), line)
    return [found[n] for n in sorted(found)]


@pytest.mark.parametrize("size", [(480, 360), (800, 600), (1280, 800), (1920, 1080)])
def test_the_line_snakes_inside_the_board_without_overlaps(size):
    board = layout_table(*size, 10).board
    for line in _lines():
        placed = layout_line(line, board)
        rects = [p.rect for p in placed.tiles] + [t.rect for t in placed.targets.values()]
        assert all(board.contains(r) for r in rects), (size, len(line))
        for a, b in itertools.combinations(rects, 2):
            assert not a.colliderect(b), (size, len(line), a, b)
        assert len(placed.tiles) == len(line)
        assert set(placed.targets) == ({"center"} if not line else {"left", "right"})
        for item, shown in zip(line, placed.tiles, strict=False):
            assert shown.across == (item["a"] == item["b"])
            assert {shown.left, shown.right} == {item["a"], item["b"]}
        # Each row reads in its own direction: the numbers that touch are equal.
        for left, right in zip(placed.tiles, placed.tiles[1:], strict=False):
            if left.rect.centery == right.rect.centery and not (left.across or right.across):
                first, second = sorted((left, right), key=lambda p: p.rect.x)
                assert first.right == second.left


@pytest.mark.parametrize("size", [(480, 360), (800, 600), (1280, 800)])
def test_toolbar_and_hand_targets_are_big_enough_and_apart(size):
    layout = layout_table(*size, 10)
    for a, b in itertools.combinations(layout.buttons, 2):
        assert not a.colliderect(b)
    assert all(r.w >= MIN_TOUCH and r.h >= MIN_TOUCH for r in layout.buttons)
    assert all(Rect(0, 0, *size).contains(r) for r in layout.buttons)
    hand = layout_hand(layout.hand, 7)
    assert all(layout.hand.contains(r) for r in hand)
    assert all(b.x - a.x >= MIN_TOUCH for a, b in zip(hand, hand[1:], strict=False))
    assert touch_rect(Rect(10, 10, 8, 8)).size == (MIN_TOUCH, MIN_TOUCH)


def _event(kind, **fields):
    return pygame.event.Event(kind, **fields)


def test_a_touch_counts_once_and_a_long_move_is_a_drag():
    pygame.init()
    tracker = table_input.PointerTracker(lambda: (1000, 500))
    got = []
    for event in (
        _event(pygame.FINGERDOWN, finger_id=1, touch_id=1, x=0.1, y=0.2, dx=0, dy=0),
        _event(pygame.MOUSEBUTTONDOWN, pos=(100, 100), button=1, touch=True),
        _event(pygame.FINGERUP, finger_id=1, touch_id=1, x=0.1, y=0.2, dx=0, dy=0),
        _event(pygame.MOUSEBUTTONUP, pos=(100, 100), button=1, touch=True),
    ):
        got += tracker.feed(event)
    assert [(p.kind, p.source, p.pos) for p in got] == [
        ("down", "touch", (100, 100)),
        ("up", "touch", (100, 100)),
    ]
    got = []
    for event in (
        _event(pygame.MOUSEBUTTONDOWN, pos=(10, 10), button=1, touch=False),
        _event(pygame.MOUSEMOTION, pos=(40, 10), rel=(30, 0), buttons=(1, 0, 0), touch=False),
        _event(pygame.MOUSEBUTTONUP, pos=(40, 10), button=1, touch=False),
    ):
        got += tracker.feed(event)
    assert got[-1].kind == "up" and got[-1].dragging
    # A second finger while the first is down is ignored.
    tracker.feed(_event(pygame.FINGERDOWN, finger_id=1, touch_id=1, x=0.5, y=0.5, dx=0, dy=0))
    assert (
        tracker.feed(_event(pygame.FINGERDOWN, finger_id=2, touch_id=1, x=0.6, y=0.6, dx=0, dy=0))
        == []
    )
    pygame.quit()


def test_keys_map_to_commands():
    pygame.init()

    def key(k, mod=0):
        return table_input.key_action(_event(pygame.KEYDOWN, key=k, mod=mod))

    assert key(pygame.K_RIGHT) == "select_next" and key(pygame.K_LEFT) == "select_prev"
    assert key(pygame.K_UP) == "end_left" and key(pygame.K_DOWN) == "end_right"
    assert key(pygame.K_RETURN) == "confirm" and key(pygame.K_ESCAPE) == "cancel"
    assert key(pygame.K_z, pygame.KMOD_CTRL) == "undo"
    assert key(pygame.K_z, pygame.KMOD_CTRL | pygame.KMOD_SHIFT) == "redo"
    assert [key(k) for k in (pygame.K_h, pygame.K_u, pygame.K_y, pygame.K_r, pygame.K_l)] == [
        "hint",
        "undo",
        "redo",
        "rules",
        "log",
    ]
    pygame.quit()
