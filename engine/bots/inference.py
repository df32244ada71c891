"""Reading the hand's public history for what it suggests about the hidden tiles.

Passes already rule tiles out (``knowledge.voids``, used by the sampler). Plays say
something softer: players get rid of their doubles early (a double can only be laid
on its own number), so a seat that laid a plain tile while a double would have fitted
probably did not hold the double. The model: a seat chooses among the tiles it could
lay with probability proportional to ``exp(PIP_BETA * pips + DOUBLE_BETA * double)``.
Its two numbers are the maximum-likelihood fit to the plays of the ``strong`` level
(680 non-forced plays of self-play, grid pips 0..0.3 × doubles -1..2): the doubles
bonus explains its choices (log-likelihood per play -0.870, uniform -0.923), the pips
do not (the earlier pips-and-doubles model with 0.2 per weight point: -0.966). The
likelihood of a sampled world is the product of those probabilities over the plays of
the other three seats this hand; the expert bot keeps worlds in proportion to it.

Everything here reads the seat view only (the turns and the line are public).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from engine.bots.knowledge import END_INDEX
from engine.core import EMPTY, FIT_MASK, LEFT
from engine.tiles import DOUBLE_MASK, OTHER, TILE_HI, TILE_ID, TILE_LO, TILE_PIPS

PIP_BETA = 0.0
DOUBLE_BETA = 1.0
# (seat, tile id, fit mask of the ends or None for an opening, tiles played since)
Entry = tuple[int, int, int | None, int]
EXP_WEIGHT = tuple(
    math.exp(PIP_BETA * TILE_PIPS[t] + DOUBLE_BETA * (DOUBLE_MASK >> t & 1)) for t in range(28)
)


class PlayHistory:
    """The plays of this hand by the other seats, as the model needs them.

    ``entries``: (seat index, tile id, fit mask of the ends it was laid on or None for
    an opening, mask of the tiles that seat played from then on, itself included).
    """

    __slots__ = ("entries",)

    def __init__(self, entries: tuple[Entry, ...]) -> None:
        self.entries = entries

    @classmethod
    def from_view(cls, view: Mapping[str, Any], me: int, forced_opening: bool) -> PlayHistory:
        plays: list[tuple[int, int, int | None]] = []
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
        entries: list[Entry] = []
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
