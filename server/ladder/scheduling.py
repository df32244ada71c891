"""Drawing a ladder round: which four bots meet, and who partners whom. Pure Python.

Every entrant ready and under its daily quota gets at most one pair per round. The
entrants are taken fewest-matches-today first (then at random); each takes the three
companions nearest its rating among the entrants still free and the house anchors (an
anchor costs ``ANCHOR_PENALTY`` of rating distance, so entrants meet entrants when they
can, and an anchor may sit at several tables of a round: the host plays all its seats).
Companions never share an owner with each other or with it. The four are then split into
the two teams whose summed ratings are closest, a partnership of the last pairs costing
``ROTATION_PENALTY`` (partners rotate). An entrant left without a foursome that way sits the
round out, unless its owner's bots are the round's only entrants (every other bot busy,
away or at its daily quota): then it is drawn with them, as opponents when the split
allows (``Foursome.shared_owner``), the one case where nothing else can be scheduled.

Cost: sorting, then a window of ``WINDOW`` neighbours each side per entrant, so a round
of n entrants is O(n log n + n * (WINDOW + anchors)) (bench/ladder.py).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

WINDOW = 8  # free entrants looked at on each side of a seed's rating
ANCHOR_PENALTY = 2.0  # rating distance added to an anchor's
ROTATION_PENALTY = 3.0  # summed-rating difference a repeated partnership is worth
SHARED_OWNER_PENALTY = 1000.0  # partners of one owner: only when it cannot be helped
SPLITS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


@dataclass(frozen=True)
class Candidate:
    key: int  # the ladder entry's id
    mu: float
    owner: int | None = None  # the person behind the bot; None for a house anchor
    anchor: bool = False
    played_today: int = 0
    recent_partners: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Foursome:
    team_a: tuple[int, int]
    team_b: tuple[int, int]
    shared_owner: bool = False

    @property
    def keys(self) -> tuple[int, int, int, int]:
        return (*self.team_a, *self.team_b)


def draw_round(
    entrants: Sequence[Candidate], anchors: Sequence[Candidate], rng: random.Random
) -> list[Foursome]:
    """The round's foursomes. Each entrant is in at most one; anchors in any number."""
    by_key = {c.key: c for c in (*entrants, *anchors)}
    free = sorted(entrants, key=lambda c: (c.mu, c.key))
    mus = [c.mu for c in free]
    order = sorted(entrants, key=lambda c: (c.played_today, rng.random()))
    taken: set[int] = set()
    groups: list[list[Candidate]] = []
    left: list[Candidate] = []
    for seed in order:
        if seed.key in taken:
            continue
        companions = _companions(seed, free, mus, anchors, taken)
        if companions is None:
            left.append(seed)
            continue
        group = [seed, *companions]
        groups.append(group)
        for c in group:
            if not c.anchor:
                taken.add(c.key)
                _remove(free, mus, c)
    foursomes = [_split(g, by_key, shared=False) for g in groups]
    # An entrant left over whose owner's bots are the only entrants of the round: nothing
    # else can be scheduled, so it may meet them (as opponents when the split allows).
    # Otherwise it sits the round out: the other owners' bots are free again next round.
    owners = {c.owner for c in entrants}
    for seed in left:
        if seed.key in taken or owners != {seed.owner}:
            continue
        companions = _companions(seed, free, mus, anchors, taken, strict=False)
        if companions is None:
            continue
        group = [seed, *companions]
        for c in group:
            if not c.anchor:
                taken.add(c.key)
                _remove(free, mus, c)
        seated = [c.owner for c in group if c.owner is not None]
        foursomes.append(_split(group, by_key, shared=len(seated) != len(set(seated))))
    return foursomes


def _remove(free: list[Candidate], mus: list[float], c: Candidate) -> None:
    i = bisect.bisect_left(mus, c.mu)
    while free[i].key != c.key:
        i += 1
    del free[i], mus[i]


def _companions(
    seed: Candidate,
    free: list[Candidate],
    mus: list[float],
    anchors: Sequence[Candidate],
    taken: set[int],
    strict: bool = True,
) -> list[Candidate] | None:
    """The three nearest companions of ``seed`` (no two of one owner unless not
    ``strict``: then as few as can be), or None."""
    at = bisect.bisect_left(mus, seed.mu)
    near: list[tuple[float, int, Candidate]] = []
    for i in range(max(0, at - WINDOW), min(len(free), at + WINDOW + 1)):
        c = free[i]
        if c.key != seed.key and c.key not in taken:
            near.append((abs(c.mu - seed.mu), c.key, c))
    for c in anchors:
        near.append((abs(c.mu - seed.mu) + ANCHOR_PENALTY, c.key, c))
    near.sort(key=lambda t: (t[0], t[1]))
    owners = {seed.owner} if seed.owner is not None else set()
    chosen: list[Candidate] = []
    for _, _, c in near:
        if c.owner is not None and c.owner in owners:
            continue
        chosen.append(c)
        if c.owner is not None:
            owners.add(c.owner)
        if len(chosen) == 3:
            return chosen
    if strict:
        return None
    rest = [c for _, _, c in near if c not in chosen]
    return (chosen + rest)[:3] if len(chosen) + len(rest) >= 3 else None


def _split(group: list[Candidate], by_key: dict[int, Candidate], shared: bool) -> Foursome:
    """The two teams of ``group``: closest summed ratings, partners rotating."""

    def cost(split) -> float:
        total = 0.0
        sums = []
        for team in split:
            a, b = group[team[0]], group[team[1]]
            sums.append(a.mu + b.mu)
            if b.key in a.recent_partners or a.key in b.recent_partners:
                total += ROTATION_PENALTY
            if a.owner is not None and a.owner == b.owner:
                total += SHARED_OWNER_PENALTY
        return total + abs(sums[0] - sums[1])

    best = min(SPLITS, key=cost)
    (a1, a2), (b1, b2) = best
    team_a = (group[a1].key, group[a2].key)
    team_b = (group[b1].key, group[b2].key)
    return Foursome(team_a=team_a, team_b=team_b, shared_owner=shared)
