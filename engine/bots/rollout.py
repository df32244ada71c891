"""Fast playouts of a hand on plain masks, used by the strong bot in sampled worlds.

The playout policy is a cheap heuristic every seat follows: play the tile with the best
static weight (pips, doubles first because they are the hardest to place later), and
put a tile that fits both ends where it leaves open a number the seat still holds most
of. It looks only at the seat's own hand and the ends, so a playout does not "cheat"
with the sampled world beyond what the world itself fixes.

Result codes: team * 2 + dekabes for a win (team 0 = A, 1 = B), ``TIE`` for a tied block.
"""

from __future__ import annotations

from engine.core import FIT_MASK, block_team
from engine.tiles import DOUBLE_MASK, NUM_MASK, OTHER, TILE_HI, TILE_LO, TILE_PIPS, mask_pips

TIE = 4

# Static playout weight of each tile: heavy first, doubles early.
DOUBLE_BONUS = 6
WEIGHT: tuple[int, ...] = tuple(
    TILE_PIPS[t] + (DOUBLE_BONUS if DOUBLE_MASK >> t & 1 else 0) for t in range(28)
)


def block_code(hands: list[int]) -> int:
    """The result code of a blocked hand (``core.block_team`` on the pip counts)."""
    team = block_team([mask_pips(h) for h in hands])
    return TIE if team is None else team * 2


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
            if (
                to_right >= 0
                and left != right
                and (
                    (hand & num_mask[to_right]).bit_count() > (hand & num_mask[to_left]).bit_count()
                )
            ):
                right = to_right
            else:
                left = to_left
        else:
            right = to_right
        seat = (seat + 1) & 3


def opening_choice(hand: int) -> int:
    """Open with a heavy tile from the numbers the hand holds most of."""
    best = -1
    tid = -1
    mask = hand
    while mask:
        low = mask & -mask
        t = low.bit_length() - 1
        mask ^= low
        backing = (hand & NUM_MASK[TILE_LO[t]]).bit_count() + (
            hand & NUM_MASK[TILE_HI[t]]
        ).bit_count()
        score = backing * 10 + WEIGHT[t]
        if score > best:
            best, tid = score, t
    return tid
