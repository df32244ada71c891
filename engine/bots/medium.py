"""Level "medium": a one-ply heuristic on the seat's own knowledge.

Each legal play gets a score: keep tiles that back the ends left open (so the seat can
play again), keep a variety of numbers, dump heavy tiles and doubles, leave ends the
next opponent is known to lack and avoid ends the partner lacks. Winning the hand, and
winning it with a Dékabès, come first.
"""

from __future__ import annotations

import random
from typing import Any

from engine.bots.common import deal_decision, opener_event
from engine.bots.knowledge import Knowledge, event_placement, read_view
from engine.core import EMPTY
from engine.tiles import DOUBLE_MASK, NUM_MASK, OTHER, TILE_HI, TILE_LO, TILE_PIPS


def decide(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    phase = view["phase"]
    if phase == "accept":
        return deal_decision(view)
    legal: list[dict[str, Any]] = view["legal"]
    if phase == "choose_opener":
        know = read_view(view)
        seat = view["seat"]
        return opener_event(view, seat if hand_strength(know.hand) >= 0 else view["partner"])
    if len(legal) == 1:
        return legal[0]
    know = read_view(view)
    scored = [(score_play(know, *event_placement(e)), i) for i, e in enumerate(legal)]
    return legal[max(scored)[1]]


def hand_strength(hand: int) -> float:
    """Above 0: a hand worth opening with (long suits, few doubles, light)."""
    longest = max((hand & NUM_MASK[n]).bit_count() for n in range(7))
    doubles = (hand & DOUBLE_MASK).bit_count()
    distinct = sum(1 for n in range(7) if hand & NUM_MASK[n])
    return longest + 0.5 * distinct - doubles - 5.5


def score_play(know: Knowledge, tid: int, end: int | None) -> float:
    rest = know.hand & ~(1 << tid)
    if know.left == EMPTY:
        new_left, new_right = TILE_LO[tid], TILE_HI[tid]
    elif end == 0 or (end is None and OTHER[tid][know.left] >= 0):
        new_left, new_right = OTHER[tid][know.left], know.right
    else:
        new_left, new_right = know.left, OTHER[tid][know.right]
    if not rest:
        dekabes = (
            know.left != EMPTY
            and OTHER[tid][know.left] >= 0
            and OTHER[tid][know.right] >= 0
            and not DOUBLE_MASK >> tid & 1
        )
        return 1000.0 + (100.0 if dekabes else 0.0)
    ends_mask = (1 << new_left) | (1 << new_right)
    backing = (rest & (NUM_MASK[new_left] | NUM_MASK[new_right])).bit_count()
    variety = sum(1 for n in range(7) if rest & NUM_MASK[n])
    score = 3.0 * backing + 1.0 * variety + 0.6 * TILE_PIPS[tid]
    if DOUBLE_MASK >> tid & 1:
        score += 4.0
    nxt, partner, prev = (know.me + 1) & 3, (know.me + 2) & 3, (know.me + 3) & 3
    if know.voids[nxt] & ends_mask == ends_mask:
        score += 6.0
    if know.voids[prev] & ends_mask == ends_mask:
        score += 2.0
    if know.voids[partner] & ends_mask == ends_mask:
        score -= 5.0
    return score
