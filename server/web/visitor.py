"""Who is looking at a page: the signed-in account or nobody (``viewer``), a person and
not a bot (``person``), and the club they organize (``organized_club``). Otherwise the
league's refusal, which ``refusals.league_pages`` turns into the site's 404 or 403 page."""

from __future__ import annotations

from server.accounts.models import User
from server.league import selectors as league
from server.league.actions import roles
from server.league.models import Club


def viewer(request) -> User | None:
    return request.user if request.user.is_authenticated else None


def organized_club(request, slug: str) -> Club:
    club = league.club_for_reader(slug, viewer(request))
    roles.check_organizer(club, viewer(request))
    return club


def person(request) -> User:
    """The signed-in person (a bot account manages nothing: the league's refusal)."""
    roles.check_person(request.user)
    return request.user
