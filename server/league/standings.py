"""A season's standings from its finished matches. Pure Python, no Django.

An *entrant* is what the standings rank: a player (individual format: each side of a match
has two entrants, the partners) or a pair (pairs format: one entrant per side).

Order (docs/league.md, "Standings order"):
1. match wins, a bye counting as one match won;
2. hands won minus hands lost;
3. points scored;
4. head-to-head among the entrants still tied on 1-3 (two or more): for each match and
   each tied entrant on the other side, +1 to a winner and -1 to a loser, summed;
5. the entrant id, ascending (stable and documented, never arbitrary).

A bye adds one to ``byes`` and one to ``wins``, nothing to ``played``, hands or points.
A forfeit (``MatchLine.forfeited_by``) is a played match won by the other side: one to
``forfeits`` of the side that forfeited, its lines carrying no hands or points.
Every key of ``byes`` gets a row, so passing every registered entrant (0 byes) lists
those who have not played yet.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import groupby

from server.league.pairing import canonical_key


@dataclass(frozen=True)
class MatchLine:
    side_a: tuple
    side_b: tuple
    winner: str
    hands_won_a: int
    hands_won_b: int
    hands_tied: int
    points_a: int
    points_b: int
    dekabes_a: int
    dekabes_b: int
    forfeited_by: str | None = None  # the side ("A"/"B") that lost by forfeit


@dataclass(frozen=True)
class Row:
    entrant: Hashable
    played: int = 0
    wins: int = 0
    byes: int = 0
    hands_won: int = 0
    hands_lost: int = 0
    points: int = 0
    dekabes: int = 0
    ties: int = 0
    forfeits: int = 0  # matches its side lost by forfeit (counted in played, not in wins)

    @property
    def hand_difference(self) -> int:
        return self.hands_won - self.hands_lost


@dataclass
class _Tally:
    played: int = 0
    wins: int = 0
    byes: int = 0
    hands_won: int = 0
    hands_lost: int = 0
    points: int = 0
    dekabes: int = 0
    ties: int = 0
    forfeits: int = 0
    # per opponent: +1 for each match won against it, -1 for each lost
    versus: dict = field(default_factory=dict)


def compute_standings(
    lines: Iterable[MatchLine],
    byes: Mapping[Hashable, int],
    entrants: Collection[Hashable] | None = None,
) -> list[Row]:
    """The rows in order. ``entrants``, when given, is who gets a row (individual format:
    house bots that only filled seats are substitutes, not entrants); the others' matches
    still count for the entrants they played, but never as a tied entrant in level 4."""
    tallies: dict[Hashable, _Tally] = {}
    for line in lines:
        _check_line(line)
        _add_side(tallies, line, line.side_a, line.side_b, "A")
        _add_side(tallies, line, line.side_b, line.side_a, "B")
    for entrant, count in byes.items():
        if count < 0:
            raise ValueError(f"negative bye count for {entrant!r}")
        tally = tallies.setdefault(entrant, _Tally())  # listed even with 0 and no match
        tally.byes += count
        tally.wins += count
    if entrants is not None:
        tallies = {e: t for e, t in tallies.items() if e in entrants}
    return _ordered(tallies)


def main_key(row: Row) -> tuple[int, int, int]:
    """Levels 1-3 as one tuple, bigger is better: what the stored rows are grouped by."""
    return (row.wins, row.hand_difference, row.points)


def add_line(row: Row, line: MatchLine) -> Row:
    """``row`` plus one more match (its entrant is on one side of ``line``)."""
    t = _Tally(**{f: getattr(row, f) for f in TALLIED})
    _add_side({row.entrant: t}, line, line.side_a, line.side_b, "A", only=row.entrant)
    _add_side({row.entrant: t}, line, line.side_b, line.side_a, "B", only=row.entrant)
    return _row(row.entrant, t)


def order_tied(group: Iterable[Hashable], head_to_head: Mapping[Hashable, int]) -> list:
    """Levels 4-5 for entrants tied on levels 1-3, given each one's head-to-head sum
    against the others of the group (missing: 0)."""
    tied = sorted(set(group), key=canonical_key)
    return sorted(tied, key=lambda e: -head_to_head.get(e, 0))


# The tallied columns of a row, in Row's order (projections stores them by this too).
TALLIED = (
    "played",
    "wins",
    "byes",
    "hands_won",
    "hands_lost",
    "points",
    "dekabes",
    "ties",
    "forfeits",
)


def _add_side(
    tallies: dict, line: MatchLine, side: tuple, other: tuple, letter: str, only=None
) -> None:
    mine = letter == "A"
    won = line.winner == letter
    for entrant in side:
        if only is not None and entrant != only:
            continue
        tally = tallies.setdefault(entrant, _Tally())
        tally.played += 1
        tally.wins += won
        tally.hands_won += line.hands_won_a if mine else line.hands_won_b
        tally.hands_lost += line.hands_won_b if mine else line.hands_won_a
        tally.points += line.points_a if mine else line.points_b
        tally.dekabes += line.dekabes_a if mine else line.dekabes_b
        tally.ties += line.hands_tied
        tally.forfeits += line.forfeited_by == letter
        for opponent in other:
            tally.versus[opponent] = tally.versus.get(opponent, 0) + (1 if won else -1)


def _ordered(tallies: dict[Hashable, _Tally]) -> list[Row]:
    def main_key(entrant):
        t = tallies[entrant]
        return (-t.wins, -(t.hands_won - t.hands_lost), -t.points)

    entrants = sorted(tallies, key=lambda e: (main_key(e), canonical_key(e)))
    ordered: list[Hashable] = []
    for _, group in groupby(entrants, key=main_key):
        ordered.extend(_by_head_to_head(list(group), tallies))
    return [_row(e, tallies[e]) for e in ordered]


def _by_head_to_head(group: list, tallies: dict[Hashable, _Tally]) -> list:
    if len(group) < 2:
        return group
    tied = set(group)

    def h2h(entrant) -> int:
        versus = tallies[entrant].versus
        return sum(versus.get(other, 0) for other in tied if other != entrant)

    # `group` is already in entrant-id order and sorted() is stable: id is the last key.
    return sorted(group, key=lambda e: -h2h(e))


def _row(entrant: Hashable, t: _Tally) -> Row:
    return Row(
        entrant=entrant,
        played=t.played,
        wins=t.wins,
        byes=t.byes,
        hands_won=t.hands_won,
        hands_lost=t.hands_lost,
        points=t.points,
        dekabes=t.dekabes,
        ties=t.ties,
        forfeits=t.forfeits,
    )


def _check_line(line: MatchLine) -> None:
    if line.winner not in ("A", "B"):
        raise ValueError(f"winner must be 'A' or 'B', not {line.winner!r}")
    if not line.side_a or not line.side_b or set(line.side_a) & set(line.side_b):
        raise ValueError("a match line needs two non-empty sides with no entrant on both")
