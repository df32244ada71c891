"""Reads of the club league. Nothing here writes.

Who may read what: a ``public`` club is readable by anyone, a ``members`` club by its
active members only; a casual match (no club) by its players only. A match in progress
shows its score and seats only: no tile of a live hand is reachable from here (the hands
summary and the record are served for finished or annulled matches only, and the
record of an annulled match stops at its last finished hand).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from engine import Replay, steps
from engine.analysis import MARKS, summary
from engine.seats import TEAM_SEATS
from server.accounts.models import User
from server.errors import AnalysisNotReady, MatchInProgress, NotAnalysed, NotFound
from server.league import holders
from server.league.models import (
    Announcement,
    Availability,
    CheckIn,
    Club,
    ClubAction,
    Invite,
    LeagueMatch,
    LeagueMatchSeat,
    MatchAnalysis,
    Membership,
    Pair,
    Rating,
    RatingPoint,
    Round,
    Season,
    SeatAccuracy,
    StandingRow,
)
from server.notices import presence
from server.tables import projection
from server.tables import selectors as table_selectors
from server.tables.models import Event, Seat
from server.tables.table_state import SERVER_EVENT_TYPES

RECENT_MATCHES = 10


# -- visibility -------------------------------------------------------------------------------
def is_member(club: Club, user: User | None) -> bool:
    return (
        user is not None and Membership.objects.filter(club=club, user=user, active=True).exists()
    )


def can_read_club(club: Club, user: User | None) -> bool:
    return club.visibility == "public" or is_member(club, user)


def may_read_league_table(user: User | None, table) -> bool:
    """A league match's table is read as its club is (a ``tables.signals`` read rule)."""
    match = LeagueMatch.objects.filter(table=table).select_related("club").first()
    return match is None or match.club is None or can_read_club(match.club, user)


def visible_clubs(user: User | None) -> QuerySet[Club]:
    """The clubs ``user`` may read (None: an anonymous reader)."""
    return _per_reader(_VISIBLE_CLUBS, user, _visible_clubs)


def _visible_clubs(user: User | None) -> QuerySet[Club]:
    clubs = Club.objects.all()
    if user is None:
        return clubs.filter(visibility="public")
    mine = Membership.objects.filter(club=OuterRef("pk"), user=user, active=True)
    return clubs.filter(Q(visibility="public") | Exists(mine))


def club_for_reader(slug: str, user: User | None, *, answer: bool = True) -> Club:
    """The club ``user`` may read. A ``members`` club is not found by anyone else, with
    the answer an unknown slug gets: an outsider cannot tell that it exists. ``answer``:
    with what the club's own answer shows (member count, the caller's role); the reads
    under a club (seasons, standings, ratings) need the club alone."""
    clubs = Club.objects.filter(slug=slug)
    club = (_with_counts(clubs, user) if answer else clubs).first()
    if club is None or not can_read_club(club, user):
        raise NotFound(f"no club {slug!r}")
    return club


def open_invites(club: Club) -> QuerySet[Invite]:
    """The club's codes that still admit someone: not expired, not a used single-use one."""
    now = timezone.now()
    return (
        Invite.objects.filter(club=club)
        .exclude(expires_at__lte=now)
        .exclude(single_use=True, uses__gt=0)
    )


def club_by_slug(slug: str) -> Club | None:
    """Any club, readable or not (joining a members club with an invite code)."""
    return Club.objects.filter(slug=slug).first()


# The readers' queries, built once per reader: building one (its subqueries resolved
# against the models) cost more than running it. A query holds the reader's id and no
# time, so it stays right; each call hands out a clone (``.all()``), never evaluated
# here, as Django's own generic views do with a class-level queryset.
_VISIBLE_MATCHES: dict[int | None, QuerySet[LeagueMatch]] = {}
_VISIBLE_CLUBS: dict[int | None, QuerySet[Club]] = {}
_READERS_KEPT = 2048


def _per_reader(kept: dict, user: User | None, build):
    if user is not None and user.pk is None:  # not saved: no id to file it under
        return build(user)
    key = None if user is None else user.pk
    query = kept.get(key)
    if query is None:
        if len(kept) >= _READERS_KEPT:
            kept.clear()
        query = kept[key] = build(user)
    return query.all()


