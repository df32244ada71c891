"""The club page's organizer-made parts (issue #21), one tag each so that the club page
includes them in one line: ``{% club_announcements club %}`` and
``{% availability_form club %}`` (the member's "can you play the next round")."""

from __future__ import annotations

from django import template

from server.league import selectors as league
from server.league.actions import roles

register = template.Library()

SHOWN = 5


@register.inclusion_tag("web/announcements.html")
def club_announcements(club):
    return {"announcements": list(league.announcements_of(club)[:SHOWN])}


@register.inclusion_tag("web/availability.html", takes_context=True)
def availability_form(context, club):
    request = context.get("request")
    user = getattr(request, "user", None)
    viewer = user if user is not None and user.is_authenticated else None
    membership = roles.membership_of(club, viewer)
    season = league.open_season(club) if membership is not None else None
    mine = None
    if season is not None:
        said = league.availability_of(season).get(viewer.pk)  # type: ignore[union-attr]  # a member is signed in
        mine = said.available if said is not None else None
    return {
        "club": club,
        "season": season,
        "role": membership.role if membership is not None else None,
        "mine": mine,
        "csrf_token": context.get("csrf_token"),
    }
