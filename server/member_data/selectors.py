"""A member's data, as one download (``GET /api/me/data``, the "Your data" page).

Everything is read through the selectors that answer the member anywhere else, with the
member as the reader: the matches and records they may see (``match_list``,
``record_text``: a match in play has no record yet, a live duplicate round's other
tables are not listed), their ratings in the clubs they may read (``player_profile``),
so the download never shows more than the rules let them see. Never a token's key, a
password hash or a table's seed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q

from server.accounts.models import AccessToken, User
from server.league import selectors as league
from server.league.models import ClubAction, LeagueMatch, Membership
from server.mail.models import MailPreference
from server.mail.selectors import preference_of
from server.ops.version import server_version
from server.tables import projection
from server.tables.models import Table

FORMAT = "dekabes-member-data/1"


@dataclass(frozen=True)
class RecordOf:
    match: int
    record: str  # JSON Lines, as GET /api/matches/{id}/record serves it


@dataclass(frozen=True)
class MemberData:
    format: str
    exported_at: dt.datetime
    server_version: str
    account: User
    tokens: list[AccessToken]
    bots: list[User]
    memberships: list[Membership]
    matches: list[LeagueMatch]
    records: list[RecordOf]
    ratings: list[league.PlayerRating]
    club_log: list[ClubAction]
    mail: MailPreference


def member_data(user: User) -> MemberData:
    matches = league.with_seat_rows(
        list(league.match_page(league.match_list(user, player=user.username)))
    )
    records = [RecordOf(m.pk, league.record_text(m)) for m in matches if m.status != "playing"]
    return MemberData(
        format=FORMAT,
        exported_at=dt.datetime.now(dt.UTC),
        server_version=server_version(),
        account=user,
        tokens=list(AccessToken.objects.filter(user=user).order_by("created_at", "id")),
        bots=list(User.objects.filter(bot_owner=user).order_by("username")),
        memberships=list(
            Membership.objects.filter(user=user)
            .select_related("club", "user")
            .order_by("club__slug")
        ),
        matches=matches,
        records=records,
        ratings=league.player_profile(user.username, user).ratings,
        club_log=entries_about(user),
        mail=preference_of(user),
    )


def entries_about(user: User) -> list[ClubAction]:
    """The action-log entries of the member's clubs that they made or that name them
    (their username anywhere in the entry's details), oldest first."""
    clubs = Membership.objects.filter(user=user).values("club")
    candidates = (
        ClubAction.objects.filter(Q(club__in=clubs) | Q(actor=user))
        .select_related("actor", "club")
        .order_by("at", "id")
    )
    return [e for e in candidates if e.actor_id == user.pk or names(e.details, user.username)]


def names(value: object, username: str) -> bool:
    """Whether ``username`` is one of the strings in ``value`` (nested lists and dicts)."""
    if isinstance(value, str):
        return value == username
    if isinstance(value, dict):
        return any(names(v, username) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(names(v, username) for v in value)
    return False


def tables_in_play(users: list[User]) -> int:
    """Tables where one of ``users`` holds a seat and the match goes on (not over, not
    annulled or forfeited): an account is closed only once they are done."""
    held = Table.objects.filter(seats__player__in=users).distinct()
    count = 0
    for table in held:
        state = projection.project(table)
        if state.match.phase != "match_over" and not state.stopped:
            count += 1
    return count
