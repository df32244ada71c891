"""Reads for the league pages, gathered over the league's own selectors (which decide
who may see what). Only page-shaped summaries live here: the home page's clubs, the
chart's geometry, the partner / opponent tallies of a player's finished matches, the
cross-table, the round page's availability list."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, OuterRef, Prefetch, Q, Subquery

from server.accounts.models import User
from server.errors import NotFound, ValidationError
from server.ids_and_names import is_id, parse_id, parse_name
from server.league import selectors as league
from server.league import serializers as answers
from server.league.actions import roles
from server.league.models import (
    CheckIn,
    Club,
    ClubAction,
    LeagueMatch,
    LeagueMatchSeat,
    Membership,
    RatingPoint,
    Round,
    Season,
)

CLUBS_PER_PAGE = 20  # the home page's club list, a page at a time (?clubs=N)
CLUB_CHOICES = 50  # the club filter of /matches/


def clubs_for(viewer: User | None, number: str | None = None) -> Page:
    """A page of the clubs the visitor may read (the league decides which), with member
    counts: the home page stays the same size however many clubs the server has."""
    clubs = league.visible_clubs(viewer).order_by("name", "pk")
    page = Paginator(clubs, CLUBS_PER_PAGE).get_page(number)
    page.object_list = list(page.object_list)  # read once: the template shows these rows
    # Counted for the page's clubs only (an aggregate over every club costs with their number).
    counts = dict(
        Membership.objects.filter(club__in=[c.pk for c in page.object_list], active=True)
        .values_list("club")
        .annotate(n=Count("pk"))
        .values_list("club", "n")
    )
    for club in page.object_list:
        club.member_count = counts.get(club.pk, 0)  # type: ignore[attr-defined]
    return page


def club_choices(viewer: User | None, chosen: str | None) -> list:
    """At most ``CLUB_CHOICES`` clubs for a filter: the visitor's own first, then others
    by name, and the chosen one (when readable) always."""
    clubs = league.visible_clubs(viewer)
    own = clubs.filter(memberships__user=viewer, memberships__active=True) if viewer else None
    mine = list(own.order_by("name", "pk")[:CLUB_CHOICES]) if own is not None else []
    others = clubs.exclude(pk__in=[c.pk for c in mine]).order_by("name", "pk")
    out = (mine + list(others[: max(0, CLUB_CHOICES - len(mine))]))[:CLUB_CHOICES]
    if chosen and chosen not in {c.slug for c in out}:
        out += list(clubs.filter(slug=chosen))
    return sorted(out, key=lambda c: c.name)


RECENT_RESULTS = 10


ROUND_LINKS = 30  # the club page links the season's latest rounds (the cross-table has all)


@dataclass(frozen=True)
class Member:
    username: str
    is_bot: bool
    role: str
    display_name: str = ""  # the name the page shows (the username when none)


@dataclass(frozen=True)
class RoundLink:
    number: int
    status: str


@dataclass(frozen=True)
class ClubPage:
    club: Club
    role: str | None  # the visitor's role, None for a non-member
    season: Season | None
    live_round: Round | None
    live_tables: list[dict]  # match_json of the round's matches: scores only while playing
    results: list[dict]
    members: list[Member]
    rounds: list[RoundLink] = field(default_factory=list)  # the season's latest, by number


def club_page(slug: str, user: User | None) -> ClubPage:
    club = league.club_for_reader(slug, user)
    membership = roles.membership_of(club, user)
    season = league.open_season(club)  # closed seasons: on the standings page
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
    watchable = live_round is not None and not league.duplicate_round_in_play(season, live_round)  # type: ignore[arg-type]  # a live round has its season
    for table in live_tables:
        table["watch"] = watchable and table["status"] == "playing"
    finished = league.match_list(user, club=club.slug, status="finished")[:RECENT_RESULTS]
    results = list(answers.MatchSerializer(finished, many=True).data)
    members = [
        Member(username, is_bot, role, shown or username)
        for username, is_bot, role, shown in league.members_of(club).values_list(
            "user__username", "user__is_bot", "role", "user__display_name"
        )
    ]
    rounds = (
        [
            RoundLink(number, status)
            for number, status in reversed(
                Round.objects.filter(season=season)
                .order_by("-number")
                .values_list("number", "status")[:ROUND_LINKS]
            )
        ]
        if season
        else []
    )
    return ClubPage(
        club,
        membership.role if membership else None,
        season,
        live_round,
        live_tables,
        results,
        members,
        rounds,
    )


def season_choice(club: Club, raw: str | None) -> Season | None:
    """The season named by ``?season=`` (404 if not the club's), else the newest."""
    if raw:
        if not is_id(raw):  # "²" or 20 digits: no season has that id
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
    if high - low < 0.1:  # one point (or a flat line): a range around it, drawn mid-height
        low, high = low - 1.0, high + 1.0
    span = high - low
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
    substitutions: list[dict] = field(default_factory=list)


def player_page(username: str, viewer: User | None) -> PlayerPage:
    profile = answers.PlayerSerializer(league.player_profile(username, viewer)).data
    charts = [(rating, rating_chart(rating["history"])) for rating in profile["ratings"]]
    partners, opponents = partner_and_opponent_records(username, viewer)
    substitutions = player_substitutions(username, viewer)
    return PlayerPage(profile, charts, partners, opponents, substitutions)


RECENT_SUBSTITUTIONS = 10


def player_substitutions(username: str, viewer: User | None) -> list[dict]:
    """The newest league matches ``viewer`` may see where the player's seat went to a
    substitute or the player took someone's seat: each a match answer's
    ``seat_holders`` entry with the match's id (where it happened only once the match
    is over and its contents are not hidden: a live duplicate round's)."""
    logged = (
        ClubAction.objects.filter(verb="match.substitute")
        .filter(Q(details__player=username) | Q(details__substitute=username))
        .order_by("-at", "-id")
        .values_list("details__match", flat=True)
    )
    ids = list(dict.fromkeys(logged[: RECENT_SUBSTITUTIONS * 3]))
    visible = {
        m.pk: m
        for m in league.visible_matches(viewer)
        .filter(pk__in=ids)
        .select_related("club", "season", "round", "table")
    }
    lines = []
    for match_id in ids:
        m = visible.get(match_id)
        if m is None:
            continue
        hidden = league.contents_hidden(m, viewer)
        for holder in answers.seat_holders(m):
            if holder["reason"] and username in (holder["player"], holder["previous"]):
                if hidden:
                    holder = {**holder, "from_hand": None, "from_move": None, "from_step": None}
                lines.append({**holder, "match": m.pk, "club": m.club.name if m.club else ""})
        if len(lines) >= RECENT_SUBSTITUTIONS:
            break
    return lines[:RECENT_SUBSTITUTIONS]


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
    """The filters of ``/matches/``; a value no club, season or player can have (a NUL
    byte, "²", 20 digits) is ``NotFound`` (the site's 404 page)."""
    try:
        return MatchFilters(
            parse_name(params.get("club"), "club"),
            parse_id(params.get("season"), "season"),
            parse_name(params.get("player"), "player"),
        )
    except ValidationError:
        raise NotFound("no such matches") from None


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


# -- live pages ----------------------------------------------------------------------------------
def club_version(club: Club) -> int:
    """Grows when a round of the club starts (its matches appear) or one of its matches
    ends (finished or annulled): what the club's live pages wait for."""
    # A live duplicate round's tables count as done only when the round is: one of them
    # ending earlier is news to no reader (docs/league.md, "Duplicate rounds").
    live_duplicate = Q(season__duplicate=True, round__status="started")
    counts = LeagueMatch.objects.filter(club=club).aggregate(
        seated=Count("id"), done=Count("id", filter=~Q(status="playing") & ~live_duplicate)
    )
    return counts["seated"] + counts["done"]


# -- my next table -------------------------------------------------------------------------------
@dataclass(frozen=True)
class NextTable:
    """One of the viewer's seats at a league match in progress, with the whole table."""

    match: LeagueMatch
    seat: int
    team: str
    seats: list[LeagueMatchSeat]  # the four seats, by number, players loaded


def next_tables(user: User) -> tuple[int, list[NextTable]]:
    """The viewer's league tables in progress (``league_tables``) and their version."""
    mine = league.league_tables(user)
    ids = [s.match_id for s in mine.seats]
    by_match: dict[int, list[LeagueMatchSeat]] = defaultdict(list)
    for s in (
        LeagueMatchSeat.objects.filter(match_id__in=ids)
        .select_related("player")
        .order_by("match_id", "number")
    ):
        by_match[s.match_id].append(s)
    tables = [NextTable(s.match, s.number, s.team, by_match[s.match_id]) for s in mine.seats]
    return mine.version, tables


# -- the round page ------------------------------------------------------------------------------
def round_tables(round_: Round, viewer: User | None) -> dict:
    """The round as its answer (``RoundSerializer``) shows it to ``viewer``: who checked in
    (an open round only: once started, the tables and byes say it), byes, each table with
    its seats, live score and state (a live duplicate round's other tables left out)."""
    details = league.round_details(round_, viewer)
    return {
        "season": round_.season_id,
        "number": round_.number,
        "status": round_.status,
        "present": (
            answers.EntrantSerializer(details.present, many=True).data
            if round_.status == "open"
            else []
        ),
        "byes": answers.EntrantSerializer(details.byes, many=True).data,
        "tables": answers.MatchSerializer(details.tables, many=True).data,
        "duplicate": round_.season.duplicate,
    }


# -- the cross-table -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One entrant's round: a match (its id, the entrant's side's score first), a bye,
    or nothing."""

    kind: str  # "won", "lost", "playing", "annulled", "bye" or "" (did not play)
    match: int | None = None
    mine: int | None = None
    theirs: int | None = None
    table_number: int | None = None
    forfeit: bool = False  # won or lost by forfeit: its score says nothing


@dataclass(frozen=True)
class CrossRow:
    name: str
    is_bot: bool
    position: int | None
    wins: int | None
    cells: list[Cell]


@dataclass(frozen=True)
class CrossTable:
    rounds: list[int]
    rows: list[CrossRow]


def cross_table(season: Season, viewer: User | None) -> CrossTable:
    """Entrants (players, or pairs in a pairs season) by standing × rounds: each cell the
    entrant's match of that round (won / lost / live / annulled, the score from its side;
    won or lost by forfeit, no score) or its bye. Live scores are left out here (the round page shows them); so is every
    fact of a match hidden from ``viewer`` (a live duplicate round's other tables: shown
    as live, with no link, whether they are over or not)."""
    pairs = season.format == "pairs"
    rounds = list(league.rounds_of(season).values_list("id", "number"))
    column = {rid: i for i, (rid, _n) in enumerate(rounds)}
    entrants: dict[object, CrossRow] = {}

    def row(key, name, is_bot, position=None, wins=None) -> CrossRow:
        if key not in entrants:
            entrants[key] = CrossRow(name, is_bot, position, wins, [Cell("")] * len(rounds))
        return entrants[key]

    for s in league.standing_rows(season):
        if pairs and s.pair is not None:
            row(("pair", s.pair_id), s.pair.name, False, s.position, s.wins)
        elif s.player is not None:
            row(("player", s.player_id), s.player.username, s.player.is_bot, s.position, s.wins)
    matches = (
        LeagueMatch.objects.filter(season=season)
        .select_related("pair_a", "pair_b")
        .prefetch_related(
            Prefetch("seats", queryset=LeagueMatchSeat.objects.select_related("player"))
        )
    )
    hidden = set(matches.filter(league.duplicate_hidden(viewer)).values_list("pk", flat=True))
    for m in matches:
        if m.round_id not in column:
            continue
        sides: list[tuple[object, str, bool, str]] = []
        if pairs and m.pair_a is not None and m.pair_b is not None:
            sides = [
                (("pair", m.pair_a_id), m.pair_a.name, False, "A"),
                (("pair", m.pair_b_id), m.pair_b.name, False, "B"),
            ]
        else:
            sides = [
                (("player", s.player_id), s.player.username, s.is_bot, s.team)
                for s in m.seats.all()
                if not s.filler
            ]
        for key, name, is_bot, team in sides:
            score = {"A": m.score_a, "B": m.score_b}
            other = "B" if team == "A" else "A"
            if m.pk in hidden:
                cell = Cell("playing")
            elif m.status == "playing":
                cell = Cell("playing", m.pk, table_number=m.table_number)
            elif m.status == "annulled":
                cell = Cell("annulled", m.pk, table_number=m.table_number)
            else:
                cell = Cell(
                    "won" if m.winner == team else "lost",
                    m.pk,
                    score[team],
                    score[other],
                    m.table_number,
                    forfeit=m.forfeited_by is not None,
                )
            row(key, name, is_bot).cells[column[m.round_id]] = cell
    byes = CheckIn.objects.filter(round__season=season, bye=True).select_related("player", "pair")
    for b in byes:
        if b.round_id not in column:
            continue
        if b.pair is not None:
            r = row(("pair", b.pair_id), b.pair.name, False)
        elif b.player is not None:
            r = row(("player", b.player_id), b.player.username, b.player.is_bot)
        else:
            continue
        r.cells[column[b.round_id]] = Cell("bye")
    ordered = sorted(entrants.values(), key=lambda r: (r.position is None, r.position or 0, r.name))
    return CrossTable([n for _rid, n in rounds], ordered)


# -- the ratings leaderboard --------------------------------------------------------------------
TREND_MATCHES = 5


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    player: str
    is_bot: bool
    ordinal: float
    mu: float
    sigma: float
    matches: int
    trend: float | None  # the ordinal's change over the last TREND_MATCHES rated matches


def leaderboard(club: Club) -> list[LeaderRow]:
    """The club's ratings, best first (``club_ratings``' order), each with its trend."""
    before = (
        RatingPoint.objects.filter(club=OuterRef("club"), player=OuterRef("player"))
        .order_by("-id")
        .values("ordinal")[TREND_MATCHES : TREND_MATCHES + 1]
    )
    ratings = league.club_ratings(club).annotate(before=Subquery(before))
    return [
        LeaderRow(
            i,
            r.player.username,
            r.player.is_bot,
            r.ordinal,
            r.mu,
            r.sigma,
            r.matches,
            None if r.before is None else r.ordinal - r.before,
        )
        for i, r in enumerate(ratings, start=1)
    ]


def round_organizer_context(season: Season) -> dict:
    """Who said they can play the season's next round (None: said nothing)."""
    said = league.availability_of(season)
    rows = []
    for m in league.members_of(season.club):
        a = said.get(m.user_id)
        rows.append(
            {
                "username": m.user.username,
                "display_name": m.user.shown_name,
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
