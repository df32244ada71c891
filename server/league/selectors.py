"""Reads of the club league. Nothing here writes.

Who may read what: a ``public`` club is readable by anyone, a ``members`` club by its
active members only; a casual match (no club) by its players only. A match in progress
shows its score and seats only: no tile of a live hand is reachable from here (the hands
summary and the record are served for finished or annulled matches only, and the
record of an annulled match stops at its last finished hand).
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from engine import Replay, steps
from server.accounts.models import User
from server.errors import ApiError
from server.league.models import (
    CheckIn,
    Club,
    LeagueMatch,
    LeagueMatchSeat,
    Membership,
    Pair,
    Rating,
    RatingPoint,
    Round,
    Season,
    StandingRow,
)
from server.tables import projection
from server.tables import selectors as table_selectors
from server.tables.models import Event
from server.tables.projection import SERVER_EVENT_TYPES

RECENT_MATCHES = 10


# -- visibility -------------------------------------------------------------------------------
def is_member(club: Club, user: User | None) -> bool:
    return (
        user is not None and Membership.objects.filter(club=club, user=user, active=True).exists()
    )


def can_read_club(club: Club, user: User | None) -> bool:
    return club.visibility == "public" or is_member(club, user)


def visible_clubs(user: User | None) -> QuerySet[Club]:
    clubs = Club.objects.all()
    if user is None:
        return clubs.filter(visibility="public")
    mine = Membership.objects.filter(club=OuterRef("pk"), user=user, active=True)
    return clubs.filter(Q(visibility="public") | Exists(mine))


def club_for_reader(slug: str, user: User | None) -> Club:
    club = Club.objects.filter(slug=slug).select_related("created_by").first()
    if club is None:
        raise ApiError("not_found", f"no club {slug!r}", 404)
    if not can_read_club(club, user):
        raise ApiError("club_members_only", "this club's pages are for its members", 403)
    return club


def visible_matches(user: User | None) -> QuerySet[LeagueMatch]:
    league = Q(club__in=visible_clubs(user))
    if user is None:
        return LeagueMatch.objects.filter(league)
    played = LeagueMatchSeat.objects.filter(match=OuterRef("pk"), player=user)
    return LeagueMatch.objects.filter(league | (Q(club__isnull=True) & Exists(played)))


def match_for_reader(match_id: int, user: User | None) -> LeagueMatch:
    match = (
        visible_matches(user)
        .filter(pk=match_id)
        .select_related("club", "season", "round", "table", "pair_a", "pair_b")
        .first()
    )
    if match is None:
        raise ApiError("not_found", f"no match {match_id}", 404)
    return match


# -- clubs and members -----------------------------------------------------------------------
def club_json(club: Club, user: User | None = None) -> dict:
    membership = (
        Membership.objects.filter(club=club, user=user, active=True).first()
        if user is not None
        else None
    )
    return {
        "slug": club.slug,
        "name": club.name,
        "description": club.description,
        "visibility": club.visibility,
        "created_by": club.created_by.username,
        "created_at": club.created_at.isoformat(),
        "members": club.memberships.filter(active=True).count(),
        "your_role": membership.role if membership else None,
    }


def members_of(club: Club, include_removed: bool = False) -> QuerySet[Membership]:
    rows = Membership.objects.filter(club=club).select_related("user", "user__bot_owner")
    if not include_removed:
        rows = rows.filter(active=True)
    return rows.order_by("user__username")


def member_json(m: Membership) -> dict:
    user = m.user
    return {
        "username": user.username,
        "role": m.role,
        "is_bot": user.is_bot,
        "owner": user.bot_owner.username if user.bot_owner is not None else None,
        "house_bot": user.is_bot and user.bot_owner_id is None,
        "active": m.active,
        "joined_at": m.joined_at.isoformat(),
        "removed_at": m.removed_at.isoformat() if m.removed_at else None,
    }


def invite_json(invite) -> dict:
    return {
        "code": invite.code,
        "single_use": invite.single_use,
        "uses": invite.uses,
        "expires_at": invite.expires_at.isoformat() if invite.expires_at else None,
        "created_by": invite.created_by.username,
        "created_at": invite.created_at.isoformat(),
    }


# -- seasons and rounds ----------------------------------------------------------------------
def season_for_reader(club: Club, season_id: int) -> Season:
    season = Season.objects.filter(club=club, pk=season_id).first()
    if season is None:
        raise ApiError("not_found", f"no season {season_id} in {club.slug!r}", 404)
    return season


def round_of(season: Season, number: int) -> Round:
    round_ = Round.objects.filter(season=season, number=number).first()
    if round_ is None:
        raise ApiError("not_found", f"season {season.pk} has no round {number}", 404)
    return round_


def season_json(season: Season) -> dict:
    return {
        "id": season.pk,
        "club": season.club.slug,
        "name": season.name,
        "format": season.format,
        "starts_on": season.starts_on.isoformat() if season.starts_on else None,
        "ends_on": season.ends_on.isoformat() if season.ends_on else None,
        "fill_with_bots": season.fill_with_bots,
        "rounds": season.rounds.count(),
        "pairs": [pair_json(p) for p in season.pairs.select_related("player_1", "player_2")],
        "created_at": season.created_at.isoformat(),
    }


def pair_json(pair: Pair) -> dict:
    return {
        "id": pair.pk,
        "name": pair.name,
        "players": [player_ref(pair.player_1), player_ref(pair.player_2)],
    }


def player_ref(user: User) -> dict:
    return {"username": user.username, "is_bot": user.is_bot}


def round_json(round_: Round) -> dict:
    checkins = (
        CheckIn.objects.filter(round=round_)
        .select_related("player", "pair__player_1", "pair__player_2")
        .order_by("id")
    )
    matches = round_matches(round_)
    return {
        "season": round_.season_id,
        "number": round_.number,
        "status": round_.status,
        "started_at": round_.started_at.isoformat() if round_.started_at else None,
        "present": [_entrant(c) for c in checkins],
        "byes": [_entrant(c) for c in checkins if c.bye],
        "tables": [match_json(m) for m in matches],
    }


def round_matches(round_: Round) -> QuerySet[LeagueMatch]:
    return (
        LeagueMatch.objects.filter(round=round_)
        .select_related("table", "club", "season", "round")
        .prefetch_related("seats__player")
        .order_by("table_number")
    )


def _entrant(row) -> dict:
    if row.pair_id is not None:
        return {"pair": pair_json(row.pair)}
    return {"player": player_ref(row.player)}


# -- standings and ratings -------------------------------------------------------------------
def standing_rows(season: Season) -> QuerySet[StandingRow]:
    return (
        StandingRow.objects.filter(season=season)
        .select_related("player", "pair__player_1", "pair__player_2")
        .order_by("position")
    )


def standing_json(r: StandingRow) -> dict:
    return {
        "position": r.position,
        **_entrant(r),
        "played": r.played,
        "wins": r.wins,
        "byes": r.byes,
        "hands_won": r.hands_won,
        "hands_lost": r.hands_lost,
        "points": r.points,
        "dekabes": r.dekabes,
        "ties": r.ties,
    }


def standings(season: Season) -> list[dict]:
    return [standing_json(r) for r in standing_rows(season)]


def club_ratings(club: Club) -> QuerySet[Rating]:
    return (
        Rating.objects.filter(club=club).select_related("player").order_by("-ordinal", "player_id")
    )


def rating_json(r: Rating) -> dict:
    return {
        "player": r.player.username,
        "is_bot": r.player.is_bot,
        "mu": r.mu,
        "sigma": r.sigma,
        "ordinal": r.ordinal,
        "matches": r.matches,
    }


def rating_history(club: Club, player: User) -> list[dict]:
    """The rating after each rated match, oldest first (the match id dates each point)."""
    points = (
        RatingPoint.objects.filter(club=club, player=player)
        .order_by("id")
        .values_list("match_id", "mu", "sigma", "ordinal")
    )
    return [{"match": m, "mu": mu, "sigma": s, "ordinal": o} for m, mu, s, o in points]


# -- matches ---------------------------------------------------------------------------------
def match_list(
    user: User | None,
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


def match_json(m: LeagueMatch) -> dict:
    over = m.status != "playing"
    if over:
        score = {"A": m.score_a, "B": m.score_b}
    else:  # the score only, from the live fold
        score = projection.project(m.table).match.summary()["scores"]
    data = {
        "id": m.pk,
        "table": m.table.code,
        "rated": m.rated,
        "status": m.status,
        "annulled": m.status == "annulled",
        "annul_reason": m.annul_reason or None,
        "club": m.club.slug if m.club is not None else None,
        "season": {"id": m.season_id, "name": m.season.name} if m.season is not None else None,
        "round": m.round.number if m.round is not None else None,
        "table_number": m.table_number,
        "started_at": m.started_at.isoformat(),
        "finished_at": m.finished_at.isoformat() if m.finished_at else None,
        "seats": [
            {
                "seat": s.number,
                "team": s.team,
                "player": s.player.username,
                "is_bot": s.is_bot,
                "filler": s.filler,
            }
            for s in m.seats.all()
        ],
        "pairs": ({"A": pair_ref(m.pair_a), "B": pair_ref(m.pair_b)} if m.pair_a_id else None),
        "score": score,
        "winner": m.winner,
        "hands": m.hands if over else None,
    }
    if over:
        data.update(
            {
                "hands_won": {"A": m.hands_won_a, "B": m.hands_won_b},
                "hands_tied": m.hands_tied,
                "points": {"A": m.points_a, "B": m.points_b},
                "dekabes": {"A": m.dekabes_a, "B": m.dekabes_b},
            }
        )
    return data


def pair_ref(pair: Pair | None) -> dict | None:
    return {"id": pair.pk, "name": pair.name} if pair is not None else None


def check_match_over(m: LeagueMatch) -> None:
    if m.status == "playing":
        raise ApiError("match_in_progress", "the match is in progress: its score only", 409)


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


def hands_summary(m: LeagueMatch) -> list[dict]:
    """Hand by hand, from the engine's fold: deal, opener, line, turns, result, scores."""
    check_match_over(m)
    replay = Replay()
    hands = []
    for done in steps(engine_events(m), replay):
        if done.hand_result is not None:
            last = replay.match.seat_view(1)["last_hand"]
            hands.append({**last, "scores_after": done.hand_result.scores.as_dict()})
    return hands


