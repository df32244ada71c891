"""Level "expert": perfect-information Monte Carlo (PIMC) with inference, on a clock.

Like "strong" it only reads the seat view and samples the hidden hands among the deals
consistent with it (``sampler``: tile counts, the numbers passes ruled out). On top:

- **Opponent models** (``opponents``): each other seat is "greedy" (heaviest playable
  tile, exactly the greedy level's rule) or "general" (the doubles-first model of
  ``inference``, fitted to the strong level's plays), with a posterior from public
  facts only: the previous hand of the match (the view shows it whole) and this hand's
  plays. A seat found greedy has its plays turned into tiles it cannot hold (sampled
  exactly, like passes) and plays greedy's move in the search; the other seats weigh
  each world by the general model (importance weights) and are searched.
- **Search in each world** (``solver``): every legal move is followed by an alpha-beta
  search between the two teams ``SEARCH_DEPTH`` plies deep (greedy seats not branching),
  finished by the fast playout; once ``EXACT_AT`` tiles or fewer are left the search
  goes to the end of the hand (exact in that world).
- **Match equity** values every outcome, as for "strong".
- **Its time**: it evaluates world after world until the per-decision time limit
  (``TIME_LIMIT``) or the iteration cap, whichever comes first. With a fixed number of
  iterations and no time limit (``Budget(iterations=n, seconds=None)``) a decision is
  a pure function of the view and the rng, which is what tests and reproducible
  simulations use.

PIMC rather than ISMCTS: each world is searched with the same moves for every
candidate (paired comparison, little noise), and the search inside a world is exact
late in the hand, where dominoes are decided.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.bots.common import deal_decision, opener_event
from engine.bots.inference import PlayHistory
from engine.bots.knowledge import Knowledge, event_placement, read_view
from engine.bots.opponents import ModelHistory, plan
from engine.bots.rollout import opening_choice
from engine.bots.sampler import InconsistentKnowledge, WorldSampler
from engine.bots.solver import Counter, value_after
from engine.bots.strong import choose_opener as strong_choose_opener
from engine.bots.strong import team_values
from engine.core import EMPTY

TIME_LIMIT = 0.2  # seconds per decision
MAX_WORLDS = 3000  # iteration cap per decision (worlds searched)
# Inference by importance weights (0): every uniform world counts in proportion to its
# likelihood. n > 0: each world searched is drawn from n uniform candidates instead.
CANDIDATES_PER_WORLD = 0
SEARCH_DEPTH = 4  # plies searched after the move before the playout
EXACT_AT = 18  # tiles left in all hands at or below which the search is exact
OPENER_WORLDS = 600
# Opponent models (``opponents``): weigh worlds by the mixture of the greedy and the
# general play model, and play a seat's greedy move in the search where that model is
# the likelier. False: the general model only, every seat searched.
OPPONENT_MODELS = True


@dataclass(frozen=True)
class Budget:
    """How much the expert may spend on one decision: worlds, and/or seconds."""

    iterations: int = MAX_WORLDS
    seconds: float | None = TIME_LIMIT


DEFAULT_BUDGET = Budget()


def decide(
    view: Mapping[str, Any], rng: random.Random, budget: Budget | None = None
) -> dict[str, Any]:
    budget = budget or DEFAULT_BUDGET
    phase = view["phase"]
    if phase == "accept":
        return deal_decision(dict(view))
    legal: list[dict[str, Any]] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    know = read_view(view)
    if phase == "choose_opener":
        return opener_event(dict(view), strong_choose_opener(know, rng, worlds=OPENER_WORLDS))
    return legal[best_move(view, know, legal, rng, budget)]


def move_values(
    view: Mapping[str, Any],
    know: Knowledge,
    legal: list[dict[str, Any]],
    rng: random.Random,
    budget: Budget,
) -> tuple[list[float], int]:
    """(mean equity of each legal move over the worlds searched, worlds searched)."""
    started = time.perf_counter()
    try:
        sampler = WorldSampler(know)
    except InconsistentKnowledge:
        return [0.0] * len(legal), 0
    history = PlayHistory.from_view(view, know.me, forced_opening=know.first_hand)
    moves = [event_placement(e) for e in legal]
    opening = know.left == EMPTY
    we_opened = opening or (know.opener is not None and (know.opener & 1) == know.team)
    ours = team_values(know, we_opened)
    # The search maximises team A's equity; the match is zero-sum, so B's is 1 - A's.
    values = ours if know.team == 0 else tuple(1.0 - v for v in ours)
    tiles_left = sum(know.counts) - 1
    depth = None if tiles_left <= EXACT_AT else SEARCH_DEPTH
    totals = [0.0] * len(moves)
    me = know.me
    nxt = (me + 1) & 3
    counter = Counter()
    worlds = 0
    deadline = None if budget.seconds is None else started + budget.seconds
    weighted = CANDIDATES_PER_WORLD == 0 and history.entries
    models = None
    greedy = 0
    if OPPONENT_MODELS:
        models = plan(know, ModelHistory.from_view(view, me, know.first_hand), rng)
        greedy = models.greedy
    weight_sum = 0.0
    while worlds < budget.iterations:
        if models is not None:
            hands, weight = models.world(rng)
        elif weighted:  # importance weights: uniform worlds, weighted by the likelihood
            hands = sampler.sample(rng)
            weight = history.likelihood(hands)
        else:
            hands = _inferred_world(sampler, history, rng)
            weight = 1.0
        weight_sum += weight
        for i, (tid, end) in enumerate(moves):
            totals[i] += weight * value_after(
                hands, me, nxt, tid, end, know, opening, values, depth, counter, greedy
            )
        worlds += 1
        if deadline is not None and time.perf_counter() >= deadline:
            break
    means = [t / weight_sum for t in totals] if weight_sum > 0 else [0.0] * len(moves)
    if know.team == 1:
        means = [1.0 - m for m in means]
    return means, worlds


def best_move(
    view: Mapping[str, Any],
    know: Knowledge,
    legal: list[dict[str, Any]],
    rng: random.Random,
    budget: Budget,
) -> int:
    means, _ = move_values(view, know, legal, rng, budget)
    return max(range(len(legal)), key=lambda i: (means[i], -i))


def _inferred_world(sampler: WorldSampler, history: PlayHistory, rng: random.Random) -> list[int]:
    """One world drawn from the uniform candidates in proportion to their likelihood."""
    if not history.entries:
        return sampler.sample(rng)
    candidates = [sampler.sample(rng) for _ in range(CANDIDATES_PER_WORLD)]
    weights = [history.likelihood(h) for h in candidates]
    total = sum(weights)
    if total <= 0.0:
        return candidates[0]
    pick = rng.random() * total
    for hands, weight in zip(candidates, weights, strict=True):
        pick -= weight
        if pick < 0:
            return hands
    return candidates[-1]


__all__ = ["Budget", "DEFAULT_BUDGET", "decide", "move_values", "opening_choice"]
