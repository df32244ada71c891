"""Rating a ladder pair: the league's openskill model (``server.league.ratings.MODEL``,
Plackett-Luce, teams of two), one rating per bot *version*. Pure Python.

A pair is one rated game: both legs' score differences summed for each team (the seats
turned, so the deals' luck cancels), ``"A"``, ``"B"`` or ``"tie"``. House anchors never
move. A bot substituted after timing out loses the pair whatever the score; its partner
keeps its rating (it did nothing wrong); the opponents move as for a win. A new version
starts from the old one's rating with ``NEW_VERSION_SIGMA`` more uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping
from typing import TypeVar

from server.league.ratings import MODEL, ORDINAL_Z, SIGMA, Rating

__all__ = ["ORDINAL_Z", "Rating", "new_version", "pair_result", "rate_pair"]

NEW_VERSION_SIGMA = SIGMA / 2  # added (in quadrature) to a new version's uncertainty
ANCHOR_SIGMA = 1.0  # a house anchor's fixed uncertainty
# The house levels' fixed ratings, set by hand from their head-to-head results
# (``python -m engine simulate --swap``: greedy beats random in ~55% of matches, medium
# beats greedy in ~73%...). Only their order and rough gaps matter: every bot version's
# rating is measured against them.
ANCHOR_MU = {"random": 18.0, "greedy": 19.0, "medium": 23.0, "strong": 26.0, "expert": 28.0}

K = TypeVar("K", bound=Hashable)


def new_version(old: Rating) -> Rating:
    sigma = min(SIGMA, math.hypot(old.sigma, NEW_VERSION_SIGMA))
    return Rating(mu=old.mu, sigma=max(sigma, old.sigma))


def pair_result(margin_a: int, points_margin_a: int) -> str:
    """Who won a pair from team A's summed score margin (then points) over both legs."""
    key = margin_a or points_margin_a
    return "A" if key > 0 else "B" if key < 0 else "tie"


def rate_pair(
    ratings: Mapping[K, Rating],
    team_a: tuple[K, K],
    team_b: tuple[K, K],
    result: str,
    fixed: Collection[K] = (),
    substituted: Collection[K] = (),
) -> dict[K, Rating]:
    """The new ratings of the pair's bots that move (not the ``fixed`` anchors, not the
    partner of a ``substituted`` bot). With a substituted bot on both teams nothing moves
    (the caller voids the pair)."""
    out_a = any(k in substituted for k in team_a)
    out_b = any(k in substituted for k in team_b)
    if out_a and out_b:
        return {}
    if out_a:
        result = "B"
    elif out_b:
        result = "A"
    ranks: list[float] = {"A": [1.0, 2.0], "B": [2.0, 1.0], "tie": [1.0, 1.0]}[result]
    teams = [
        [MODEL.rating(mu=ratings[k].mu, sigma=ratings[k].sigma) for k in t]
        for t in (team_a, team_b)
    ]
    new = MODEL.rate(teams, ranks=ranks)
    keep = set(fixed)
    for team in (team_a, team_b):
        if any(k in substituted for k in team):
            keep |= {k for k in team if k not in substituted}
    moved: dict[K, Rating] = {}
    for k, r in zip((*team_a, *team_b), (*new[0], *new[1]), strict=True):
        if k not in keep:
            moved[k] = Rating(mu=r.mu, sigma=r.sigma)
    return moved