def visible_matches(user: User | None) -> QuerySet[LeagueMatch]:
    """The matches ``user`` may read (None: an anonymous reader): those of the clubs they
    may read and the casual ones they played, less the live duplicate tables hidden from
    them (``duplicate_hidden``)."""
    return _per_reader(_VISIBLE_MATCHES, user, _visible_matches)


def _visible_matches(user: User | None) -> QuerySet[LeagueMatch]:
    league = Q(club__in=visible_clubs(user))
    if user is None:
        return LeagueMatch.objects.filter(league).exclude(duplicate_hidden(None))
    played = LeagueMatchSeat.objects.filter(match=OuterRef("pk"), player=user)
    return LeagueMatch.objects.filter(league | (Q(club__isnull=True) & Exists(played))).exclude(
        duplicate_hidden(user)
    )


def duplicate_hidden(user: User | None, *, overseers: bool = True) -> Q:
    """The matches ``user`` may not see yet: the tables of a duplicate round still being
    played (docs/league.md, "Duplicate rounds"), except their own (drawn there, or holding
    one of its seats now), and — with ``overseers`` — except for an organizer of the club
    who sits at no table of that round (to follow and annul a stuck match: its seats and
    score). No one but its own players reads what a live table's deals were: its record,
    hands, analysis, replay (``overseers=False``). Anonymous readers see none of them: a
    player signed out learns nothing either."""
    live = Round.objects.filter(status="started", season__duplicate=True)
    hidden = Q(round__in=live.values("pk"))
    if user is None:
        return hidden
    own = Exists(LeagueMatchSeat.objects.filter(match=OuterRef("pk"), player=user)) | Exists(
        Seat.objects.filter(table=OuterRef("table"), player=user)
    )
    if not overseers:
        return hidden & ~own
    seated = live.filter(matches__seats__player=user).values("pk")
    organizing = Membership.objects.filter(user=user, role="organizer", active=True)
    overseer = Q(club__in=organizing.values("club")) & ~Q(round__in=seated)
    return hidden & ~own & ~overseer


def match_contents_for_reader(match_id: int, user: User | None) -> LeagueMatch:
    """The match whose record, hands, analysis or replay ``user`` may read: a match they
    may see (``match_for_reader``), but a live duplicate round's only by its own players
    (``contents_hidden``)."""
    match = match_for_reader(match_id, user)
    if contents_hidden(match, user):
        raise NotFound(f"no match {match_id}")
    return match


def contents_hidden(match: LeagueMatch, user: User | None) -> bool:
    """Whether what ``match``'s deals were is hidden from ``user``, who may see the match
    itself: a live duplicate round's table, to an organizer overseeing the round."""
    return live_duplicate(match) and (
        LeagueMatch.objects.filter(pk=match.pk)
        .filter(duplicate_hidden(user, overseers=False))
        .exists()
    )


def live_duplicate(match: LeagueMatch | None) -> bool:
    """Whether ``match`` is a table of a duplicate round still being played: the one
    condition under which a league table is watched by no one and read only by the
    people holding its seats (docs/league.md, "Duplicate rounds")."""
    return (
        match is not None
        and match.season is not None
        and match.round is not None
        and duplicate_round_in_play(match.season, match.round)
    )


def duplicate_round_in_play(season: Season, round_: Round) -> bool:
    """A duplicate round being played: its tables are watched by no one (live_duplicate);
    the pages offer no "Watch" link to them."""
    return season.duplicate and round_.status == "started"


def league_match_of(table) -> LeagueMatch | None:
    """The league match a table plays (None: a casual table), with its club, season and
    round, in one read."""
    return LeagueMatch.objects.filter(table=table).select_related("club", "season", "round").first()


def table_hidden_by_duplicate_round(user: User | None, table) -> bool:
    """A ``tables.signals.table_hidden_rules`` rule: while its duplicate round is played, a
    table does not exist for anyone who holds none of its seats (its owner, the organizer
    who started the round, included)."""
    if not live_duplicate(league_match_of(table)):
        return False
    if user is None or not user.is_authenticated:
        return True
    return not Seat.objects.filter(table=table, player=user).exists()


def round_matches_for(round_: Round, user: User | None) -> QuerySet[LeagueMatch]:
    """The round's tables ``user`` may see (all of them but a live duplicate round's)."""
    return round_matches(round_).exclude(duplicate_hidden(user))


