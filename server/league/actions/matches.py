"""An organizer steps into a league match in play: hands a seat to a substitute, ends the
match by forfeit once the round's deadline has passed, or annuls it (docs/league.md,
"Substitutes and forfeits").

A substitute is a club member not seated in the round, or a server-hosted computer
player at a level. Each is a server event in the table's log (``seat_handover``,
``forfeit``, ``annul``: ``server.tables.services``), never an engine event, so the record
still replays and ``rebuild_league`` recomputes the same standings and ratings; each is
an entry of the club's action log. The match's end (a forfeit, an annul) reaches the
league through ``results``, as any other.

Standings and ratings (the bridge rule): a substituted match's result stands for the
team that was drawn in the standings (the ``LeagueMatchSeat`` rows keep the drawn
players); the ratings rate each seat for whoever played at least half of its hands
(``holders``, ``projections.rate``; docs/league.md, "Who really played"). A forfeit is
a played match the other team wins, counted in the ``forfeits`` column, not rated.
"""

from __future__ import annotations

from django.db import transaction

from engine.seats import team_of
from server.accounts.models import User
from server.errors import (
    DeadlineNotPassed,
    MatchOver,
    NotALeagueMatch,
    NotSubstitutable,
    ValidationError,
)
from server.league import selectors
from server.league.action_log import record_action
from server.league.actions.hosted import hosted_player_for
from server.league.actions.roles import check_organizer
from server.league.actions.rounds import deadline_passed
from server.league.actions.tell import tell_after_commit
from server.league.models import LeagueMatch, Membership
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Seat


def _check_league_match(match: LeagueMatch, user: User, doing: str) -> None:
    if match.club is None or match.round_id is None:
        raise NotALeagueMatch(f"only league matches are {doing}")
    check_organizer(match.club, user)
    if match.status != "playing":
        raise MatchOver(f"the match is over: a finished match is never {doing}")


def _details(match: LeagueMatch) -> dict:
    return {
        "match": match.pk,
        "table": match.table.code,
        "season": match.season_id,
        "round": match.round.number if match.round is not None else None,
        "table_number": match.table_number,
    }


# -- substitute ------------------------------------------------------------------------------
def _member_substitute(match: LeagueMatch, username: str) -> User:
    member = (
        Membership.objects.filter(club=match.club, user__username__iexact=username, active=True)
        .select_related("user")
        .first()
    )
    if member is None:
        raise NotSubstitutable(username=username, why="not an active member of the club")
    if match.round is not None and member.user_id in selectors.seated_in_round(match.round):
        raise NotSubstitutable(username=username, why="seated in this round already")
    if selectors.overseer_of_duplicate_round(member, match.season):
        raise NotSubstitutable(
            username=username, why="an organizer overseeing this duplicate round"
        )
    return member.user


def do_substitute(
    *,
    user: User | None,
    match: LeagueMatch,
    seat: int,
    username: str | None = None,
    level: str | None = None,
    reason: str = "",
    automatic: bool = False,
) -> LeagueMatch:
    """Hand seat ``seat`` of a league match in progress to a substitute: the member
    ``username``, or a hosted computer player at ``level``. The match goes on from the
    same state (no new deal). ``user`` None with ``automatic``: the server itself."""
    if not automatic:
        if user is None:
            raise ValidationError("an organizer substitutes")
        _check_league_match(match, user, "substituted")
    if (username is None) == (level is None):
        raise ValidationError('"by" names a username or a level, one of the two')
    if seat not in (1, 2, 3, 4):
        raise ValidationError("seats are numbered 1-4")
    club = match.club
    assert club is not None  # checked above (automatic: only league matches are walked)
    with writing(), transaction.atomic():
        holders = dict(Seat.objects.filter(table=match.table).values_list("number", "player_id"))
        if username is not None:
            substitute = _member_substitute(match, username)
        else:
            assert level is not None
            substitute = hosted_player_for(
                club=club,
                level=level,
                exclude=[p for p in holders.values() if p is not None],
                actor=user,
            )
        if holders.get(seat) == substitute.pk:
            raise NotSubstitutable(username=substitute.username, why="holds this seat already")
        state = table_services.do_hand_over(
            actor=user,
            table=match.table,
            seat=seat,
            to=substitute,
            reason="auto_substitute" if automatic else "substitute",
            note=reason.strip(),
        )
        before = state.handovers[-1]["from"]
        record_action(
            club=club,
            actor=user,
            verb="match.substitute",
            **_details(match),
            seat=seat,
            player=before,
            substitute=substitute.username,
            level=level,
            automatic=automatic,
            reason=reason.strip(),
        )
        tell_after_commit([p for p in holders.values() if p is not None] + [substitute.pk])
    return match


# -- forfeit ---------------------------------------------------------------------------------
def do_forfeit(*, user: User, match: LeagueMatch, seat: int, reason: str) -> LeagueMatch:
    """After the round's deadline, an organizer ends a match against the team of the
    absent seat ``seat``: the other team wins (a forfeit: not rated, counted in the
    standings' ``forfeits``); the hands played stay in the record."""
    _check_league_match(match, user, "forfeited")
    if not reason.strip():
        raise ValidationError("say why the match is forfeited (reason)")
    if seat not in (1, 2, 3, 4):
        raise ValidationError("seats are numbered 1-4")
    if not deadline_passed(match.round):
        raise DeadlineNotPassed()
    team = team_of(seat)
    assert match.club is not None
    with writing(), transaction.atomic():
        absent = (
            Seat.objects.filter(table=match.table, number=seat).select_related("player").first()
        )
        table_services.do_forfeit(
            actor=user, table=match.table, seat=seat, team=team, reason=reason.strip()
        )
        record_action(
            club=match.club,
            actor=user,
            verb="match.forfeit",
            **_details(match),
            seat=seat,
            player=absent.player.username if absent is not None and absent.player else None,
            team=team,
            reason=reason.strip(),
        )
    match.refresh_from_db()
    return match


# -- annul -----------------------------------------------------------------------------------
def do_annul(*, user: User, match: LeagueMatch, reason: str) -> LeagueMatch:
    """An organizer stops a stuck match: an ``annul`` event in the table's log."""
    if match.club is None:
        raise NotALeagueMatch()
    check_organizer(match.club, user)
    if not reason.strip():
        raise ValidationError("say why the match is annulled (reason)")
    with writing(), transaction.atomic():  # the table's annul and its log entry: one commit
        table_services.do_annul(actor=user, table=match.table, reason=reason.strip())
        record_action(
            club=match.club,
            actor=user,
            verb="match.annul",
            match=match.pk,
            table=match.table.code,
            season=match.season_id,
            round=match.round.number if match.round is not None else None,
            table_number=match.table_number,
            reason=reason.strip(),
        )
    match.refresh_from_db()
    return match
