"""Reading the hand's public history for what it suggests about the hidden tiles.

Passes already rule tiles out (``knowledge.voids``, used by the sampler). Plays say
something softer: players tend to dump heavy tiles and doubles, so a seat that played
a light tile while a heavy one would have fitted probably did not hold the heavy one.
The model: a seat chooses among the tiles it could lay with probability proportional
to ``exp(BETA * weight)`` (``rollout.WEIGHT``: pips, plus a bonus for doubles). The
likelihood of a sampled world is the product of those probabilities over the plays of
the other three seats this hand; the expert bot keeps worlds in proportion to it.

Everything here reads the seat view only (the turns and the line are public).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.bots.knowledge import END_INDEX
from engine.bots.rollout import WEIGHT
from engine.core import EMPTY, FIT_MASK, LEFT
from engine.tiles import OTHER, TILE_HI, TILE_ID, TILE_LO

BETA = 0.2
EXP_WEIGHT = tuple(math.exp(BETA * w) for w in WEIGHT)


class PlayHistory:
    """The plays of this hand by the other seats, as the model needs them.

    ``entries``: (seat index, tile id, fit mask of the ends it was laid on or None for
    an opening, mask of the tiles that seat played from then on, itself included).
    """

    __slots__ = ("entries",)

    def __init__(self, entries):
        self.entries = entries

    @classmethod
    def from_view(cls, view: Mapping, me: int, forced_opening: bool) -> PlayHistory:
        plays = []
        left = right = EMPTY
        for turn in view.get("turns") or ():
            if turn.get("type") != "play":
                continue
            tid = TILE_ID[turn["tile"]]
            seat = turn["seat"] - 1
            if left == EMPTY:
                plays.append((seat, tid, None))
                left, right = TILE_LO[tid], TILE_HI[tid]
                continue
            plays.append((seat, tid, FIT_MASK[left * 7 + right]))
            end = END_INDEX.get(turn.get("end") or "", None)
            if end is None:
                end = LEFT if OTHER[tid][left] >= 0 else 1
            if end == LEFT:
                left = OTHER[tid][left]
            else:
                right = OTHER[tid][right]
        entries = []
        later = [0, 0, 0, 0]
        for seat, tid, fit in reversed(plays):
            later[seat] |= 1 << tid
            if seat == me or (fit is None and forced_opening):
                continue
            entries.append((seat, tid, fit, later[seat]))
        return cls(tuple(entries))

    def likelihood(self, hands: list[int]) -> float:
        """How likely the other seats' plays are if the hands now are ``hands``."""
        p = 1.0
        exp_weight = EXP_WEIGHT
        for seat, tid, fit, played_since in self.entries:
            held = hands[seat] | played_since
            options = held if fit is None else held & fit
            if options & (options - 1):
                total = 0.0
                while options:
                    low = options & -options
                    total += exp_weight[low.bit_length() - 1]
                    options ^= low
                p *= exp_weight[tid] / total
        return p