def match_for_reader(match_id: int, user: User | None) -> LeagueMatch:
    match = (
        visible_matches(user)
        .filter(pk=match_id)
        .select_related("club", "season", "round", "table", "pair_a", "pair_b")
        .first()
    )
    if match is None:
        raise NotFound(f"no match {match_id}")
    return match


# -- clubs and members -----------------------------------------------------------------------
def _with_counts(clubs: QuerySet[Club], user: User | None) -> QuerySet[Club]:
    """Clubs with what their answer shows: active members, the caller's role."""
    active = (
        Membership.objects.filter(club=OuterRef("pk"), active=True)
        .values("club")
        .annotate(n=Count("id"))
        .values("n")
    )
    role = (
        Subquery(
            Membership.objects.filter(club=OuterRef("pk"), user=user, active=True).values("role")[
                :1
            ]
        )
        if user is not None
        else Value(None, output_field=CharField())
    )
    return clubs.select_related("created_by").annotate(
        active_members=Coalesce(Subquery(active), 0), your_role=role
    )


def clubs_for_reader(user: User | None) -> QuerySet[Club]:
    """The clubs ``user`` may read, by slug (members clubs: their members only)."""
    return _with_counts(visible_clubs(user), user).order_by("slug")


def members_of(club: Club, include_removed: bool = False) -> QuerySet[Membership]:
    rows = Membership.objects.filter(club=club).select_related("user", "user__bot_owner")
    if not include_removed:
        rows = rows.filter(active=True)
    return rows.order_by("user__username")


def sole_organizer(club: Club) -> str | None:
    """The username of the club's only organizer, or None when it has several. A club
    keeps an organizer: the only one may be neither made a member nor removed (the
    rule ``actions.members`` applies; the members page offers neither)."""
    names = list(
        Membership.objects.filter(club=club, role="organizer", active=True).values_list(
            "user__username", flat=True
        )[:2]
    )
    return names[0] if len(names) == 1 else None


def removed_members(club: Club) -> QuerySet[Membership]:
    """The club's removed list: people an organizer removed and has not allowed back."""
    return members_of(club, include_removed=True).filter(active=False, barred=True)


def invites_of(club: Club) -> QuerySet[Invite]:
    return Invite.objects.filter(club=club).select_related("created_by").order_by("-id")


def hosted_members(club: Club) -> QuerySet[Membership]:
    """The club's active server-hosted computer players (by name)."""
    return (
        members_of(club)
        .filter(user__is_bot=True, user__bot_owner__isnull=True)
        .exclude(user__hosted_level="")
    )


def hosted_players_in_service() -> QuerySet[User]:
    """Every hosted player the host process plays: an active member of a club, seated
    at a league match still in progress (a removed player finishes what it started), or
    one of the casual tables' computer players (``casual_computers``: always)."""
    member = Membership.objects.filter(user=OuterRef("pk"), active=True)
    playing = LeagueMatchSeat.objects.filter(player=OuterRef("pk"), match__status="playing")
    never_a_member = ~Exists(Membership.objects.filter(user=OuterRef("pk")))
    return (
        User.objects.filter(is_bot=True, bot_owner__isnull=True)
        .exclude(hosted_level="")
        .filter(Q(Exists(member)) | Q(Exists(playing)) | Q(never_a_member))
        .order_by("username")
    )


def casual_computers() -> QuerySet[User]:
    """The computer players of casual tables (the web's "new table against the computer",
    ``actions.hosted.casual_computer``): hosted players that were never a club's member.
    A club's hosted player is made a member with its account and stays one (removed:
    inactive), and no hosted player enters another club, so the two never mix."""
    return (
        User.objects.filter(is_bot=True, bot_owner__isnull=True)
        .exclude(hosted_level="")
        .exclude(Exists(Membership.objects.filter(user=OuterRef("pk"))))
        .order_by("username")
    )


# -- the organizer action log ------------------------------------------------------------------
def club_log(club: Club, *, verb: str | None = None) -> QuerySet[ClubAction]:
    """The club's action log, newest first; each entry with its actor (None: the
    server), ``verb``, ``details`` and ``at``. ``verb``: only that verb
    (``member.remove``) or that family of verbs (``member``). Who may read it
    (organizers) is the caller's check."""
    entries = ClubAction.objects.filter(club=club)
    if verb and "." in verb:
        entries = entries.filter(verb=verb)
    elif verb:
        entries = entries.filter(verb__startswith=verb + ".")
    return entries.select_related("actor").order_by("-at", "-id")