# -- players and the lobby ---------------------------------------------------------------------
def player_profile(username: str, viewer: User | None) -> dict:
    player = User.objects.filter(username=username).select_related("bot_owner").first()
    if player is None:
        raise ApiError("not_found", f"no player {username!r}", 404)
    clubs = visible_clubs(viewer).filter(memberships__user=player, memberships__active=True)
    roles = dict(Membership.objects.filter(user=player, active=True).values_list("club_id", "role"))
    rated = visible_clubs(viewer).filter(ratings__player=player).distinct()
    ratings = {r.club_id: r for r in Rating.objects.filter(player=player, club__in=rated)}
    recent = match_list(viewer, player=username)[:RECENT_MATCHES]
    return {
        "username": player.username,
        "is_bot": player.is_bot,
        "owner": player.bot_owner.username if player.bot_owner is not None else None,
        "clubs": [{"slug": c.slug, "name": c.name, "role": roles.get(c.pk)} for c in clubs],
        "ratings": [
            {"club": c.slug, **rating_json(ratings[c.pk]), "history": rating_history(c, player)}
            for c in rated
        ],
        "recent_matches": [match_json(m) for m in recent],
    }


def league_tables_version(user: User) -> int:
    """Grows whenever a round seats the account or one of its league matches ends."""
    counts = LeagueMatchSeat.objects.filter(player=user, match__club__isnull=False).aggregate(
        seated=Count("id"), done=Count("id", filter=~Q(match__status="playing"))
    )
    return counts["seated"] + counts["done"]


def my_league_tables(user: User) -> dict:
    seats = (
        LeagueMatchSeat.objects.filter(
            player=user, match__club__isnull=False, match__status="playing"
        )
        .select_related("match__table", "match__club", "match__season", "match__round")
        .order_by("match_id", "number")
    )
    return {
        "version": league_tables_version(user),
        "tables": [
            {
                "match": s.match_id,
                "table": s.match.table.code,
                "seat": s.number,
                "team": s.team,
                "club": s.match.club.slug if s.match.club is not None else None,
                "season": s.match.season_id,
                "round": s.match.round.number if s.match.round is not None else None,
                "table_number": s.match.table_number,
                "seat_url": f"/api/tables/{s.match.table.code}/seats/{s.number}",
            }
            for s in seats
        ],
    }
