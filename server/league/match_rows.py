"""A league match's own rows for a table: its ``LeagueMatch`` and a ``LeagueMatchSeat``
per seated player. Written by the services (a round's match opens, a casual table ends)
and by ``projections.rebuild`` (a casual table's result recomputed from its log), so
both build them alike."""

from __future__ import annotations

from engine.seats import team_of
from server.accounts.models import User
from server.league.models import LeagueMatch, LeagueMatchSeat
from server.tables.models import Table


def seat_players(
    match: LeagueMatch, seats: dict[int, User], fillers: frozenset[int] | set[int] = frozenset()
) -> None:
    LeagueMatchSeat.objects.bulk_create(
        [
            LeagueMatchSeat(
                match=match,
                number=n,
                player=p,
                team=team_of(n),
                is_bot=p.is_bot,
                filler=n in fillers,
            )
            for n, p in sorted(seats.items())
            if p is not None
        ]
    )


def casual_match(table: Table) -> LeagueMatch:
    match = LeagueMatch.objects.create(table=table, rated=table.rated, started_at=table.created_at)
    # A finished table has all four seats taken: no seat is empty here.
    seats = {s.number: s.player for s in table.seats.select_related("player") if s.player}
    seat_players(match, seats)
    return match
