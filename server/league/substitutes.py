"""Substitutes, forfeits and round deadlines (docs/league.md, "Substitutes and forfeits").

A round may carry a deadline set by an organizer. While a league match is in progress an
organizer may hand one of its seats to a substitute (a club member not seated in the
round, or a server-hosted computer player at a level); once the deadline has passed, an
organizer may end it by forfeit against the team of an absent seat. Both are server
events in the table's log (``seat_handover``, ``forfeit``: ``server.tables.services``),
never engine events, so the record still replays and ``rebuild_league`` recomputes the
same standings and ratings. Every one is an entry of the club's action log.

Standings and ratings (the bridge rule): a substituted match's result stands for the
team that was drawn; the ``LeagueMatchSeat`` rows keep the drawn players, so the
standings and the ratings count the drawn players and never the substitute. A forfeit is
a played match the other team wins, counted in the ``forfeits`` column, not rated.

The season option ``auto_substitute_after`` (minutes, off by default): once a round's
deadline has passed, a human seat away (``server.notices.presence``) longer than that
is handed to a strong hosted computer player. ``run_due_substitutions`` does it; it runs
on each read of the round (``GET`` of the round, its web page) and from
``manage.py league_deadlines`` (which ``server.run`` need not run: any read is enough).
"""

from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction
from django.utils import timezone

from engine.seats import team_of
from server.accounts.models import User
from server.errors import (
    DeadlineNotPassed,
    MatchOver,
    NotALeagueMatch,
    NotSubstitutable,
    ValidationError,
)
from server.league import services
from server.league.models import LeagueMatch, LeagueMatchSeat, Membership, Round
from server.notices import presence
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Seat

log = logging.getLogger(__name__)

AUTO_LEVEL = "strong"  # the level of an automatic substitute


def _check_league_match(match: LeagueMatch, user: User, doing: str) -> None:
    if match.club is None or match.round_id is None:
        raise NotALeagueMatch(f"only league matches are {doing}")
    services.check_organizer(match.club, user)
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


# -- deadline --------------------------------------------------------------------------------
def do_set_deadline(*, user: User, round_: Round, deadline: dt.datetime | None) -> Round:
    """An organizer sets (or, with None, removes) a round's deadline."""
    services.check_organizer(round_.season.club, user)
    if round_.status == "finished":
        raise ValidationError("the round is finished: it needs no deadline")
    with writing(), transaction.atomic():
        round_.deadline = deadline
        round_.save(update_fields=["deadline"])
        services.record_action(
            club=round_.season.club,
            actor=user,
            verb="round.deadline",
            season=round_.season_id,
            round=round_.number,
            deadline=deadline.isoformat() if deadline is not None else None,
        )
    return round_


def deadline_passed(round_: Round | None, now: dt.datetime | None = None) -> bool:
    return (
        round_ is not None
        and round_.deadline is not None
        and round_.deadline <= (now or timezone.now())
    )


# -- substitute ------------------------------------------------------------------------------
def _seated_in_round(round_: Round) -> set[int]:
    """Everyone drawn into the round and everyone holding one of its seats now."""
    drawn = set(
        LeagueMatchSeat.objects.filter(match__round=round_).values_list("player_id", flat=True)
    )
    holding = set(
        Seat.objects.filter(table__league_match__round=round_, player__isnull=False).values_list(
            "player_id", flat=True
        )
    )
    return drawn | holding


def _member_substitute(match: LeagueMatch, username: str) -> User:
    member = (
        Membership.objects.filter(club=match.club, user__username__iexact=username, active=True)
        .select_related("user")
        .first()
    )
    if member is None:
        raise NotSubstitutable(username=username, why="not an active member of the club")
    if match.round is not None and member.user_id in _seated_in_round(match.round):
        raise NotSubstitutable(username=username, why="seated in this round already")
    if member.role == "organizer" and match.season is not None and match.season.duplicate:
        # An organizer seated nowhere in a duplicate round oversees all its tables (their
        # scores, finished records): seated now, they would play deals they may have seen.
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
            substitute = services.hosted_player_for(
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
        services.record_action(
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
        seated = [p for p in holders.values() if p is not None] + [substitute.pk]
        transaction.on_commit(lambda: services._tell_players(seated))
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
        services.record_action(
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


# -- automatic substitutes -------------------------------------------------------------------
def away_since(table, seat: int) -> dt.datetime | None:
    """When seat ``seat`` went away (None: connected), from the presence module."""
    return presence.away_since(table=table, seat=seat)


def due_rounds(now: dt.datetime | None = None):
    """Started rounds whose deadline has passed in seasons with the option on."""
    return Round.objects.filter(
        status="started",
        deadline__lte=now or timezone.now(),
        season__auto_substitute_after__isnull=False,
    ).select_related("season__club")


def run_due_substitutions(round_: Round, now: dt.datetime | None = None) -> list[tuple]:
    """Hand every human seat away longer than the season's ``auto_substitute_after``
    minutes to a strong hosted computer player, once ``round_``'s deadline has passed.
    Returns ``(match id, seat, substitute)`` for each substitution made."""
    minutes = round_.season.auto_substitute_after
    now = now or timezone.now()
    if minutes is None or round_.status != "started" or not deadline_passed(round_, now):
        return []
    done = []
    matches = LeagueMatch.objects.filter(round=round_, status="playing").select_related(
        "table", "club", "round"
    )
    for match in matches:
        for seat in Seat.objects.filter(table=match.table, kind="human").order_by("number"):
            since = away_since(match.table, seat.number)
            if since is None or now - since < dt.timedelta(minutes=minutes):
                continue
            try:
                do_substitute(
                    user=None,
                    match=match,
                    seat=seat.number,
                    level=AUTO_LEVEL,
                    reason=f"away for more than {minutes} minutes after the deadline",
                    automatic=True,
                )
            except Exception:  # one table's trouble never stops the others
                log.warning(
                    "no automatic substitute at match %s seat %s",
                    match.pk,
                    seat.number,
                    exc_info=True,
                )
                continue
            done.append((match.pk, seat.number))
            match.refresh_from_db()
            if match.status != "playing":
                break
    return done


def run_all_due(now: dt.datetime | None = None) -> list[tuple]:
    done: list[tuple] = []
    for round_ in due_rounds(now):
        done += run_due_substitutions(round_, now)
    return done
