"""Tiles of the double-six set as small frozen values, plus the integer tables the fast
core works with.

A tile has an id 0..27 in (low, high) order: 0-0, 0-1, …, 0-6, 1-1, …, 6-6. Hands are
28-bit masks over those ids, so "which tiles fit this end" is one AND.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import total_ordering
from typing import TypeVar

from engine.errors import IllegalEventError

NUMBERS = range(7)
_T = TypeVar("_T")

# id -> (low, high); built in sort order so ids compare like tiles.
TILE_PAIRS: tuple[tuple[int, int], ...] = tuple((a, b) for a in NUMBERS for b in NUMBERS if a <= b)
TILE_LO: tuple[int, ...] = tuple(p[0] for p in TILE_PAIRS)
TILE_HI: tuple[int, ...] = tuple(p[1] for p in TILE_PAIRS)
TILE_PIPS: tuple[int, ...] = tuple(a + b for a, b in TILE_PAIRS)
TILE_TEXT: tuple[str, ...] = tuple(f"{a}-{b}" for a, b in TILE_PAIRS)
_ID_OF_PAIR = {pair: i for i, pair in enumerate(TILE_PAIRS)}
TILE_ID: dict[str, int] = {}
for _i, (_a, _b) in enumerate(TILE_PAIRS):
    TILE_ID[f"{_a}-{_b}"] = _i
    TILE_ID[f"{_b}-{_a}"] = _i

ALL_TILES_MASK = (1 << 28) - 1
TILES_IN_HAND = 7  # a deal gives each of the four seats seven of the 28 tiles
DOUBLE_MASK = sum(1 << i for i, (a, b) in enumerate(TILE_PAIRS) if a == b)
DOUBLE_SIX = _ID_OF_PAIR[(6, 6)]
# NUM_MASK[n]: every tile showing the number n.
NUM_MASK: tuple[int, ...] = tuple(
    sum(1 << i for i, (a, b) in enumerate(TILE_PAIRS) if n in (a, b)) for n in NUMBERS
)
# OTHER[id][n]: the number a tile shows on its far side when attached by n (-1: no fit).
OTHER: tuple[tuple[int, ...], ...] = tuple(
    tuple((b if n == a else a) if n in (a, b) else -1 for n in NUMBERS) for a, b in TILE_PAIRS
)


def tile_id(text: object) -> int:
    """The id of a tile written ``a-b`` (either way round); ``bad_event`` otherwise."""
    if isinstance(text, str):
        tid = TILE_ID.get(text)
        if tid is not None:
            return tid
    raise IllegalEventError("bad_event", f"not a tile: {text!r}")


def mask_ids(mask: int) -> list[int]:
    """Tile ids in a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_texts(mask: int) -> list[str]:
    """Tile texts in a mask, ascending by id (four table lookups, one per 7 bits: a
    seat view writes out nine or more hands)."""
    return list(
        _TEXTS_BY_CHUNK[0][mask & 127]
        + _TEXTS_BY_CHUNK[1][mask >> 7 & 127]
        + _TEXTS_BY_CHUNK[2][mask >> 14 & 127]
        + _TEXTS_BY_CHUNK[3][mask >> 21 & 127]
    )


def _chunk_table(values: Sequence[_T], empty: _T) -> tuple[_T, ...]:
    """``table[bits]``: ``values[i]`` of every bit i set in ``bits`` added up (n values,
    2**n entries), built by doubling: entries with bit i are those without it
    plus ``values[i]`` (a few list operations at start-up instead of 512 sums)."""
    table = [empty]
    for value in values:
        table += [entry + value for entry in table]  # type: ignore[operator]
    return tuple(table)


# _PIPS_BY_CHUNK[k][bits]: the pips of tiles 7k..7k+6 present in ``bits`` (7 bits)
_PIPS_BY_CHUNK = tuple(_chunk_table(TILE_PIPS[7 * k : 7 * k + 7], 0) for k in range(4))
# _TEXTS_BY_CHUNK[k][bits]: the texts of tiles 7k..7k+6 present in ``bits`` (7 bits)
_TEXTS_BY_CHUNK: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    _chunk_table([(text,) for text in TILE_TEXT[7 * k : 7 * k + 7]], ()) for k in range(4)
)


def mask_pips(mask: int) -> int:
    """Pips of the tiles in a mask (a table per 7 bits: the searches count blocked hands
    in their inner loops)."""
    s0, s1, s2, s3 = _PIPS_BY_CHUNK
    return s0[mask & 127] + s1[mask >> 7 & 127] + s2[mask >> 14 & 127] + s3[mask >> 21 & 127]


def hands_pips(hands: list[int]) -> list[int]:
    """``[mask_pips(h) for h in hands]`` for the four hands of a deal (every hand's end
    counts them), three lookups a hand."""
    low, mid, high = _PIPS_BY_THIRD
    h0, h1, h2, h3 = hands
    return [
        low[h0 & 1023] + mid[h0 >> 10 & 511] + high[h0 >> 19],
        low[h1 & 1023] + mid[h1 >> 10 & 511] + high[h1 >> 19],
        low[h2 & 1023] + mid[h2 >> 10 & 511] + high[h2 >> 19],
        low[h3 & 1023] + mid[h3 >> 10 & 511] + high[h3 >> 19],
    ]


# _PIPS_BY_THIRD: tables of tiles 0..9, 10..18 and 19..27 (2,048 entries, built quickly)
_PIPS_BY_THIRD = (
    _chunk_table(TILE_PIPS[0:10], 0),
    _chunk_table(TILE_PIPS[10:19], 0),
    _chunk_table(TILE_PIPS[19:28], 0),
)


@total_ordering
class Tile:
    """A domino tile; ``Tile.parse("5-3") == Tile(3, 5)`` and it prints as ``3-5``."""

    __slots__ = ("low", "high")
    low: int
    high: int

    def __new__(cls, a: int, b: int) -> Tile:
        if not (isinstance(a, int) and isinstance(b, int) and 0 <= a <= 6 and 0 <= b <= 6):
            raise ValueError(f"tile numbers must be 0..6, got {a!r}, {b!r}")
        return _INTERNED[_ID_OF_PAIR[(min(a, b), max(a, b))]]

    @classmethod
    def parse(cls, text: str) -> Tile:
        # TILE_ID's keys are exactly the texts "a-b" with a and b 0..6 (no regex: its
        # compilation was a tenth of this module's import)
        tid = TILE_ID.get(text) if isinstance(text, str) else None
        if tid is None:
            raise ValueError(f"not a tile: {text!r}")
        return _INTERNED[tid]

    @classmethod
    def from_id(cls, tid: int) -> Tile:
        return _INTERNED[tid]

    @property
    def id(self) -> int:
        return _ID_OF_PAIR[(self.low, self.high)]

    @property
    def pips(self) -> int:
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def fits(self, number: int) -> bool:
        return number in (self.low, self.high)

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return self is other if isinstance(other, Tile) else NotImplemented

    def __lt__(self, other: Tile) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return (self.low, self.high) < (other.low, other.high)

    def __hash__(self) -> int:
        return hash((self.low, self.high))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    def __reduce__(self) -> tuple[type[Tile], tuple[int, int]]:
        return (Tile, (self.low, self.high))


def _make(a: int, b: int) -> Tile:
    tile = object.__new__(Tile)
    object.__setattr__(tile, "low", a)
    object.__setattr__(tile, "high", b)
    return tile


_INTERNED: tuple[Tile, ...] = tuple(_make(a, b) for a, b in TILE_PAIRS)
ALL_TILES: tuple[Tile, ...] = _INTERNED
