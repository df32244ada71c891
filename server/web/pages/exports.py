"""The league's downloads, for whoever may read the club: a season's standings (CSV) and
its finished matches' records (NDJSON), the club's ratings (CSV)."""

from __future__ import annotations

import csv
import json

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.template.defaultfilters import floatformat

from engine import load_record
from server.league import selectors as league
from server.league.models import Season
from server.web.refusals import league_pages
from server.web.selectors.league import season_choice
from server.web.visitor import viewer

# The standings page's columns, in its order, then the bot flag, the players and the
# duplicate score.
STANDINGS_COLUMNS = (
    "position",
    "name",
    "played",
    "wins",
    "byes",
    "hands_won",
    "hands_lost",
    "points",
    "dekabes",
    "ties",
    "forfeits",
    "bot",
    "player_1",
    "player_2",
    # Added after the others, so that a sheet reading the columns by position still works:
    # the standings page's Duplicate column (a duplicate season's; empty otherwise).
    "duplicate",
)


def standings_rows(season: Season) -> list[list]:
    """The standings page's rows as CSV cells, in its order (``STANDINGS_COLUMNS``): the
    page's columns, then ``bot``, the players' usernames and the duplicate score, rounded
    as the page shows it (two decimals; a point, whatever the page's language)."""
    rows = []
    for r in league.standing_rows(season):
        if r.pair is not None:
            # A pair is a computer pair when both its players are bots.
            players = [r.pair.player_1, r.pair.player_2]
            name, bot = r.pair.name, all(p.is_bot for p in players)
        else:
            assert r.player is not None  # a row has a pair or a player
            players = [r.player]
            name, bot = r.player.username, r.player.is_bot
        usernames = [p.username for p in players] + [""] * (2 - len(players))
        rows.append(
            [
                r.position,
                name,
                r.played,
                r.wins,
                r.byes,
                r.hands_won,
                r.hands_lost,
                r.points,
                r.dekabes,
                r.ties,
                r.forfeits,
                "yes" if bot else "no",
                *usernames,
                floatformat(r.duplicate or 0, "2u") if season.duplicate else "",
            ]
        )
    return rows


def _csv(filename: str, header, rows) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


@league_pages
def standings_csv(request, slug: str):
    club = league.club_for_reader(slug, viewer(request))
    season = season_choice(club, request.GET.get("season"))
    if season is None:
        raise Http404("no season")
    return _csv(
        f"{club.slug}-season-{season.pk}-standings.csv", STANDINGS_COLUMNS, standings_rows(season)
    )


@league_pages
def ratings_csv(request, slug: str):
    club = league.club_for_reader(slug, viewer(request))
    rows = [
        [
            n,
            r.player.username,
            "yes" if r.player.is_bot else "no",
            f"{r.ordinal:.2f}",
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            r.matches,
        ]
        for n, r in enumerate(league.club_ratings(club), start=1)
    ]
    header = ("rank", "name", "bot", "ordinal", "mu", "sigma", "matches")
    return _csv(f"{club.slug}-ratings.csv", header, rows)


@league_pages
def season_records(request, slug: str, season_id: int):
    """One NDJSON line per finished match of the season: its record's events (the
    record the API serves at /api/matches/{id}/record). Matches in progress and annulled
    ones are left out: no tile of a live hand, no voided deal."""
    club = league.club_for_reader(slug, viewer(request))
    season = league.season_of(club, season_id)
    finished = list(
        league.match_list(viewer(request), club=club.slug, status="finished")
        .filter(season=season)
        .exclude(league.duplicate_hidden(viewer(request), overseers=False))
        .order_by("round__number", "table_number", "id")
    )

    def lines():
        for m in finished:
            yield (
                json.dumps(
                    {
                        "match": m.pk,
                        "table": m.table.code,
                        "round": m.round.number if m.round is not None else None,
                        "table_number": m.table_number,
                        "events": load_record(league.record_text(m)),
                    },
                    separators=(",", ":"),
                )
                + "\n"
            )

    response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
    response["Content-Disposition"] = (
        f'attachment; filename="{club.slug}-season-{season.pk}-records.ndjson"'
    )
    return response
