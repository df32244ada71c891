"""The round page as both the league's pages and the organizer's show it: a refusal of
the organizer's forms on it (``pages/organizer.py``) is the round page again, with its
sentence, and a page module never imports another page module (the URL modules only:
tests/server/test_layering.py)."""

from __future__ import annotations

from django.shortcuts import render

from server.league.actions import roles
from server.league.models import Club
from server.web.forms.organizer import CheckInForm
from server.web.selectors import doors
from server.web.selectors import league as league_reads
from server.web.selectors.league import round_organizer_context
from server.web.visitor import viewer as _viewer


def club_live(club: Club) -> dict:
    """What makes a club's page live (base.html's ``<main data-live>``, site.js)."""
    return {"live_url": f"/clubs/{club.slug}/live", "live_version": league_reads.club_version(club)}


def render_round(
    request, club: Club, season, round_, *, form=None, error=None, card=None, status=200
):
    """The round page. ``error``: a refusal, said at the top; ``card``: a refusal of the
    organizer's "Deadline, substitutes and forfeits" card (``pages/organizer.py``), said
    again beside its form, which shows what was typed (``{"deadline": True}`` or
    ``{"substitute"|"forfeit": match id, "match": match id}``, with ``"error"`` and
    ``"typed"``)."""
    viewer = _viewer(request)
    membership = roles.membership_of(club, viewer)
    is_organizer = membership is not None and membership.role == "organizer"
    data = league_reads.round_tables(round_, viewer)
    if is_organizer and form is None and round_.status == "open":
        present = [
            e["player"]["username"] if "player" in e else str(e["pair"]["id"])
            for e in data["present"]
        ]
        form = CheckInForm.for_season(
            season, initial={("pairs" if season.format == "pairs" else "players"): present}
        )
    return render(
        request,
        "web/round.html",
        {
            "club": club,
            "season": season,
            "round": data,
            "doors": doors.round_doors(round_, viewer),
            "form": form,
            "error": error,
            "card": card,
            "is_organizer": is_organizer,
            **(round_organizer_context(season) if is_organizer else {}),
            **club_live(club),
        },
        status=status,
    )
