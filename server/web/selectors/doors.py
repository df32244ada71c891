"""The ways in to a browser table (issue #32): which table a member plays (Play now),
which one they may watch, which seats of a casual table are free for someone given its
link or code. Who may read, join or watch a table stays the tables' and the league's to
say (``may_read_table``, ``do_join``, ``spectate.check_may_watch``); this module only
gathers what the pages link to."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from engine.phases import MATCH_OVER
from server.accounts.models import User
from server.league import selectors as league
from server.league import spectate
from server.league.models import Club, LeagueMatch, Round
from server.tables import projection
from server.tables import selectors as tables
from server.tables.models import Seat, Table

PLAY, WATCH = "play", "watch"


def held_codes(user: User | None, codes: list[str]) -> set[str]:
    """The codes among ``codes`` of the tables where ``user`` holds a seat now (a league
    seat handed to a substitute is no longer theirs to play)."""
    if user is None or not codes:
        return set()
    return set(
        Seat.objects.filter(player=user, table__code__in=codes).values_list(
            "table__code", flat=True
        )
    )


def ready_tables(user: User | None, club: Club) -> list[LeagueMatch]:
    """The club's league matches in play where the viewer holds a seat now (drawn there,
    or handed one as a substitute): the club page's "your table is ready"."""
    if user is None:
        return []
    return list(
        LeagueMatch.objects.filter(club=club, status="playing", table__seats__player=user)
        .distinct()
        .select_related("table", "round")
        .order_by("round__number", "table_number")
    )


def round_doors(round_: Round, user: User | None) -> dict[str, str]:
    """For each table in play of a round the viewer may read: ``PLAY`` where the viewer
    holds a seat, else ``WATCH`` where a reader of the club may watch it (never a table
    of a duplicate round while the round is played: ``league.live_duplicate``)."""
    matches = list(league.round_matches_for(round_, user).filter(status="playing"))
    mine = held_codes(user, [m.table.code for m in matches])
    doors = {}
    for m in matches:
        if m.table.code in mine:
            doors[m.table.code] = PLAY
        elif not league.live_duplicate(m):
            doors[m.table.code] = WATCH
    return doors


# -- a casual table's join page ---------------------------------------------------------------------
@dataclass(frozen=True)
class JoinPage:
    table: Table
    owner: str
    seats: list[Seat]  # the four, players loaded
    free: list[int]  # human seats nobody holds: anyone with the link or code takes one
    over: bool
    watchable: bool


def table_to_join(user: User, code: str) -> JoinPage:
    """What the join page shows of table ``code``; 404 (as an unknown code) for a table
    ``user`` may not read (``may_read_table``: a hidden duplicate table, a members club's
    table to an outsider)."""
    table = Table.objects.filter(code=code.upper()).select_related("owner").first()
    if table is None or not tables.may_read_table(user, table):
        raise Http404("no such table")
    seats = list(Seat.objects.filter(table=table).select_related("player").order_by("number"))
    state = projection.project(table)
    over = state.match.phase == MATCH_OVER or state.stopped
    free = [s.number for s in seats if s.kind == "human" and s.player_id is None]
    return JoinPage(
        table,
        table.owner.username,
        seats,
        [] if over else free,
        over,
        spectate.may_watch(user, table, state),
    )


def open_seats(table: Table) -> list[int]:
    """The human seats of ``table`` nobody holds (the share links of the play page)."""
    return list(
        Seat.objects.filter(table=table, kind="human", player__isnull=True)
        .order_by("number")
        .values_list("number", flat=True)
    )
