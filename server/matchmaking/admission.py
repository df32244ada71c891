"""Who may take an open seat of a seek: the one rule, for the join and for the list."""

from __future__ import annotations

from server.accounts.models import User
from server.errors import ApiError, NotWanted, OneSeatPerPlayer, OutsideLevelRange
from server.matchmaking import levels
from server.matchmaking.models import Seek
from server.tables.models import Seat
from server.tables.services import controller_of


def check_may_take(user: User, seek: Seek, seats: list[Seat], level: float | None = None) -> None:
    """Whether ``user`` may take an open seat of ``seek`` (its table's ``seats``): the
    kind of player it wants, its level range, one seat per person (a member's bots
    count as the member). The daily quota is the join's own check. ``level``: the
    user's, when the caller read it already (a list checks every seek against one)."""
    if seek.wanted == "people" and user.is_bot:
        raise NotWanted(wanted="people")
    if seek.wanted == "bots" and not user.is_bot:
        raise NotWanted(wanted="bots")
    if seek.min_level is not None or seek.max_level is not None:
        level = levels.level_of(user) if level is None else level
        if not levels.in_range(level, seek.min_level, seek.max_level):
            raise OutsideLevelRange(
                low=_shown(seek.min_level), high=_shown(seek.max_level), level=f"{level:.1f}"
            )
    me = controller_of(user)
    if any(s.player is not None and controller_of(s.player) == me for s in seats):
        raise OneSeatPerPlayer()


def _shown(level: float | None) -> str:
    return "any" if level is None else f"{level:.1f}"


def may_take(user: User, seek: Seek, seats: list[Seat], level: float | None = None) -> bool:
    try:
        check_may_take(user, seek, seats, level)
    except ApiError:
        return False
    return True
