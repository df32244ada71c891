"""The fast core of one hand: four hand masks, the two open ends, whose turn, the run of
passes. The match fold keeps one of these; the computer players copy it into sampled
worlds and play rollouts on it. Seats are indexed 0..3 here (seat number minus one).

Everything is integers and tuples so a rollout costs a few microseconds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

from engine.tiles import (
    ALL_TILES_MASK,
    DOUBLE_MASK,
    DOUBLE_SIX,
    NUM_MASK,
    OTHER,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    mask_pips,
)

LEFT, RIGHT = 0, 1
EMPTY = -1  # an end of an empty line

# FIT_MASK[left * 7 + right]: every tile that attaches to at least one end.
FIT_MASK: tuple[int, ...] = tuple(NUM_MASK[a] | NUM_MASK[b] for a in range(7) for b in range(7))

# Hand outcomes as small codes (the fold turns them into data).
DOMINO, BLOCK = 1, 2


def team_of(index: int) -> int:
    """0 for team A (seats 1 & 3), 1 for team B (seats 2 & 4)."""
    return index & 1


class HandCore:
    """Mutable state of the hand being played.

    ``hands[i]`` is seat i+1's tile mask; ``left``/``right`` are the open ends (EMPTY
    before the opening tile); ``to_act`` is a seat index; ``passes`` counts passes in a
    row; ``must_open_66`` marks the first hand of a match before its opening.
    """

    __slots__ = ("hands", "left", "right", "to_act", "passes", "must_open_66")
    hands: list[int]
    left: int
    right: int
    to_act: int
    passes: int
    must_open_66: bool

    def __init__(
        self,
        hands: Iterable[int] = (0, 0, 0, 0),
        left: int = EMPTY,
        right: int = EMPTY,
        to_act: int = 0,
        passes: int = 0,
        must_open_66: bool = False,
    ) -> None:
        self.hands = list(hands)
        self.left = left
        self.right = right
        self.to_act = to_act
        self.passes = passes
        self.must_open_66 = must_open_66

    def copy(self) -> HandCore:
        # not through __init__: every hand's snapshot and every rollout copies one
        new = HandCore.__new__(HandCore)
        new.hands = self.hands.copy()
        new.left = self.left
        new.right = self.right
        new.to_act = self.to_act
        new.passes = self.passes
        new.must_open_66 = self.must_open_66
        return new

    def __repr__(self) -> str:
        return (
            f"HandCore(hands={self.hands!r}, left={self.left}, right={self.right}, "
            f"to_act={self.to_act}, passes={self.passes}, must_open_66={self.must_open_66})"
        )

    # -- queries -------------------------------------------------------------------
    def playable_mask(self, index: int) -> int:
        """Tiles seat ``index`` could legally play now (turn not checked)."""
        hand = self.hands[index]
        if self.left == EMPTY:
            return hand & (1 << DOUBLE_SIX) if self.must_open_66 else hand
        return hand & FIT_MASK[self.left * 7 + self.right]

    def placements(self, index: int) -> list[tuple[int, int | None]]:
        """Legal (tile id, end) pairs for seat ``index``; end is None for the opening."""
        mask = self.playable_mask(index)
        out: list[tuple[int, int | None]] = []
        opening = self.left == EMPTY
        while mask:
            low = mask & -mask
            tid = low.bit_length() - 1
            mask ^= low
            if opening:
                out.append((tid, None))
                continue
            if OTHER[tid][self.left] >= 0:
                out.append((tid, LEFT))
            if OTHER[tid][self.right] >= 0:
                out.append((tid, RIGHT))
        return out

    def pips(self) -> list[int]:
        return list(map(mask_pips, self.hands))

    # -- moves (validated by the caller) ---------------------------------------------
    def play(self, tid: int, end: int | None) -> bool:
        """Lay tile ``tid`` for the seat to act; True when that emptied its hand."""
        index = self.to_act
        self.hands[index] &= ~(1 << tid)
        if self.left == EMPTY:
            self.left, self.right = TILE_LO[tid], TILE_HI[tid]
            self.must_open_66 = False
        elif end == LEFT:
            self.left = OTHER[tid][self.left]
        else:
            self.right = OTHER[tid][self.right]
        self.passes = 0
        self.to_act = (index + 1) & 3
        return self.hands[index] == 0

    def pass_turn(self) -> bool:
        """The seat to act passes; True when that made four passes in a row (block)."""
        self.passes += 1
        self.to_act = (self.to_act + 1) & 3
        return self.passes >= 4


def is_dekabes(tid: int, left: int, right: int) -> bool:
    """A non-double last tile that could have gone on either open end (RULES §6)."""
    if (DOUBLE_MASK >> tid) & 1:
        return False
    return OTHER[tid][left] >= 0 and OTHER[tid][right] >= 0


def block_team(pips: Sequence[int]) -> int | None:
    """A blocked hand's winning team (RULES §5): the team of the seat with the lowest
    pip count; None (a tie) when a seat of each team has it."""
    low = min(pips)
    team_a = pips[0] == low or pips[2] == low
    team_b = pips[1] == low or pips[3] == low
    if team_a and team_b:
        return None
    return 0 if team_a else 1


def block_winner(pips: list[int]) -> tuple[int | None, int | None]:
    """(winning team or None for a tie, the lowest-pip seat of the winners)."""
    team = block_team(pips)
    if team is None:
        return None, None
    return team, pips.index(min(pips))  # the first seat with the lowest count


# One bit per tile, and the draws random.Random.shuffle makes for 28 items: for each
# position m = 27 down to 1, j = randbelow(m + 1) (getrandbits of (m + 1).bit_length()
# bits until j <= m), then items j and m swap. Grouped by the seat whose seven positions
# they fill (positions 21-27 are seat 4's, ... 7-13 seat 2's), highest first; seat 1's
# positions (1-6) only draw: that seat gets the seven tiles the others did not.
_TILE_BITS = tuple(1 << tid for tid in range(28))
_DEAL_STEPS = tuple(
    (seat, tuple((m, (m + 1).bit_length()) for m in range(7 * seat + 6, 7 * seat - 1, -1)))
    for seat in (3, 2, 1)
)
_FIRST_SEAT_DRAWS = tuple((m, (m + 1).bit_length()) for m in range(6, 0, -1))


def deal_masks(rng: random.Random) -> list[int]:
    """Shuffle the 28 tiles and deal seven to each seat (the seat's mask: the sum of
    its seven tile bits)."""
    order = list(_TILE_BITS)
    if type(rng) is not random.Random:  # a subclass may draw otherwise: let it shuffle
        rng.shuffle(order)
        return [sum(order[0:7]), sum(order[7:14]), sum(order[14:21]), sum(order[21:28])]
    # rng.shuffle(order) written out (one deal per hand): the same getrandbits draws in
    # the same order, so the same deal and the same rng state after it. Position m is
    # final once swapped: its tile goes straight into its seat's sum, unstored.
    getrandbits = rng.getrandbits
    hands = [0, 0, 0, 0]
    for seat, steps in _DEAL_STEPS:
        total = 0
        for m, bits in steps:
            j = getrandbits(bits)
            while j > m:
                j = getrandbits(bits)
            total += order[j]
            order[j] = order[m]
        hands[seat] = total
    # positions 6..1 are seat 1's whatever is drawn: the draws still advance the rng
    for m, bits in _FIRST_SEAT_DRAWS:
        while getrandbits(bits) > m:
            pass
    hands[0] = ALL_TILES_MASK - hands[1] - hands[2] - hands[3]
    return hands


def holder_of(hands: list[int], tid: int) -> int:
    bit = 1 << tid
    for i in range(4):
        if hands[i] & bit:
            return i
    raise ValueError("tile not dealt")


def random_hand(rng: random.Random, first_hand: bool = True) -> tuple[int, int, bool, int, int]:
    """Deal and play one whole hand with uniformly random legal moves for all four seats.

    Returns (outcome, winning team or -1 for a tie, dekabes, opener index, plies). This is
    the self-play hot loop the benchmark measures, written on locals for speed.
    """
    hands = deal_masks(rng)
    if first_hand:
        opener = holder_of(hands, DOUBLE_SIX)
        tid = DOUBLE_SIX
    else:
        opener = rng.randrange(4)
        opening = hands[opener]
        tid = _nth_bit(opening, rng.randrange(7))
    hands[opener] &= ~(1 << tid)
    left, right = TILE_LO[tid], TILE_HI[tid]
    seat = (opener + 1) & 3
    passes = 0
    plies = 1
    # the hot loop wants the bound method (what randrange calls)
    randbelow: Callable[[int], int] = getattr(rng, "_randbelow")  # noqa: B009
    other = OTHER
    fit_mask = FIT_MASK
    while True:
        plies += 1
        hand = hands[seat]
        legal = hand & fit_mask[left * 7 + right]
        if not legal:
            passes += 1
            if passes == 4:
                pips = [mask_pips(h) for h in hands]
                team, _ = block_winner(pips)
                return BLOCK, (-1 if team is None else team), False, opener, plies
            seat = (seat + 1) & 3
            continue
        passes = 0
        if legal & (legal - 1):
            legal = _nth_bit_mask(legal, randbelow(legal.bit_count()))
        tid = legal.bit_length() - 1
        row = other[tid]
        to_left = row[left]
        to_right = row[right]
        if to_left >= 0 and to_right >= 0:
            if not hand ^ legal:
                return DOMINO, seat & 1, not (DOUBLE_MASK >> tid) & 1, opener, plies
            if randbelow(2):
                right = to_right
            else:
                left = to_left
        elif to_left >= 0:
            left = to_left
        else:
            right = to_right
        hand ^= legal
        if not hand:
            return DOMINO, seat & 1, False, opener, plies
        hands[seat] = hand
        seat = (seat + 1) & 3


def _nth_bit_mask(mask: int, n: int) -> int:
    """The n-th lowest set bit of ``mask``, as a one-bit mask."""
    for _ in range(n):
        mask &= mask - 1
    return mask & -mask


def _nth_bit(mask: int, n: int) -> int:
    return _nth_bit_mask(mask, n).bit_length() - 1


__all__ = [
    "BLOCK",
    "DOMINO",
    "EMPTY",
    "FIT_MASK",
    "HandCore",
    "LEFT",
    "RIGHT",
    "TILE_PIPS",
    "block_winner",
    "deal_masks",
    "holder_of",
    "is_dekabes",
    "random_hand",
    "team_of",
]
