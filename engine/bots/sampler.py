"""Sampling the hidden hands uniformly among the deals consistent with what a seat knows.

Constraints (all public or own): my hand is known; tiles on the table are gone; every
other seat holds exactly its tile count; a seat that passed holds no tile showing a
number it passed on (``voids``); in the first hand before the opening the seat to act
holds 6-6. Anything else is unknown, so every consistent deal is equally likely.

Exact uniform sampling, no rejection: a dynamic programme counts, tile by tile, the
ways to complete the deal for each vector of remaining capacities, then each tile goes
to a seat with probability proportional to the completions that choice leaves. The
table is built once per decision (``WorldSampler``) and each world costs ~n steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.bots.knowledge import Knowledge, tiles_with_numbers
from engine.tiles import DOUBLE_SIX, mask_ids


class InconsistentKnowledge(ValueError):
    """No deal satisfies the constraints (a malformed view)."""


class WorldSampler:
    def __init__(
        self,
        know: Knowledge,
        pinned: dict[int, int] | None = None,
        excluded: list[int] | None = None,
    ):
        """``pinned``: tile id -> seat index that must hold it (beyond the view's facts);
        ``excluded``: per seat index, a mask of tiles that seat is taken not to hold (an
        inference, e.g. a greedy seat's plays: ``opponents``)."""
        self.me = know.me
        self.hand = know.hand
        self.others = [s for s in range(4) if s != know.me]
        pinned = dict(pinned or {})
        if know.must_open_66 and know.unknown >> DOUBLE_SIX & 1:
            pinned[DOUBLE_SIX] = know.to_act
        caps = [know.counts[s] for s in self.others]
        tiles = mask_ids(know.unknown)
        if sum(caps) != len(tiles):
            raise InconsistentKnowledge("tile counts do not match the unseen tiles")
        void_tiles = [tiles_with_numbers(know.voids[s]) for s in self.others]
        if excluded is not None:
            void_tiles = [v | excluded[s] for v, s in zip(void_tiles, self.others, strict=True)]
        options = []
        for tid in tiles:
            if tid in pinned:
                choice = tuple(j for j, s in enumerate(self.others) if s == pinned[tid])
            else:
                choice = tuple(j for j in range(3) if not void_tiles[j] >> tid & 1)
            options.append(choice)
        # Most constrained tiles first: fewer branches, same distribution.
        order = sorted(range(len(tiles)), key=lambda k: len(options[k]))
        self.tiles = [tiles[k] for k in order]
        self.options = [options[k] for k in order]
        self.caps = caps
        self.ways = self._count_completions()
        if self.ways[0].get(caps[0] * 8 + caps[1], 0) == 0:
            raise InconsistentKnowledge("no deal satisfies the passes and counts")
        # per tile, for ``sample``: (its bit, may seat j hold it for j = 0, 1, 2, the
        # completions table after it)
        self._steps = tuple(
            (1 << tid, 0 in opts, 1 in opts, 2 in opts, self.ways[k + 1])
            for k, (tid, opts) in enumerate(zip(self.tiles, self.options, strict=True))
        )

    def _count_completions(self) -> list[dict[int, int]]:
        """ways[k][r0 * 8 + r1]: assignments of tiles k.. with capacities r0, r1, the rest
        to seat 2 (an int key: capacities are at most 7; ``sample`` makes no tuples)."""
        n = len(self.tiles)
        c0, c1, c2 = self.caps
        ways: list[dict[int, int]] = [dict() for _ in range(n + 1)]
        ways[n][0] = 1
        for k in range(n - 1, -1, -1):
            remaining = n - k
            nxt = ways[k + 1]
            here = ways[k]
            opts = self.options[k]
            for r0 in range(min(c0, remaining) + 1):
                for r1 in range(min(c1, remaining - r0) + 1):
                    r2 = remaining - r0 - r1
                    if r2 > c2:
                        continue
                    total = 0
                    key = r0 * 8 + r1
                    for j in opts:
                        if j == 0 and r0:
                            total += nxt.get(key - 8, 0)
                        elif j == 1 and r1:
                            total += nxt.get(key - 1, 0)
                        elif j == 2 and r2:
                            total += nxt.get(key, 0)
                    if total:
                        here[key] = total
        return ways

    def count(self) -> int:
        """How many consistent deals there are."""
        return self.ways[0][self.caps[0] * 8 + self.caps[1]]

    def sample(self, rng: random.Random) -> list[int]:
        """One consistent world: the four hand masks, indexed by seat."""
        r0, r1, r2 = self.caps
        m0 = m1 = m2 = 0
        # randrange(n) is _randbelow(n) for n >= 1: the same draws, a call less per tile
        randbelow: Callable[[int], int] = (
            getattr(rng, "_randbelow") if type(rng) is random.Random else rng.randrange  # noqa: B009
        )
        key = r0 * 8 + r1
        for bit, can0, can1, can2, nxt in self._steps:
            w0 = nxt.get(key - 8, 0) if r0 and can0 else 0
            w1 = nxt.get(key - 1, 0) if r1 and can1 else 0
            w2 = nxt.get(key, 0) if r2 and can2 else 0
            pick = randbelow(w0 + w1 + w2)
            if pick < w0:
                m0 |= bit
                r0 -= 1
                key -= 8
            elif pick < w0 + w1:
                m1 |= bit
                r1 -= 1
                key -= 1
            else:
                m2 |= bit
                r2 -= 1
        hands = [0, 0, 0, 0]
        hands[self.me] = self.hand
        s0, s1, s2 = self.others
        hands[s0], hands[s1], hands[s2] = m0, m1, m2
        return hands
