"""What the organizer's parts of shared pages show: the organize page's extras (hosted
players, announcements) and the round page's availability list. Reads only."""

from __future__ import annotations

from server.league import selectors as league
from server.league.models import Club, Season
from server.league.serializers import MemberSerializer
from server.web.organizer_forms import AnnouncementForm, HostedPlayerForm


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
