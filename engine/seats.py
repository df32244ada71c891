"""Seats and teams, as RULES §1 fixes them: the one place that says which seats are
partners. Everything else (the fold, the seat view, the server, the bot runner) reads it
here. (The fast core and the computer players keep their own index arithmetic,
``index & 1``, for speed: ``tests/engine/test_rules.py`` checks it agrees.)

Seats are numbered 1-4 in turn order; team A is seats 1 & 3, team B seats 2 & 4.
"""

from __future__ import annotations

from typing import Literal

Team = Literal["A", "B"]

SEATS: tuple[int, int, int, int] = (1, 2, 3, 4)
TEAMS: tuple[Team, Team] = ("A", "B")
# The seats of each team, in seat order.
TEAM_SEATS: dict[Team, tuple[int, int]] = {"A": (1, 3), "B": (2, 4)}
# Seat numbers as the record and the views key them ("1".."4").
SEAT_KEYS: tuple[str, str, str, str] = ("1", "2", "3", "4")

_TEAM_OF: dict[int, Team] = {seat: team for team, seats in TEAM_SEATS.items() for seat in seats}
# TEAM_INDEX[i]: the index in TEAMS of seat index i's team (0..3 -> 0/1), for the fold.
TEAM_INDEX: tuple[int, ...] = tuple(TEAMS.index(_TEAM_OF[seat]) for seat in SEATS)


def team_of(seat: int) -> Team:
    """The team of seat number ``seat`` (1-4)."""
    return _TEAM_OF[seat]


def partner_of(seat: int) -> int:
    """The seat across the table: the other seat of ``seat``'s team."""
    first, second = TEAM_SEATS[_TEAM_OF[seat]]
    return second if seat == first else first


def other_team(team: Team) -> Team:
    return TEAMS[1 - TEAMS.index(team)]


def seat_key(index: int) -> str:
    """The record's key of seat index ``index`` (0..3)."""
    return SEAT_KEYS[index]


__all__ = [
    "SEATS",
    "SEAT_KEYS",
    "TEAMS",
    "TEAM_INDEX",
    "TEAM_SEATS",
    "Team",
    "other_team",
    "partner_of",
    "seat_key",
    "team_of",
]