def seats_here(table) -> dict[int, bool]:
    """Whether each seat's player is at the table now (``notices.presence``)."""
    return {seat: p.connected for seat, p in presence.seat_presence(table=table).items()}


def seat_holder(match: LeagueMatch, seat: int) -> str | None:
    """Who holds a seat of a match's table now (a substitute, once handed over)."""
    row = match.table.seats.filter(number=seat).select_related("player").first()
    return row.player.shown_name if row is not None and row.player is not None else None


def forfeit_of(match: LeagueMatch) -> dict | None:
    """How a forfeited match ended (its table's ``forfeit`` server event): the absent
    ``seat``, who held it (``player``), the ``team`` that lost and the organizer's
    ``reason``; None for a match not forfeited."""
    if match.forfeited_by is None:
        return None
    event = Event.objects.filter(table_id=match.table_id, type="forfeit").order_by("-seq").first()
    if event is None:
        return None
    seat = event.payload["seat"]
    return {
        "seat": seat,
        "player": seat_holder(match, seat),
        "team": event.payload["team"],
        "reason": event.payload.get("reason", ""),
    }


def is_removed(club: Club, user: User | None) -> bool:
    """Whether ``user`` is on the club's removed list (no invite code lets them back)."""
    return (
        user is not None
        and Membership.objects.filter(club=club, user=user, active=False, barred=True).exists()
    )


def invite_of(club: Club, code: str | None) -> Invite | None:
    """The club's invite with this code (revoked or not), if any."""
    if not code:
        return None
    return Invite.objects.filter(club=club, code=code.strip().upper()).first()


def bots_in_club(club: Club, owner: User) -> list[User]:
    """The bots ``owner`` entered that are active members of ``club``."""
    return [
        m.user
        for m in Membership.objects.filter(
            club=club, active=True, user__is_bot=True, user__bot_owner=owner
        ).select_related("user")
    ]


def invite_used_by(club: Club, username: str) -> str | None:
    """The invite code ``username`` last joined ``club`` with (from the action log)."""
    entry = (
        ClubAction.objects.filter(club=club, verb="member.join", details__username=username)
        .order_by("-at", "-id")
        .first()
    )
    return entry.details.get("invite") if entry is not None else None


def announcements_of(club: Club) -> QuerySet[Announcement]:
    """The club's announcements in place, newest first."""
    return (
        Announcement.objects.filter(club=club, removed_at__isnull=True)
        .select_related("author")
        .order_by("-at", "-id")
    )


# -- seasons and rounds ----------------------------------------------------------------------
def open_season(club: Club) -> Season | None:
    """The season the club page shows: the newest one not closed."""
    return (
        Season.objects.filter(club=club, closed_at__isnull=True)
        .order_by("-created_at", "-id")
        .first()
    )


def availability_of(season: Season) -> dict[int, Availability]:
    """Who said whether they can play the season's next round, by account id."""
    return {
        a.player_id: a
        for a in Availability.objects.filter(season=season).select_related("player", "set_by")
    }


def seated_in_round(round_: Round) -> set[int]:
    """Everyone drawn into the round and everyone holding one of its seats now."""
    drawn = set(
        LeagueMatchSeat.objects.filter(match__round=round_).values_list("player_id", flat=True)
    )
    holding = set(
        Seat.objects.filter(table__league_match__round=round_, player__isnull=False).values_list(
            "player_id", flat=True
        )
    )
    return drawn | holding


def overseer_of_duplicate_round(membership: Membership, season: Season | None) -> bool:
    """An organizer seated nowhere in a duplicate round oversees all its tables (their
    scores, finished records): seated now, they would play deals they may have seen."""
    return membership.role == "organizer" and season is not None and season.duplicate


def substitute_candidates(round_: Round) -> list[str]:
    """The people an organizer may hand a seat of the round to (``actions.matches``'s
    rule, the round page's list): active members of the club, no bot, seated nowhere in
    the round, and no overseer of a duplicate round."""
    seated = seated_in_round(round_)
    return [
        m.user.username
        for m in members_of(round_.season.club).filter(user__is_bot=False)
        if m.user_id not in seated and not overseer_of_duplicate_round(m, round_.season)
    ]


