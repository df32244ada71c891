"""Who may act in a club, and the club's lock they act under: every league action
checks here first (``check_*``), then writes under ``lock_club``."""

from __future__ import annotations

from server.accounts.models import User
from server.errors import NotAMember, NotAuthenticated, OrganizerOnly, PermissionDenied
from server.league.models import Club, Membership


def membership_of(club: Club, user: User | None) -> Membership | None:
    if user is None:
        return None
    return Membership.objects.filter(club=club, user=user, active=True).first()


def check_member(club: Club, user: User | None) -> Membership:
    if user is None:
        raise NotAuthenticated()
    membership = membership_of(club, user)
    if membership is None:
        raise NotAMember(club=club.slug)
    return membership


def check_organizer(club: Club, user: User | None) -> Membership:
    membership = check_member(club, user)
    if membership.role != "organizer":
        raise OrganizerOnly()
    return membership


def check_person(user: User) -> None:
    if user.is_bot:
        raise PermissionDenied("bot accounts do not manage clubs")


def lock_club(club_id: int) -> None:
    """Take the club row's lock (PostgreSQL; SQLite's one writer serialises anyway) for the
    rest of the transaction: the league's writes under one club happen one at a time, so
    each one's checks (an invite's uses, the last organizer, a pair's players, a round's
    status) see the others' committed rows. The lock order is always the club row first,
    then a round row; a table's writer locks its table row first, then the club row
    (``results.record_match_end``), and no league write holds the club row while locking a table
    that is in play."""
    list(Club.objects.select_for_update().filter(pk=club_id).values_list("pk", flat=True))


def check_still_organizer(club: Club, user: User) -> None:
    """``check_organizer`` again under the club's lock: another organizer may have
    demoted or removed ``user`` meanwhile."""
    check_organizer(club, user)
