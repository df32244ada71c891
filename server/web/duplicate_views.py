"""The per-deal comparison of a duplicate round: how every table played each deal.

Shown once the round is over (before, the other tables' results are hidden from the
round's players: docs/league.md, "Duplicate rounds"); read from ``server.league``."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render

from server.errors import NotFound
from server.league import duplicate_scoring
from server.league import selectors as league


def round_deals(request, slug: str, season_id: int, number: int):
    viewer = request.user if request.user.is_authenticated else None
    try:  # the league's reads refuse only with not_found here: the site's 404 page
        club = league.club_for_reader(slug, viewer)
        season = league.season_for_reader(club, season_id)
        round_ = league.round_of(season, number)
    except NotFound as err:
        raise Http404(err.message) from None
    return _page(request, club, season, round_)


def _page(request, club, season, round_):
    over = round_.status == "finished"
    deals = duplicate_scoring.round_deals(round_) if over and season.duplicate else []
    rows = [
        {
            "number": deal.number,
            "par": float(deal.par),
            "plays": [
                {
                    "play": play,
                    "result": {
                        "result": play.result,
                        "team": play.team,
                        "points": play.points,
                        "dekabes": play.dekabes,
                    },
                    "above_a": float(deal.above(play)),
                    "above_b": -float(deal.above(play)),
                }
                for play in deal.plays
            ],
        }
        for deal in deals
    ]
    return render(
        request,
        "web/round_deals.html",
        {"club": club, "season": season, "round": round_, "over": over, "deals": rows},
    )
