"""Tiles are small values: parse/print round trips, both orientations, ordering."""

import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import IllegalEventError, Tile
from engine.tiles import (
    ALL_TILES_MASK,
    DOUBLE_MASK,
    TILE_PIPS,
    TILE_TEXT,
    mask_pips,
    mask_texts,
    tile_id,
)

numbers = st.integers(0, 6)


@given(numbers, numbers)
def test_a_tile_parses_and_prints_the_same_both_ways_round(a, b):
    tile = Tile.parse(f"{a}-{b}")
    assert tile == Tile.parse(f"{b}-{a}") == Tile(b, a)
    assert str(tile) == f"{min(a, b)}-{max(a, b)}"
    assert Tile.parse(str(tile)) is tile  # interned values
    assert eval(repr(tile)) == tile  # the repr reads as a constructor
    assert tile.pips == a + b
    assert tile.is_double == (a == b)
    assert pickle.loads(pickle.dumps(tile)) == tile


def test_there_are_28_tiles_7_doubles_in_low_high_order():
    assert len(TILE_TEXT) == 28 and ALL_TILES_MASK == (1 << 28) - 1
    assert DOUBLE_MASK.bit_count() == 7
    assert mask_texts(ALL_TILES_MASK) == sorted(
        TILE_TEXT, key=lambda t: tuple(map(int, t.split("-")))
    )
    assert sorted(Tile.parse(t) for t in ("3-5", "0-6", "3-3", "1-2")) == [
        Tile.parse("0-6"),
        Tile.parse("1-2"),
        Tile.parse("3-3"),
        Tile.parse("3-5"),
    ]
    assert sum(TILE_PIPS) == 168


@pytest.mark.parametrize(
    "text", ["7-1", "3", "a-b", "3-5-1", "", " 3-5", "-1-2", None, 35, ["3-5"]]
)
def test_malformed_tiles_are_bad_event(text):
    with pytest.raises(IllegalEventError) as err:
        tile_id(text)
    assert err.value.code == "bad_event"


def test_tiles_are_frozen():
    with pytest.raises(AttributeError):
        Tile.parse("3-5").a = 4


def test_mask_texts_lists_every_tile_of_a_mask_in_id_order():
    rng = random.Random(4)
    masks = [0, (1 << 28) - 1, 1, 1 << 27, 1 << 7, 1 << 21] + [
        rng.getrandbits(28) for _ in range(2000)
    ]
    for mask in masks:
        assert mask_texts(mask) == [TILE_TEXT[i] for i in range(28) if mask >> i & 1], mask


def test_mask_pips_adds_the_pips_of_every_tile_of_a_mask():
    rng = random.Random(5)
    masks = [0, (1 << 28) - 1, 1, 1 << 27, 1 << 7, 1 << 21] + [
        rng.getrandbits(28) for _ in range(2000)
    ]
    for mask in masks:
        assert mask_pips(mask) == sum(TILE_PIPS[i] for i in range(28) if mask >> i & 1), mask
    assert mask_pips((1 << 28) - 1) == 168  # the double-six set
