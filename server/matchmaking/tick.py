"""Matchmaking's part of the ticking driver (``server.league.tick`` calls it): seeks and
challenges past their time close; a read never closes them."""

from __future__ import annotations

import datetime as dt

from server.matchmaking.challenges import expire_due_challenges
from server.matchmaking.seeks import expire_due_seeks


def tick(now: dt.datetime) -> tuple[list[int], list[int]]:
    """(seeks closed, challenges expired) by ``now``."""
    return expire_due_seeks(now), expire_due_challenges(now)
