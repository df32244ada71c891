"""Duplicate rounds: every table of a round plays the same deals (``Table.deal_seed``),
so each deal's results can be compared table by table (docs/league.md, "Duplicate
rounds").

A deal is recognised by its four hands (the engine's ``HandResult.dealt``): the tables
of a round shuffle hand h's deal number r from the same seed, so two tables that reach
the same hand with the same redeals hold the same hands, seat for seat.

**Duplicate score.** For one deal, a table's *value for team A* is what the hand was
worth to team A at base 1: +1 for a win, +2 for a Dékabès, the opposite for team B's
win, 0 for a tie (the points scored divided by the hand's base, so a doubled base after
a tie elsewhere does not count). Over the tables that played the deal, the average
value is the par; each side scores its table's value minus the par (team B: the
opposite). A team's or player's duplicate score is the sum over every deal they played.
A deal only one table played scores 0. Worked example (tested in
tests/league/test_duplicate.py): three tables play deal 1; team A wins it with a
Dékabès at table 1 (+2), loses it at table 2 (-1), wins it plainly at table 3 (+1); the
par is 2/3, so team A scores +4/3, -5/3, +1/3 and team B -4/3, +5/3, -1/3.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from engine.replay import Replay, steps
from engine.seats import TEAM_SEATS
from server.league.models import LeagueMatch, LeagueMatchSeat, Round
from server.league.selectors import engine_events


@dataclass(frozen=True)
class HandPlay:
    """One table's play of one deal."""

    match_id: int
    table_number: int
    hand_no: int
    deal: tuple  # the four hands as dealt (the deal's identity)
    result: str  # domino | block | tie
    team: str | None
    points: int
    dekabes: bool
    base: int  # the hand's base
    value_a: int  # what the hand was worth to team A at base 1


@dataclass(frozen=True)
class Play:
    """One side-by-side result of a deal: the entrants of each team and team A's value."""

    side_a: tuple[Hashable, ...]
    side_b: tuple[Hashable, ...]
    value_a: int


def value_for_a(team: str | None, points: int, base: int) -> int:
    if team is None:
        return 0
    value = points // base
    return value if team == "A" else -value


def par(values: Iterable[int]) -> Fraction:
    values = list(values)
    return Fraction(sum(values), len(values))


def duplicate_scores(deals: Iterable[list[Play]]) -> dict[Hashable, Fraction]:
    """Each entrant's duplicate score over ``deals`` (each: the plays of one deal)."""
    scores: dict[Hashable, Fraction] = {}
    for plays in deals:
        if len(plays) < 2:
            continue
        level = par(p.value_a for p in plays)
        for p in plays:
            above = p.value_a - level
            for entrant in p.side_a:
                scores[entrant] = scores.get(entrant, Fraction(0)) + above
            for entrant in p.side_b:
                scores[entrant] = scores.get(entrant, Fraction(0)) - above
    return scores


def hand_plays(match: LeagueMatch) -> list[HandPlay]:
    """The hands a finished match played, with the base each was played at."""
    plays = []
    replay = Replay()
    base = 1
    for done in steps(engine_events(match), replay):
        for ended in done.hand_results:
            plays.append(
                HandPlay(
                    match.pk,
                    match.table_number or 0,
                    ended.hand_no,
                    ended.dealt,
                    ended.result,
                    ended.team,
                    ended.points,
                    ended.dekabes,
                    base,
                    value_for_a(ended.team, ended.points, base),
                )
            )
            base = ended.base
    return plays


@dataclass(frozen=True)
class DealComparison:
    number: int  # the deal's order in the round (the hand it was first played as)
    plays: list[HandPlay]  # one per table that played it, by table number
    par: Fraction

    def above(self, play: HandPlay) -> Fraction:
        return play.value_a - self.par


def round_deals(round_: Round) -> list[DealComparison]:
    """How every table of a round played each deal, deals in the order they came."""
    by_deal: dict[tuple, list[HandPlay]] = {}
    for match in LeagueMatch.objects.filter(round=round_, status="finished").order_by(
        "table_number"
    ):
        for play in hand_plays(match):
            by_deal.setdefault(play.deal, []).append(play)
    ordered = sorted(by_deal.values(), key=lambda plays: min(p.hand_no for p in plays))
    return [
        DealComparison(number, plays, par(p.value_a for p in plays))
        for number, plays in enumerate(ordered, start=1)
    ]


def season_scores(rounds: Iterable[Round], pairs: bool) -> dict[Hashable, Fraction]:
    """The duplicate score of every entrant (player ids, or pair ids in pairs seasons)
    over the given (finished) rounds."""
    deals: list[list[Play]] = []
    for round_ in rounds:
        sides = _sides(round_, pairs)
        for deal in round_deals(round_):
            deals.append([Play(*sides[p.match_id], p.value_a) for p in deal.plays])
    return duplicate_scores(deals)


def _sides(round_: Round, pairs: bool) -> dict[int, tuple[tuple, tuple]]:
    if pairs:
        return {
            m.pk: ((m.pair_a_id,), (m.pair_b_id,))
            for m in LeagueMatch.objects.filter(round=round_).only("pk", "pair_a", "pair_b")
        }
    seats: dict[int, dict[int, tuple[int, bool]]] = {}
    for match_id, number, player_id, filler in LeagueMatchSeat.objects.filter(
        match__round=round_
    ).values_list("match_id", "number", "player_id", "filler"):
        seats.setdefault(match_id, {})[number] = (player_id, filler)
    return {
        match_id: tuple(  # type: ignore[misc]  # two sides
            tuple(s[n][0] for n in TEAM_SEATS[team] if not s[n][1]) for team in ("A", "B")
        )
        for match_id, s in seats.items()
    }
