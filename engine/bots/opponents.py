"""Opponent modelling from public information: is a seat the "greedy" level, or not?

Each other seat is modelled as one of two play models, with a posterior between them:

- **greedy**: it lays its heaviest playable tile, ties to the lowest tile id, on the
  left end when the tile fits it (exactly ``engine.bots.greedy``: the first heaviest
  event in the view's legal order), with a small error rate ``GREEDY_EPS``;
- **general**: the doubles-first softmax of ``inference`` (fitted to the strong level),
  a fair coin for the end when a tile fits both.

Evidence, all public or own: the previous hand of the match (the view's ``last_hand``
shows it whole: the four dealt hands and every turn, so each seat's plays there are
checked exactly) sets the prior of this hand; this hand's plays count through each
sampled world (a greedy seat that laid X held no heavier playable tile, a sharp
constraint on the world). ``plan`` turns that into a posterior per seat: a seat found
greedy has its plays turned into tiles it cannot hold (the sampler then draws only
worlds that agree with them) and the expert's search plays its greedy moves instead of
searching its replies; the other seats weigh the worlds by the general model. Against
a seat that does not play greedily the posterior falls to the general model, so play
against strong opponents is the plain search. (``ModelHistory.weigh`` is the per-world
mixture, the first design: it lost to ``plan`` because few uniform worlds agree with
several greedy plays, see docs/engine.md.)

Nothing here reads a hidden tile: the sampler draws the worlds, the history is public.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from engine.bots.inference import EXP_WEIGHT
from engine.bots.knowledge import END_INDEX, Knowledge
from engine.bots.sampler import InconsistentKnowledge, WorldSampler
from engine.core import EMPTY, FIT_MASK, LEFT, RIGHT
from engine.tiles import ALL_TILES_MASK, DOUBLE_SIX, OTHER, TILE_HI, TILE_ID, TILE_LO, TILE_PIPS

GREEDY_EPS = 0.03  # how often a "greedy" seat is taken to deviate from its rule
PRIOR_GREEDY = 0.5  # P(greedy) of a seat before any evidence (first hand of a match)
PRIOR_CLIP = 0.995
GREEDY_AT = 0.5  # a seat whose posterior P(greedy) reaches this is searched as greedy
EVIDENCE_WORLDS = 64  # uniform worlds averaging the general model's likelihood  # the prior from the previous hand is kept within [1 - c, c]

# end codes of a play: 0 no choice of end, 1 laid where greedy would, 2 elsewhere
NO_CHOICE, GREEDY_END, OTHER_END = 0, 1, 2
# (seat, tile id, fit mask or None for an opening, tiles that seat played from then on
# (itself included), end code)
ModelEntry = tuple[int, int, int | None, int, int]


# BEATS[t]: the tiles greedy lays rather than t when both are playable (heavier, or as
# heavy with a lower id)
BEATS: tuple[int, ...] = tuple(
    sum(
        1 << u
        for u in range(28)
        if TILE_PIPS[u] > TILE_PIPS[t] or (TILE_PIPS[u] == TILE_PIPS[t] and u < t)
    )
    for t in range(28)
)


def greedy_tile(options: int) -> int:
    """Greedy's tile among a mask of playable tiles: the heaviest, the lowest id first."""
    best = -1
    best_pips = -1
    pips = TILE_PIPS
    while options:
        low = options & -options
        options ^= low
        tid = low.bit_length() - 1
        if pips[tid] > best_pips:
            best, best_pips = tid, pips[tid]
    return best


def _end_code(tid: int, end: int | None, left: int, right: int) -> int:
    """Whether a tile that fits both ends was laid where greedy lays it (the left)."""
    row = OTHER[tid]
    if row[left] < 0 or row[right] < 0:
        return NO_CHOICE
    return GREEDY_END if end != RIGHT else OTHER_END


