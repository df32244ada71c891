"""An account's level, as a seek's level range reads it: its best club rating.

The level is the highest displayed rating (openskill's ordinal, ``mu - 3 sigma``) the
account holds in any club (``league.Rating``); an account rated nowhere is at 0.0, the
ordinal every rating starts from. One number, public already on the clubs' rating pages.
"""

from __future__ import annotations

from django.db.models import Max

from server.accounts.models import User
from server.league.models import Rating

UNRATED = 0.0


def level_of(user: User) -> float:
    best = Rating.objects.filter(player=user).aggregate(best=Max("ordinal"))["best"]
    return UNRATED if best is None else float(best)


def in_range(level: float, low: float | None, high: float | None) -> bool:
    return (low is None or level >= low) and (high is None or level <= high)
