"""Reads for the league pages, gathered over the league's own selectors (which decide
who may see what). Only page-shaped summaries live here: the chart's geometry and the
partner / opponent tallies of a player's finished matches."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from server.accounts.models import User
from server.errors import NotFound
from server.league import selectors as league
from server.league import serializers as answers
from server.league import services as league_services
from server.league.models import Club, LeagueMatch, LeagueMatchSeat, Round, Season

RECENT_RESULTS = 10


@dataclass(frozen=True)
class ClubPage:
    club: Club
    role: str | None  # the visitor's role, None for a non-member
    season: Season | None
    live_round: Round | None
    live_tables: list[dict]  # match_json of the round's matches: scores only while playing
    results: list[dict]
    members: list[dict]


def club_page(slug: str, user: User | None) -> ClubPage:
    club = league.club_for_reader(slug, user)
    membership = league_services.membership_of(club, user)
    season = club.seasons.first()
    live_round = (
        Round.objects.filter(season=season, status="started").order_by("-number").first()
        if season
        else None
    )
    live_tables = (
        list(answers.MatchSerializer(league.round_matches_for(live_round, user), many=True).data)
        if live_round
        else []
    )
    finished = league.match_list(user, club=club.slug, status="finished")[:RECENT_RESULTS]
    results = list(answers.MatchSerializer(finished, many=True).data)
    members = list(answers.MemberSerializer(league.members_of(club), many=True).data)
    return ClubPage(
        club,
        membership.role if membership else None,
        season,
        live_round,
        live_tables,
        results,
        members,
    )


def season_choice(club: Club, raw: str | None) -> Season | None:
    """The season named by ``?season=`` (404 if not the club's), else the newest."""
    if raw:
        if not str(raw).isdigit():
            raise NotFound("no such season")
        return league.season_for_reader(club, int(raw))
    return club.seasons.first()


# -- the player page ---------------------------------------------------------------------------
CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 640, 220, 28


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    ordinal: float
    match: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: list[ChartPoint]
    low: float
    high: float

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def low_y(self) -> float:
        return self.height - CHART_PAD

    @property
    def high_y(self) -> float:
        return CHART_PAD


def rating_chart(history: list[dict]) -> Chart:
    """Geometry of the rating-after-each-match line: one point per rated match."""
    values = [h["ordinal"] for h in history]
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    span = (high - low) or 1.0
    inner_w = CHART_WIDTH - 2 * CHART_PAD
    inner_h = CHART_HEIGHT - 2 * CHART_PAD
    step = inner_w / max(len(history) - 1, 1)
    points = [
        ChartPoint(
            CHART_PAD + i * step if len(history) > 1 else CHART_WIDTH / 2,
            CHART_PAD + (high - h["ordinal"]) / span * inner_h,
            h["ordinal"],
            h["match"],
        )
        for i, h in enumerate(history)
    ]
    return Chart(CHART_WIDTH, CHART_HEIGHT, points, low, high)


@dataclass
class Record:
    name: str
    is_bot: bool
    played: int = 0
    won: int = 0

    @property
    def lost(self) -> int:
        return self.played - self.won


@dataclass(frozen=True)
class PlayerPage:
    profile: dict
    charts: list[tuple[dict, Chart]]  # (rating with history, its chart) per club
    partners: list[Record] = field(default_factory=list)
    opponents: list[Record] = field(default_factory=list)


def player_page(username: str, viewer: User | None) -> PlayerPage:
    profile = answers.PlayerSerializer(league.player_profile(username, viewer)).data
    charts = [(rating, rating_chart(rating["history"])) for rating in profile["ratings"]]
    partners, opponents = partner_and_opponent_records(username, viewer)
    return PlayerPage(profile, charts, partners, opponents)


def partner_and_opponent_records(
    username: str, viewer: User | None
) -> tuple[list[Record], list[Record]]:
    """Wins and losses with each partner and against each opponent, over the player's
    finished matches that ``viewer`` may see (annulled ones left out)."""
    finished = league.visible_matches(viewer).filter(status="finished")
    mine = dict(
        LeagueMatchSeat.objects.filter(player__username=username, match__in=finished).values_list(
            "match_id", "team"
        )
    )
    winners = dict(LeagueMatch.objects.filter(pk__in=mine).values_list("id", "winner"))
    partners: dict[str, Record] = {}
    opponents: dict[str, Record] = {}
    others = (
        LeagueMatchSeat.objects.filter(match_id__in=mine)
        .exclude(player__username=username)
        .values_list("match_id", "team", "player__username", "is_bot")
    )
    for match_id, team, name, is_bot in others:
        book = partners if team == mine[match_id] else opponents
        record = book.setdefault(name, Record(name, is_bot))
        record.played += 1
        record.won += winners[match_id] == mine[match_id]
    order = lambda r: (-r.played, -r.won, r.name)  # noqa: E731
    return sorted(partners.values(), key=order), sorted(opponents.values(), key=order)


# -- matches -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchFilters:
    club: str | None
    season: int | None
    player: str | None


def match_filters(params) -> MatchFilters:
    season = params.get("season") or None
    return MatchFilters(
        params.get("club") or None,
        int(season) if season and season.isdigit() else None,
        (params.get("player") or "").strip() or None,
    )


def filtered_matches(viewer: User | None, filters: MatchFilters):
    return league.match_list(
        viewer, club=filters.club, season=filters.season, player=filters.player
    )


def seat_names(match_data: dict) -> dict[str, dict]:
    return {
        str(s["seat"]): {"name": s["player"], "is_bot": s["is_bot"]} for s in match_data["seats"]
    }


def teams_of(match_data: dict) -> dict[str, list[dict]]:
    teams = defaultdict(list)
    for s in match_data["seats"]:
        teams[s["team"]].append(s)
    return dict(teams)