def _plays(turns: Any) -> list[tuple[int, int, int, int, int | None]]:
    """(seat index, tile id, left, right before the play, end index) of each play."""
    out: list[tuple[int, int, int, int, int | None]] = []
    left = right = EMPTY
    for turn in turns or ():
        if turn.get("type") != "play":
            continue
        tid = TILE_ID[turn["tile"]]
        seat = turn["seat"] - 1
        end = END_INDEX.get(turn.get("end") or "", None)
        out.append((seat, tid, left, right, end))
        if left == EMPTY:
            left, right = TILE_LO[tid], TILE_HI[tid]
            continue
        if end is None:
            end = LEFT if OTHER[tid][left] >= 0 else RIGHT
        if end == LEFT:
            left = OTHER[tid][left]
        else:
            right = OTHER[tid][right]
    return out


def _general_probability(tid: int, options: int) -> float:
    if not options & (options - 1):
        return 1.0
    total = 0.0
    while options:
        low = options & -options
        total += EXP_WEIGHT[low.bit_length() - 1]
        options ^= low
    return EXP_WEIGHT[tid] / total


def _play_ratio(tid: int, options: int, end_code: int) -> tuple[float, float]:
    """(P under greedy, P under general) of laying ``tid`` (and its end) from ``options``."""
    choice = bool(options & (options - 1)) or end_code != NO_CHOICE
    if not choice:
        return 1.0, 1.0
    general = _general_probability(tid, options) * (0.5 if end_code else 1.0)
    ok = end_code != OTHER_END and greedy_tile(options) == tid
    return (1.0 - GREEDY_EPS if ok else GREEDY_EPS), general


def greedy_priors(view: Mapping[str, Any]) -> list[float]:
    """P(greedy) of each seat index for this hand, from the previous hand (shown whole)."""
    log_odds = [math.log(PRIOR_GREEDY / (1.0 - PRIOR_GREEDY))] * 4
    last = view.get("last_hand")
    dealt = last.get("dealt") if isinstance(last, Mapping) else None
    if isinstance(last, Mapping) and dealt:
        held = [0, 0, 0, 0]
        for i in range(4):
            for text in dealt.get(str(i + 1)) or ():
                held[i] |= 1 << TILE_ID[text]
        for seat, tid, left, right, end in _plays(last.get("turns")):
            if left == EMPTY:
                options = held[seat]
                code = NO_CHOICE
                if tid == DOUBLE_SIX:  # the first hand's forced opening says nothing
                    options = 1 << tid
            else:
                options = held[seat] & FIT_MASK[left * 7 + right]
                code = _end_code(tid, end, left, right)
            g, n = _play_ratio(tid, options, code)
            log_odds[seat] += math.log(g / n)
            held[seat] &= ~(1 << tid)
    lo = 1.0 - PRIOR_CLIP
    return [min(PRIOR_CLIP, max(lo, 1.0 / (1.0 + math.exp(-x)))) for x in log_odds]


class ModelHistory:
    """This hand's plays by the other seats, and the seats' priors, for ``weigh``."""

    __slots__ = ("entries", "priors", "seats")

    def __init__(self, entries: tuple[ModelEntry, ...], priors: list[float], me: int) -> None:
        self.entries = entries
        self.priors = priors
        self.seats = tuple(s for s in range(4) if s != me)

    @classmethod
    def from_view(cls, view: Mapping[str, Any], me: int, forced_opening: bool) -> ModelHistory:
        entries: list[ModelEntry] = []
        later = [0, 0, 0, 0]
        for seat, tid, left, right, end in reversed(_plays(view.get("turns"))):
            later[seat] |= 1 << tid
            opening = left == EMPTY
            if seat == me or (opening and forced_opening):
                continue
            fit = None if opening else FIT_MASK[left * 7 + right]
            code = NO_CHOICE if opening else _end_code(tid, end, left, right)
            entries.append((seat, tid, fit, later[seat], code))
        return cls(tuple(entries), greedy_priors(view), me)

    def greedy_evidence(self) -> tuple[list[int], list[int]]:
        """Per seat index: (tiles it cannot hold now if it plays greedily, how many of its
        plays greedy would not have made whatever it holds: a right end where the left
        fitted, or a tile it later laid that would have been the heavier choice)."""
        excluded = [0, 0, 0, 0]
        misses = [0, 0, 0, 0]
        for seat, tid, fit, played_since, code in self.entries:
            beat = BEATS[tid] & (ALL_TILES_MASK if fit is None else fit)
            if code == OTHER_END or played_since & beat:
                misses[seat] += 1
            else:
                excluded[seat] |= beat
        return excluded, misses

    def general_likelihood(self, hands: list[int], seats: int) -> list[float]:
        """Per seat index in the bit mask ``seats``: the general model's likelihood of its
        plays this hand in the world ``hands`` (1.0 for the other seats)."""
        general = [1.0, 1.0, 1.0, 1.0]
        for seat, tid, fit, played_since, code in self.entries:
            if seats >> seat & 1:
                held = hands[seat] | played_since
                options = held if fit is None else held & fit
                if options & (options - 1):
                    general[seat] *= _general_probability(tid, options)
                if code:
                    general[seat] *= 0.5
        return general


