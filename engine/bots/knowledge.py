"""What one seat knows, read from its seat view and turned into masks.

Bots never see the Match: only the view dict the contract defines. Everything here is
derived from public information plus the seat's own hand, so anything built on it
cannot leak another seat's tiles. Seats are indexed 0..3 (seat number minus one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.core import EMPTY, LEFT, RIGHT
from engine.tiles import ALL_TILES_MASK, NUM_MASK, TILE_ID

END_INDEX = {"left": LEFT, "right": RIGHT}
END_NAMES = ("left", "right")


def tiles_mask(texts: Iterable[str]) -> int:
    mask = 0
    for text in texts:
        mask |= 1 << TILE_ID[text]
    return mask


def numbers_mask(numbers: Iterable[int]) -> int:
    """A 7-bit mask of numbers (bit n: number n)."""
    mask = 0
    for n in numbers:
        mask |= 1 << n
    return mask


def tiles_with_numbers(number_bits: int) -> int:
    """Every tile showing at least one of the numbers in a 7-bit mask."""
    mask = 0
    for n in range(7):
        if number_bits >> n & 1:
            mask |= NUM_MASK[n]
    return mask


@dataclass
class Knowledge:
    me: int  # seat index of the deciding seat
    hand: int  # own tiles
    unknown: int  # tiles neither in my hand nor on the table
    counts: list[int]  # tiles held by each seat index
    voids: list[int]  # 7-bit masks: numbers each seat is known not to hold
    left: int  # open ends, EMPTY before the opening
    right: int
    to_act: int  # seat index to act (play phase)
    passes: int  # passes in a row
    must_open_66: bool  # first hand of the match, before its opening
    opener: int | None  # who opened this hand (None before the opening)
    scores: tuple[int, int]  # (team A, team B)
    base: int
    first_hand: bool

    @property
    def team(self) -> int:
        return self.me & 1

    def allowed(self, seat: int) -> int:
        """Unknown tiles seat ``seat`` may hold given its passes."""
        return self.unknown & ~tiles_with_numbers(self.voids[seat])


def read_view(view: Mapping[str, Any]) -> Knowledge:
    me = view["seat"] - 1
    hand = tiles_mask(view["hand"])
    played = tiles_mask(item["tile"] for item in view.get("line") or ())
    counts = [int(view["tile_counts"][str(i + 1)]) for i in range(4)]
    counts[me] = hand.bit_count()
    lacks = view.get("lacks") or {}
    voids = [numbers_mask(lacks.get(str(i + 1), ())) for i in range(4)]
    ends = view.get("ends")
    left, right = (ends[0], ends[1]) if ends else (EMPTY, EMPTY)
    to_act = (view["to_act"] - 1) if view.get("to_act") else me
    opener = None
    for turn in view.get("turns") or ():
        if turn.get("type") == "play":
            opener = turn["seat"] - 1
            break
    # First hand of a match before its opening: the seat to act holds 6-6 (RULES §3).
    must_open_66 = bool(view.get("first_hand")) and left == EMPTY and view.get("phase") == "play"
    scores = view.get("scores") or {"A": 0, "B": 0}
    return Knowledge(
        me=me,
        hand=hand,
        unknown=ALL_TILES_MASK & ~hand & ~played,
        counts=counts,
        voids=voids,
        left=left,
        right=right,
        to_act=to_act,
        passes=int(view.get("passes_in_row") or 0),
        must_open_66=must_open_66,
        opener=opener,
        scores=(int(scores["A"]), int(scores["B"])),
        base=int(view.get("base") or 1),
        first_hand=bool(view.get("first_hand")),
    )


def event_placement(event: Mapping[str, Any]) -> tuple[int, int | None]:
    """(tile id, end index or None) of a legal play event."""
    end = event.get("end")
    return TILE_ID[event["tile"]], (END_INDEX[end] if end else None)