def available_entrants(season: Season) -> list:
    """The entrants marked available: usernames of active members (individual) or the
    ids of pairs both of whose players are available (pairs)."""
    marked = {pid for pid, a in availability_of(season).items() if a.available}
    if season.format == "pairs":
        return [
            p.pk
            for p in Pair.objects.filter(season=season).order_by("id")
            if p.player_1_id in marked and p.player_2_id in marked
        ]
    return [m.user.username for m in members_of(season.club) if m.user_id in marked]


def seasons_of(club: Club) -> QuerySet[Season]:
    """The club's seasons, newest first, with their pairs and round counts."""
    rounds = Round.objects.filter(season=OuterRef("pk")).values("season").annotate(n=Count("id"))
    pairs = Pair.objects.select_related("player_1", "player_2")
    return (
        Season.objects.filter(club=club)
        .select_related("club")
        .annotate(round_count=Coalesce(Subquery(rounds.values("n")), 0))
        .prefetch_related(Prefetch("pairs", queryset=pairs))
    )


def season_menu(club: Club) -> QuerySet[Season]:
    """The club's seasons, newest first, as a page's season menu names them (no counts)."""
    return Season.objects.filter(club=club).only("pk", "club_id", "name", "format")


def season_for_reader(club: Club, season_id: int) -> Season:
    """The season as its answer shows it (pairs, round count)."""
    season = seasons_of(club).filter(pk=season_id).first()
    if season is None:
        raise NotFound(f"no season {season_id} in {club.slug!r}")
    return season


def season_of(club: Club, season_id: int) -> Season:
    """The season alone, for the reads under it (standings, rounds): no pairs or counts."""
    season = Season.objects.filter(club=club, pk=season_id).first()
    if season is None:
        raise NotFound(f"no season {season_id} in {club.slug!r}")
    season.club = club
    return season


def round_of(season: Season, number: int) -> Round:
    round_ = Round.objects.filter(season=season, number=number).first()
    if round_ is None:
        raise NotFound(f"season {season.pk} has no round {number}")
    return round_


@dataclass(frozen=True)
class RoundDetails:
    """A round with who checked in, who sits out and its matches."""

    round: Round
    present: list[CheckIn]
    byes: list[CheckIn]
    tables: list[LeagueMatch]


def round_details(round_: Round, viewer: User | None = None) -> RoundDetails:
    """``viewer``: the reader; the tables hidden from them are left out
    (``duplicate_hidden``: None, an anonymous reader, sees no table of a live duplicate
    round)."""
    checkins = list(
        CheckIn.objects.filter(round=round_)
        .select_related("player", "pair__player_1", "pair__player_2")
        .order_by("id")
    )
    tables = round_matches_for(round_, viewer)
    return RoundDetails(round_, checkins, [c for c in checkins if c.bye], list(tables))


def rounds_of(season: Season) -> QuerySet[Round]:
    return season.rounds.order_by("number")


def round_matches(round_: Round) -> QuerySet[LeagueMatch]:
    return (
        LeagueMatch.objects.filter(round=round_)
        .select_related("table", "club", "season", "round", "pair_a", "pair_b")
        .prefetch_related("seats__player")
        .order_by("table_number")
    )


# -- standings and ratings -------------------------------------------------------------------
def standing_rows(season: Season) -> QuerySet[StandingRow]:
    return (
        StandingRow.objects.filter(season=season)
        .select_related("player", "pair__player_1", "pair__player_2")
        .order_by("position")
    )


def club_ratings(club: Club) -> QuerySet[Rating]:
    return (
        Rating.objects.filter(club=club).select_related("player").order_by("-ordinal", "player_id")
    )


HistoryPoint = tuple[int, float, float, float]  # match id, mu, sigma, ordinal


def rating_history(club: Club, player: User) -> list[HistoryPoint]:
    """The rating after each rated match, oldest first (the match id dates each point),
    as plain tuples: a history grows with every match, a model instance per point would
    cost more than the rest of the player's page."""
    return list(
        RatingPoint.objects.filter(club=club, player=player)
        .order_by("id")
        .values_list("match_id", "mu", "sigma", "ordinal")
    )


