"""A player's statistics: matches played and won, hands won, Dékabès, by club (casual
matches apart) and overall. Plain data in and out.

They come from the server (``GET /api/players/{username}/stats``, ``from_api``); a
server without that endpoint gets them counted here from its finished matches (``GET
/api/matches?player=ME&status=finished``, ``count``), the same way the server counts:
hands won and Dékabès are the player's team's (a partnership game); a match where the
player held seats of both teams (pass-and-play against oneself) is counted for the
team of the first seat held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CASUAL = ""  # the key of matches outside any club


@dataclass
class Line:
    """One line of statistics."""

    matches: int = 0
    won: int = 0
    hands_won: int = 0
    hands: int = 0
    dekabes: int = 0

    def add(self, other: Line) -> None:
        self.matches += other.matches
        self.won += other.won
        self.hands_won += other.hands_won
        self.hands += other.hands
        self.dekabes += other.dekabes


@dataclass
class Stats:
    overall: Line = field(default_factory=Line)
    by_club: dict[str, Line] = field(default_factory=dict)  # club slug (CASUAL) -> line
    counted: int = 0  # matches read
    names: dict[str, str] = field(default_factory=dict)  # club slug -> name (from the API)
    source: str = "counted"  # "api": the server's statistics endpoint


def _line(data: dict[str, Any]) -> Line:
    return Line(
        matches=int(data.get("matches") or 0),
        won=int(data.get("won") or 0),
        hands_won=int(data.get("hands_won") or 0),
        hands=int(data.get("hands") or 0),
        dekabes=int(data.get("dekabes") or 0),
    )


def from_api(data: dict[str, Any]) -> Stats:
    """The answer of ``GET /api/players/{username}/stats`` as ``Stats``."""
    stats = Stats(overall=_line(data.get("overall") or {}), source="api")
    for row in data.get("clubs") or []:
        slug = row.get("club") or CASUAL
        stats.by_club[slug] = _line(row)
        if slug != CASUAL and row.get("club_name"):
            stats.names[slug] = str(row["club_name"])
    stats.counted = stats.overall.matches
    return stats


def my_team(match: dict[str, Any], username: str) -> str | None:
    for seat in sorted(match.get("seats") or [], key=lambda s: s.get("seat") or 0):
        if seat.get("player") == username:
            return str(seat.get("team")) if seat.get("team") else None
    return None


def count(matches: list[dict[str, Any]], username: str) -> Stats:
    """The statistics of ``username`` over ``matches`` (finished ones count; annulled
    and unfinished ones do not)."""
    stats = Stats()
    for match in matches:
        team = my_team(match, username)
        if team is None or match.get("status") != "finished":
            continue
        line = Line(
            matches=1,
            won=1 if match.get("winner") == team else 0,
            hands_won=int((match.get("hands_won") or {}).get(team) or 0),
            hands=int(match.get("hands") or 0),
            dekabes=int((match.get("dekabes") or {}).get(team) or 0),
        )
        stats.by_club.setdefault(match.get("club") or CASUAL, Line()).add(line)
        stats.overall.add(line)
        stats.counted += 1
    return stats
