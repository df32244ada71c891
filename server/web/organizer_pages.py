"""What the organizer's parts of shared pages show: the organize page's extras (hosted
players, announcements) and the round page's availability list. Reads only."""

from __future__ import annotations

from functools import wraps

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import render
from django.utils.translation import gettext as _

from server.errors import ApiError
from server.league import selectors as league
from server.league.actions import roles
from server.league.models import Club, Season
from server.league.serializers import InviteSerializer, MemberSerializer
from server.web.league_forms import InviteForm, SeasonForm, refusal_text
from server.web.organizer_forms import AnnouncementForm, HostedPlayerForm


def viewer(request):
    return request.user if request.user.is_authenticated else None


def _readable_club(request, slug: str | None) -> str | None:
    """The club a refused page sits under, if the visitor may read it: the error page's
    way back (else the home page's)."""
    if slug is None:
        return None
    try:
        return league.club_for_reader(slug, viewer(request), answer=False).slug
    except ApiError:
        return None


def league_pages(view):
    """Reads refused by the league answer with the site's 404 / 403 pages (the league's
    pages and the organizer's alike), which lead back to the club when it is readable."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except ApiError as err:
            request.club_back = _readable_club(request, kwargs.get("slug"))
            if err.status == 404:
                raise Http404(err.message) from None
            if err.status == 403:
                raise PermissionDenied(refusal_text(err)) from None
            raise

    return wrapper


def organized_club(request, slug: str) -> Club:
    club = league.club_for_reader(slug, viewer(request))
    roles.check_organizer(club, viewer(request))
    return club


def too_many_attempts(request, wait: int):
    response = render(
        request,
        "web/error.html",
        {
            "status": 429,
            "title": _("Too many attempts"),
            "message": _("Wait %(seconds)s seconds, then try again.") % {"seconds": wait},
        },
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response


def organize_page(
    request, club: Club, season_form=None, invite_form=None, status=200, error=None, **extras
):
    """The organize page: seasons, invites, hosted players, announcements."""
    invites = league.invites_of(club)[:20]
    return render(
        request,
        "web/organize.html",
        {
            "club": club,
            "seasons": list(league.seasons_of(club).prefetch_related("rounds")),
            "season_form": season_form or SeasonForm(),
            "invite_form": invite_form or InviteForm(),
            "invites": InviteSerializer(invites, many=True).data,
            "error": error,
            **organize_extras(club, **extras),
        },
        status=status,
    )


def organize_extras(club: Club, hosted_form=None, announcement_form=None) -> dict:
    return {
        "hosted_form": hosted_form or HostedPlayerForm(),
        "hosted": MemberSerializer(league.hosted_members(club), many=True).data,
        "announcement_form": announcement_form or AnnouncementForm(),
        "announcements": list(league.announcements_of(club)[:10]),
    }


def round_organizer_context(season: Season) -> dict:
    """Who said they can play the season's next round (None: said nothing)."""
    said = league.availability_of(season)
    rows = []
    for m in league.members_of(season.club):
        a = said.get(m.user_id)
        rows.append(
            {
                "username": m.user.username,
                "is_bot": m.user.is_bot,
                "available": None if a is None else a.available,
                "by_organizer": a is not None and a.set_by_id != m.user_id,
            }
        )
    return {
        "availability": rows,
        "available_count": len(league.available_entrants(season)),
        "season_closed": season.closed_at is not None,
    }