# -- matches ---------------------------------------------------------------------------------
def match_list(
    user: User | None,
    *,
    club: str | None = None,
    season: int | None = None,
    player: str | None = None,
    status: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> QuerySet[LeagueMatch]:
    matches = visible_matches(user)
    if club:
        matches = matches.filter(club__slug=club)
    if season:
        matches = matches.filter(season_id=season)
    if player:
        matches = matches.filter(
            Exists(LeagueMatchSeat.objects.filter(match=OuterRef("pk"), player__username=player))
        )
    if status:
        matches = matches.filter(status=status)
    if since:
        matches = matches.filter(started_at__date__gte=since)
    if until:
        matches = matches.filter(started_at__date__lte=until)
    return (
        matches.select_related("club", "season", "round", "table", "pair_a", "pair_b")
        .prefetch_related("seats__player")
        .order_by("-started_at", "-id")
    )


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    username: str
    shown_name: str  # the display name, else the username


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A match's seat as a list reads it: what ``MatchSeatSerializer`` shows, read in one
    query for a whole page (``with_seat_rows``) instead of a model instance per seat and
    per player."""

    number: int
    team: str
    player: SeatPlayer
    is_bot: bool
    filler: bool


def with_seat_rows(matches: list[LeagueMatch]) -> list[LeagueMatch]:
    """``matches``, each with ``seat_rows``: its seats in order (``SeatRow``), all read in
    one query. The match answers show these instead of reading ``match.seats``."""
    by_match: dict[int, list[SeatRow]] = {m.pk: [] for m in matches}
    if by_match:
        players: dict[str, SeatPlayer] = {}
        rows = (
            LeagueMatchSeat.objects.filter(match_id__in=list(by_match))
            .order_by("match_id", "number")
            .values_list(
                "match_id",
                "number",
                "team",
                "player__username",
                "player__display_name",
                "is_bot",
                "filler",
            )
        )
        for match_id, number, team, username, shown, is_bot, filler in rows:
            player = players.get(username)
            if player is None:
                player = players[username] = SeatPlayer(username, shown or username)
            by_match[match_id].append(SeatRow(number, team, player, is_bot, filler))
    for m in matches:
        m.seat_rows = by_match[m.pk]  # type: ignore[attr-defined]
    return matches


def match_page(matches: QuerySet[LeagueMatch]) -> QuerySet[LeagueMatch]:
    """``matches`` (e.g. ``match_list``'s) for a page that ``with_seat_rows`` completes:
    without the prefetch of every seat's model and player."""
    return matches.prefetch_related(None)


def match_score(m: LeagueMatch) -> dict[str, int]:
    """The match score: stored once the match is over, from the live fold before."""
    if m.status != "playing":
        return {"A": m.score_a, "B": m.score_b}
    return projection.project(m.table).match.summary()["scores"]


def check_match_over(m: LeagueMatch) -> None:
    if m.status == "playing":
        raise MatchInProgress()


def engine_events(m: LeagueMatch) -> list[dict]:
    """The match's engine events up to its end (server events such as annul left out)."""
    rows = Event.objects.filter(table_id=m.table_id, seq__lte=m.end_seq).order_by("seq")
    return [
        e for e in rows.values_list("payload", flat=True) if e.get("type") not in SERVER_EVENT_TYPES
    ]


def record_text(m: LeagueMatch) -> str:
    """JSON Lines that ``python -m engine replay`` accepts; an annulled match's record
    ends with its last finished hand."""
    check_match_over(m)
    return table_selectors.record_text(m.table)


@dataclass(frozen=True)
class MatchHands:
    match_id: int
    hands: list[dict]  # the engine's ``last_hand`` of each hand, with ``scores_after``


def match_hands(m: LeagueMatch) -> MatchHands:
    return MatchHands(m.pk, hands_summary(m))


def hands_summary(m: LeagueMatch) -> list[dict]:
    """Hand by hand, from the engine's fold: deal, opener, line, turns, result, scores,
    and who held each seat when the hand ended (``players``: whoever finished it)."""
    check_match_over(m)
    held = holders.match_holdings(m)
    replay = Replay()
    hands = []
    for done in steps(engine_events(m), replay):
        if done.hand_result is not None:
            last = replay.match.seat_view(1)["last_hand"]
            players = {
                str(n): held.by_seat[n][held.holding_at(n, done.index)].player
                for n in holders.SEATS
            }
            hands.append(
                {**last, "scores_after": done.hand_result.scores.as_dict(), "players": players}
            )
    return hands


# -- players and the lobby ---------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerRating:
    rating: Rating  # its club and player loaded
    history: list[HistoryPoint]


@dataclass(frozen=True)
class PlayerProfile:
    """What ``viewer`` may read of a player: clubs (``role`` annotated), ratings with
    their history, recent matches."""

    player: User
    clubs: list[Club]
    ratings: list[PlayerRating]
    recent_matches: list[LeagueMatch]
    accuracy: dict  # accuracy_of over the matches the viewer may see


def player_profile(username: str, viewer: User | None) -> PlayerProfile:
    player = User.objects.filter(username=username).select_related("bot_owner").first()
    if player is None:
        raise NotFound(f"no player {username!r}")
    role = Membership.objects.filter(club=OuterRef("pk"), user=player, active=True).values("role")
    clubs = (
        visible_clubs(viewer)
        .filter(memberships__user=player, memberships__active=True)
        .annotate(role=Subquery(role[:1]))
    )
    ratings = (
        Rating.objects.filter(player=player, club__in=visible_clubs(viewer))
        .select_related("club", "player")
        .order_by("club__slug")
    )
    return PlayerProfile(
        player,
        list(clubs),
        [PlayerRating(r, rating_history(r.club, player)) for r in ratings],
        with_seat_rows(list(match_page(match_list(viewer, player=username))[:RECENT_MATCHES])),
        accuracy_of(player, visible_matches(viewer)),
    )


@dataclass(frozen=True)
class StatsLine:
    """One line of a player's statistics: finished matches, those won, their hands, the
    hands the player's team won and its Dékabès (a partnership game: a hand is won by
    a team). ``club`` is the club's slug, ``None`` for casual tables."""

    club: str | None
    club_name: str | None
    matches: int
    won: int
    hands: int
    hands_won: int
    dekabes: int


@dataclass(frozen=True)
class PlayerStats:
    """A player's statistics over the finished matches ``viewer`` may read."""

    player: User
    overall: StatsLine
    clubs: list[StatsLine]


def player_stats(username: str, viewer: User | None) -> PlayerStats:
    """Counted in the database over the finished matches of ``match_list`` (annulled and
    unfinished ones do not count). A player who held seats of both teams (pass-and-play
    against oneself) is counted for the team of the first seat held."""
    player = User.objects.filter(username=username).first()
    if player is None:
        raise NotFound(f"no player {username!r}")
    first_seat = Subquery(
        LeagueMatchSeat.objects.filter(match=OuterRef("pk"), player=player)
        .order_by("number")
        .values("number")[:1]
    )
    on_a = Q(first_seat__in=TEAM_SEATS["A"])
    rows = (
        visible_matches(viewer)
        .filter(
            Exists(LeagueMatchSeat.objects.filter(match=OuterRef("pk"), player=player)),
            status="finished",
        )
        .annotate(first_seat=first_seat)
        .values("club__slug", "club__name")
        .annotate(
            matches=Count("id"),
            won=Count("id", filter=(on_a & Q(winner="A")) | (~on_a & Q(winner="B"))),
            hands=Sum("hands"),
            hands_won=Sum(Case(When(on_a, then=F("hands_won_a")), default=F("hands_won_b"))),
            dekabes=Sum(Case(When(on_a, then=F("dekabes_a")), default=F("dekabes_b"))),
        )
        .order_by(F("club__slug").asc(nulls_last=True))
    )
    clubs = [
        StatsLine(
            club=row["club__slug"],
            club_name=row["club__name"],
            matches=row["matches"],
            won=row["won"],
            hands=row["hands"] or 0,
            hands_won=row["hands_won"] or 0,
            dekabes=row["dekabes"] or 0,
        )
        for row in rows
    ]
    overall = StatsLine(
        club=None,
        club_name=None,
        matches=sum(c.matches for c in clubs),
        won=sum(c.won for c in clubs),
        hands=sum(c.hands for c in clubs),
        hands_won=sum(c.hands_won for c in clubs),
        dekabes=sum(c.dekabes for c in clubs),
    )
    return PlayerStats(player, overall, clubs)


def league_tables_version(user: User) -> int:
    """Grows whenever a round seats the account or one of its league matches ends."""
    counts = LeagueMatchSeat.objects.filter(player=user, match__club__isnull=False).aggregate(
        seated=Count("id"), done=Count("id", filter=~Q(match__status="playing"))
    )
    return counts["seated"] + counts["done"]


@dataclass(frozen=True)
class LeagueTables:
    """The caller's seats at league matches in progress, and the version of that list."""

    version: int
    seats: list[LeagueMatchSeat]


def league_tables(user: User) -> LeagueTables:
    seats = (
        LeagueMatchSeat.objects.filter(
            player=user, match__club__isnull=False, match__status="playing"
        )
        .select_related("match__table", "match__club", "match__season", "match__round")
        .order_by("match_id", "number")
    )
    return LeagueTables(league_tables_version(user), list(seats))


# -- analysis ------------------------------------------------------------------------------------
def analysis_report(m: LeagueMatch) -> dict | None:
    """The stored analysis of a finished match, or None while it is not done (no refusal:
    the web replay shows the record without it)."""
    if m.status != "finished":
        return None
    row = MatchAnalysis.objects.filter(match=m, status="done").only("report").first()
    return row.report if row is not None else None


def match_analysis(m: LeagueMatch) -> dict:
    """``GET /api/matches/{id}/analysis``: the report of a finished match whose reader may
    read its record; a live match is ``match_in_progress``, one not analysed yet
    ``analysis_not_ready``, an annulled or unanalysable one ``not_analysed``."""
    check_match_over(m)
    if m.status == "annulled":
        raise NotAnalysed(reason="it was annulled")
    row = MatchAnalysis.objects.filter(match=m).only("status", "report", "error").first()
    if row is None or row.status in ("pending", "running") or row.report is None:
        if row is not None and row.status == "failed":
            raise NotAnalysed(reason="the engine could not analyse its record")
        raise AnalysisNotReady()
    report = row.report
    seats = {n: {**seat, "best_share": seat["accuracy"]} for n, seat in report["seats"].items()}
    return {
        "match_id": m.pk,
        "thresholds": analysis_thresholds(),
        **report,
        "seats": seats,
        "holders": holder_summaries(report, holders.match_holdings(m)),
    }


def holder_summaries(report: dict, held: holders.Holdings) -> list[dict]:
    """Each seat holding's own decisions summed (``engine.analysis.summary``): a seat
    that changed hands is one line per holder, each over the decisions they made."""
    made = holders.by_holding(report["decisions"], held)
    lines = []
    for seat in holders.SEATS:
        for k, holding in enumerate(held.by_seat[seat]):
            mine = summary(made.get((seat, k), []))
            lines.append(
                {
                    "seat": seat,
                    "player": holding.player,
                    "from_step": holding.step,
                    **mine,
                    "best_share": mine["accuracy"],
                }
            )
    return lines


def analysis_thresholds() -> dict[str, float]:
    """Each mark's upper bound on the loss (``engine.analysis.MARKS``); beyond the last:
    a blunder."""
    return {name: below for below, name in MARKS}


def accuracy_of(player: User, matches: QuerySet[LeagueMatch]) -> dict:
    """A player's accuracy over their analysed matches among ``matches`` (the matches the
    reader may see): decisions, average loss per decision, share of best moves.

    The player's rows first (one per seat held in an analysed match), then which of
    their matches the reader may see: the visibility is worked out for those matches
    only, not for every match of the server, and not at all for a player with none."""
    mine = SeatAccuracy.objects.filter(player=player)
    rows = list(mine.values_list("match_id", "decisions", "best_moves", "total_loss", "blunders"))
    if rows:
        readable = set(matches.filter(pk__in=mine.values("match_id")).values_list("pk", flat=True))
        rows = [row for row in rows if row[0] in readable]
    decisions = sum(row[1] for row in rows)
    return {
        "matches": len({row[0] for row in rows}),
        "decisions": decisions,
        "mean_loss": round(sum(row[3] for row in rows) / decisions, 4) if decisions else None,
        "best_share": round(sum(row[2] for row in rows) / decisions, 4) if decisions else None,
        "blunders": sum(row[4] for row in rows),
    }


def record_with_analysis(text: str, report: dict | None) -> str:
    """The record with an ``analysis`` field on each analysed decision's line (an extra
    field, which every reader of the format ignores: docs/records.md); unchanged while
    there is no report."""
    if report is None:
        return text
    by_index = {d["at"]: d for d in report["decisions"]}
    lines = [line for line in text.splitlines() if line.strip()]
    out = []
    for index, line in enumerate(lines):
        decision = by_index.get(index)
        if decision is not None:
            event = json.loads(line)
            event["analysis"] = {
                key: decision[key]
                for key in ("best", "win_played", "win_best", "loss", "mark", "team_a")
            }
            line = json.dumps(event, separators=(",", ":"))
        out.append(line)
    return "\n".join(out) + "\n"