class Plan:
    """How the expert samples and searches its worlds for one decision."""

    __slots__ = ("sampler", "greedy", "general", "posteriors", "history")

    def __init__(
        self,
        sampler: WorldSampler,
        greedy: int,
        general: int,
        posteriors: list[float],
        history: ModelHistory,
    ) -> None:
        self.sampler = sampler  # worlds consistent with the greedy seats' plays
        self.greedy = greedy  # seat bits searched as greedy
        self.general = general  # seat bits weighed by the general model
        self.posteriors = posteriors  # P(greedy) per seat index (0 for me)
        self.history = history

    def world(self, rng: Any) -> tuple[list[int], float]:
        """One world to search and its importance weight."""
        hands = self.sampler.sample(rng)
        if not self.general or not self.history.entries:
            return hands, 1.0
        weight = 1.0
        for likelihood in self.history.general_likelihood(hands, self.general):
            weight *= likelihood
        return hands, weight


def plan(know: Knowledge, history: ModelHistory, rng: Any) -> Plan:
    """Each other seat's posterior P(greedy) and the worlds' sampler that follows.

    The evidence of this hand for seat s: under greedy, the share of the uniform worlds
    in which each of its plays was greedy's (exact, by counting: its plays exclude
    tiles from its hand, like passes), times ``GREEDY_EPS`` per play no world explains;
    under the general model, its mean likelihood over ``EVIDENCE_WORLDS`` uniform
    worlds. Seats found greedy get their exclusions in the sampler (every world then
    agrees with their plays) and their greedy move in the search; the others weigh the
    worlds as before. Raises ``InconsistentKnowledge`` as ``WorldSampler`` does.
    """
    uniform = WorldSampler(know)
    excluded, misses = history.greedy_evidence()
    others = history.seats
    everyone = sum(1 << s for s in others)
    general_mean = [1.0, 1.0, 1.0, 1.0]
    if history.entries:
        sums = [0.0, 0.0, 0.0, 0.0]
        for _ in range(EVIDENCE_WORLDS):
            likelihood = history.general_likelihood(uniform.sample(rng), everyone)
            for s in others:
                sums[s] += likelihood[s]
        general_mean = [x / EVIDENCE_WORLDS for x in sums]
    total = uniform.count()
    posteriors = [0.0, 0.0, 0.0, 0.0]
    greedy = 0
    for s in others:
        share = 1.0
        if excluded[s]:
            alone = [0, 0, 0, 0]
            alone[s] = excluded[s]
            try:
                share = WorldSampler(know, excluded=alone).count() / total
            except InconsistentKnowledge:
                share = 0.0
        p_greedy = history.priors[s] * GREEDY_EPS ** misses[s] * share
        p_general = (1.0 - history.priors[s]) * general_mean[s]
        posteriors[s] = p_greedy / (p_greedy + p_general) if p_greedy + p_general > 0 else 0.0
        if posteriors[s] >= GREEDY_AT:
            greedy |= 1 << s
    sampler = uniform
    if greedy:
        joint = [excluded[s] if greedy >> s & 1 else 0 for s in range(4)]
        try:
            sampler = WorldSampler(know, excluded=joint)
        except InconsistentKnowledge:
            sampler = uniform
    return Plan(sampler, greedy, everyone & ~greedy, posteriors, history)


__all__ = ["Plan", "plan", "GREEDY_EPS", "ModelHistory", "greedy_priors", "greedy_tile"]
