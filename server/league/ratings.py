"""Club ratings: openskill's Plackett-Luce model, teams of two, one rating per player per club.

Pure Python, no Django. A match is rated once, when it finishes, in the order matches
finished; replaying the same matches in the same order from ``initial_rating()`` gives the
same floats bit for bit (the model is plain arithmetic with no randomness), which is what
lets ``rebuild_league`` recompute the stored ratings to identical values.

Model and parameters (openskill's defaults, named here so a change is a visible decision):
mu 25, sigma 25/3, beta 25/6, kappa 0.0001, tau 25/300 (added to sigma before each
update so ratings keep moving over a long season), no margin, no sigma limit, no balance.
A match has two teams and one winner: ``ranks=[1, 2]`` with the winner first. The
displayed number is the ordinal, ``mu - 3 * sigma``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
ORDINAL_Z = 3.0

MODEL = PlackettLuce(
    mu=MU,
    sigma=SIGMA,
    beta=BETA,
    kappa=KAPPA,
    tau=TAU,
    margin=0.0,
    limit_sigma=False,
    balance=False,
)

WINNERS = ("A", "B")


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal(z=ORDINAL_Z)


def initial_rating() -> Rating:
    return Rating(mu=MU, sigma=SIGMA)


Player = TypeVar("Player", bound=Hashable)


def rate_match(
    ratings: Mapping[Player, Rating],
    team_a: tuple[Player, Player],
    team_b: tuple[Player, Player],
    winner: str,
) -> dict[Player, Rating]:
    """The four players' ratings after ``team_a`` and ``team_b`` played and ``winner`` won.

    ``ratings`` is only read; a player missing from it starts at ``initial_rating()``.
    """
    _check_match(team_a, team_b, winner)
    teams = [_model_team(ratings, team_a), _model_team(ratings, team_b)]
    ranks: list[float] = [1, 2] if winner == "A" else [2, 1]
    new_a, new_b = MODEL.rate(teams, ranks=ranks)
    players = (*team_a, *team_b)
    return {
        player: Rating(mu=r.mu, sigma=r.sigma)
        for player, r in zip(players, (*new_a, *new_b), strict=True)
    }


def _model_team(ratings: Mapping[Player, Rating], team: tuple[Player, Player]) -> list:
    start = initial_rating()
    return [
        MODEL.rating(mu=ratings.get(p, start).mu, sigma=ratings.get(p, start).sigma) for p in team
    ]


def _check_match(team_a: tuple, team_b: tuple, winner: str) -> None:
    if winner not in WINNERS:
        raise ValueError(f"winner must be 'A' or 'B', not {winner!r}")
    if len(team_a) != 2 or len(team_b) != 2:
        raise ValueError("a rated match has two teams of two players")
    if len(set(team_a) | set(team_b)) != 4:
        raise ValueError("the four players of a rated match must be distinct")
