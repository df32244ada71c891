"""Fast playouts of a hand on plain masks, used by the strong bot in sampled worlds.

The playout policy is a cheap heuristic every seat follows: play the tile with the best
static weight (pips, doubles first because they are the hardest to place later), and
put a tile that fits both ends where it leaves open a number the seat still holds most
of. It looks only at the seat's own hand and the ends, so a playout does not "cheat"
with the sampled world beyond what the world itself fixes.

Result codes: team * 2 + dekabes for a win (team 0 = A, 1 = B), ``TIE`` for a tied block.
"""

from __future__ import annotations

from engine.core import FIT_MASK
from engine.tiles import DOUBLE_MASK, NUM_MASK, OTHER, TILE_PIPS

TIE = 4
EMPTY = -1

# Static playout weight of each tile: heavy first, doubles early.
DOUBLE_BONUS = 6
WEIGHT: tuple[int, ...] = tuple(
    TILE_PIPS[t] + (DOUBLE_BONUS if DOUBLE_MASK >> t & 1 else 0) for t in range(28)
)


def block_code(hands: list[int]) -> int:
    pips = [_pips(h) for h in hands]
    low = min(pips)
    teams = {i & 1 for i in range(4) if pips[i] == low}
    if len(teams) == 2:
        return TIE
    return teams.pop() * 2


def _pips(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += TILE_PIPS[low.bit_length() - 1]
        mask ^= low
    return total


def choose_tile(hand: int, legal: int, left: int, right: int) -> tuple[int, int]:
    """The playout policy for one seat: (tile id, end 0=left/1=right)."""
    best = -1
    tid = -1
    mask = legal
    weight = WEIGHT
    while mask:
        low = mask & -mask
        t = low.bit_length() - 1
        w = weight[t]
        if w > best:
            best, tid = w, t
        mask ^= low
    row = OTHER[tid]
    to_left = row[left]
    to_right = row[right]
    if to_left >= 0 and to_right >= 0 and left != right:
        rest = hand & ~(1 << tid)
        # where the tile goes, the new end shows to_left (if left) or to_right (if right)
        if (rest & NUM_MASK[to_right]).bit_count() > (rest & NUM_MASK[to_left]).bit_count():
            return tid, 1
        return tid, 0
    return tid, (0 if to_left >= 0 else 1)


def playout(hands: list[int], left: int, right: int, seat: int, passes: int) -> int:
    """Play the hand to its end from a non-empty line; ``hands`` is consumed (mutated)."""
    fit_mask = FIT_MASK
    other = OTHER
    weight = WEIGHT
    num_mask = NUM_MASK
    while True:
        hand = hands[seat]
        legal = hand & fit_mask[left * 7 + right]
        if not legal:
            passes += 1
            if passes == 4:
                return block_code(hands)
            seat = (seat + 1) & 3
            continue
        passes = 0
        if legal & (legal - 1):
            best = -1
            tid = -1
            mask = legal
            while mask:
                low = mask & -mask
                t = low.bit_length() - 1
                if weight[t] > best:
                    best, tid = weight[t], t
                mask ^= low
        else:
            tid = legal.bit_length() - 1
        bit = 1 << tid
        hand ^= bit
        row = other[tid]
        to_left = row[left]
        to_right = row[right]
        if not hand:
            dekabes = to_left >= 0 and to_right >= 0 and not DOUBLE_MASK & bit
            return (seat & 1) * 2 + (1 if dekabes else 0)
        hands[seat] = hand
        if to_left >= 0:
            if to_right >= 0 and left != right and (
                    (hand & num_mask[to_right]).bit_count() > (hand & num_mask[to_left]).bit_count()):
                right = to_right
            else:
                left = to_left
        else:
            right = to_right
        seat = (seat + 1) & 3


def play_opening(hands: list[int], opener: int, must_open_66: bool) -> tuple[int, int, int]:
    """The playout policy's opening tile: (tile id, left, right) and removes it from the hand."""
    from engine.tiles import DOUBLE_SIX, TILE_HI, TILE_LO

    hand = hands[opener]
    if must_open_66:
        tid = DOUBLE_SIX
    else:
        tid = opening_choice(hand)
    hands[opener] = hand & ~(1 << tid)
    return tid, TILE_LO[tid], TILE_HI[tid]


def opening_choice(hand: int) -> int:
    """Open with a heavy tile from the numbers the hand holds most of."""
    from engine.tiles import TILE_HI, TILE_LO

    best = -1
    tid = -1
    mask = hand
    while mask:
        low = mask & -mask
        t = low.bit_length() - 1
        mask ^= low
        backing = ((hand & NUM_MASK[TILE_LO[t]]).bit_count()
                   + (hand & NUM_MASK[TILE_HI[t]]).bit_count())
        score = backing * 10 + WEIGHT[t]
        if score > best:
            best, tid = score, t
    return tid
