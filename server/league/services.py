"""Writes of the club league. ``check_*`` validates and raises a refusal of
``server.errors``; ``do_*``
writes inside one transaction; pushes go out once it has committed.

The league never plays: a round's matches are ordinary rated tables created through
``server.tables.services``. When a table's match ends, ``record_match_end`` (a receiver
of ``tables.signals.match_ended``) writes the result, the season's standings and the
club's ratings in the transaction of the event that ended it.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets

from django.db import IntegrityError, transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import (
    AlreadyInPair,
    AlreadyMember,
    InviteExpired,
    InviteInvalid,
    InviteUsed,
    LastOrganizer,
    NotALeagueMatch,
    NotAMember,
    NotAuthenticated,
    NotEnoughHouseBots,
    NotEnoughPlayers,
    NotFound,
    NotYourBot,
    OneSeatPerPlayer,
    OrganizerOnly,
    PermissionDenied,
    RoundInProgress,
    RoundStarted,
    SlugTaken,
    ValidationError,
    WrongFormat,
)
from server.league import projections
from server.league.match_rows import casual_match, seat_players
from server.league.models import (
    CheckIn,
    Club,
    Invite,
    LeagueMatch,
    Membership,
    Pair,
    Round,
    Season,
)
from server.league.pairing import draw_individual, draw_pairs
from server.realtime.notify import league_tables_changed
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Table
from server.tables.services import controller_of

INVITE_ALPHABET = table_services.CODE_ALPHABET


# -- roles -------------------------------------------------------------------------------
def membership_of(club: Club, user: User | None) -> Membership | None:
    if user is None:
        return None
    return Membership.objects.filter(club=club, user=user, active=True).first()


def check_member(club: Club, user: User | None) -> Membership:
    if user is None:
        raise NotAuthenticated()
    membership = membership_of(club, user)
    if membership is None:
        raise NotAMember(club=club.slug)
    return membership


def check_organizer(club: Club, user: User | None) -> Membership:
    membership = check_member(club, user)
    if membership.role != "organizer":
        raise OrganizerOnly()
    return membership


def check_person(user: User) -> None:
    if user.is_bot:
        raise PermissionDenied("bot accounts do not manage clubs")


# -- clubs -------------------------------------------------------------------------------
def do_create_club(
    *, user: User, slug: str, name: str, description: str = "", visibility: str = "public"
) -> Club:
    check_person(user)
    if Club.objects.filter(slug=slug).exists():
        raise SlugTaken(slug=slug)
    try:
        with writing(), transaction.atomic():
            club = Club.objects.create(
                slug=slug,
                name=name,
                description=description,
                visibility=visibility,
                created_by=user,
            )
            Membership.objects.create(club=club, user=user, role="organizer")
    except IntegrityError:
        raise SlugTaken(slug=slug) from None
    return club


def do_update_club(*, user: User, club: Club, changes: dict) -> Club:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        for name, value in changes.items():
            setattr(club, name, value)
        club.save(update_fields=list(changes) or None)
    return club


def do_create_invite(
    *, user: User, club: Club, single_use: bool = False, expires_at: dt.datetime | None = None
) -> Invite:
    check_organizer(club, user)
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationError("expires_at must be in the future")
    with writing(), transaction.atomic():
        while True:
            code = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(10))
            if not Invite.objects.filter(code=code).exists():
                break
        return Invite.objects.create(
            club=club, code=code, created_by=user, single_use=single_use, expires_at=expires_at
        )


def check_invite(club: Club, code: str) -> Invite:
    invite = Invite.objects.filter(club=club, code=code.strip().upper()).first()
    if invite is None:
        raise InviteInvalid()
    if invite.expires_at is not None and invite.expires_at <= timezone.now():
        raise InviteExpired()
    if invite.single_use and invite.uses > 0:
        raise InviteUsed()
    return invite


def do_join_club(*, user: User, club: Club | None, code: str) -> Membership:
    check_person(user)
    if club is None:  # the answer a wrong code gets: a members club's existence stays hidden
        raise InviteInvalid()
    with writing(), transaction.atomic():
        invite = check_invite(club, code)
        membership = Membership.objects.filter(club=club, user=user).first()
        if membership is not None and membership.active:
            raise AlreadyMember()
        Invite.objects.filter(pk=invite.pk).update(uses=invite.uses + 1)
        if membership is None:
            return Membership.objects.create(club=club, user=user, role="member")
        membership.active, membership.role, membership.removed_at = True, "member", None
        membership.save(update_fields=["active", "role", "removed_at"])
        return membership


def _active_member(club: Club, username: str) -> Membership:
    membership = (
        Membership.objects.filter(club=club, user__username=username, active=True)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise NotFound(f"{username!r} is not a member of this club")
    return membership


def _check_keeps_an_organizer(club: Club, leaving: Membership) -> None:
    if leaving.role != "organizer":
        return
    others = Membership.objects.filter(club=club, role="organizer", active=True).exclude(
        pk=leaving.pk
    )
    if not others.exists():
        raise LastOrganizer()


def do_remove_member(*, user: User, club: Club, username: str) -> Membership:
    """The member leaves the club's lists; their matches and ratings stay."""
    check_organizer(club, user)
    with writing(), transaction.atomic():
        membership = _active_member(club, username)
        _check_keeps_an_organizer(club, membership)
        membership.active, membership.removed_at = False, timezone.now()
        membership.save(update_fields=["active", "removed_at"])
        return membership


def do_set_role(*, user: User, club: Club, username: str, role: str) -> Membership:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        membership = _active_member(club, username)
        if membership.user.is_bot and role == "organizer":
            raise PermissionDenied("a bot cannot organize a club")
        if role == "member":
            _check_keeps_an_organizer(club, membership)
        membership.role = role
        membership.save(update_fields=["role"])
        return membership


def do_enter_bot(*, user: User, club: Club, bot_name: str) -> Membership:
    """A member enters a bot they own; an organizer enters house bots (no owner)."""
    member = check_member(club, user)
    bot = User.objects.filter(username=bot_name, is_bot=True).first()
    if bot is None:
        raise NotFound(f"no bot account named {bot_name!r}")
    if bot.bot_owner_id is None:
        if member.role != "organizer":
            raise OrganizerOnly("only organizers enter house bots")
    elif bot.bot_owner_id != user.pk:
        raise NotYourBot(bot=bot.username)
    with writing(), transaction.atomic():
        membership = Membership.objects.filter(club=club, user=bot).first()
        if membership is not None and membership.active:
            raise AlreadyMember(f"{bot.username} is in this club already")
        if membership is None:
            return Membership.objects.create(club=club, user=bot, role="member", entered_by=user)
        membership.active, membership.removed_at, membership.entered_by = True, None, user
        membership.save(update_fields=["active", "removed_at", "entered_by"])
        return membership


# -- seasons and pairs ---------------------------------------------------------------------
def do_create_season(
    *,
    user: User,
    club: Club,
    name: str,
    format: str,
    starts_on: dt.date | None = None,
    ends_on: dt.date | None = None,
    fill_with_bots: bool = False,
    seed: int | None = None,
) -> Season:
    check_organizer(club, user)
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError("ends_on is before starts_on")
    with writing(), transaction.atomic():
        return Season.objects.create(
            club=club,
            name=name,
            format=format,
            starts_on=starts_on,
            ends_on=ends_on,
            fill_with_bots=fill_with_bots,
            seed=random.randrange(2**31) if seed is None else seed,
        )


def check_format(season: Season, wanted: str) -> None:
    if season.format != wanted:
        raise WrongFormat(format=season.format)


def _members(club: Club, usernames: list[str]) -> list[User]:
    found = {
        m.user.username: m.user
        for m in Membership.objects.filter(
            club=club, active=True, user__username__in=usernames
        ).select_related("user")
    }
    missing = [u for u in usernames if u not in found]
    if missing:
        raise NotAMember(f"not members of this club: {', '.join(missing)}")
    return [found[u] for u in usernames]


def do_register_pair(
    *, user: User, season: Season, name: str, player_1: str, player_2: str
) -> Pair:
    check_organizer(season.club, user)
    check_format(season, "pairs")
    first, second = _members(season.club, [player_1, player_2])
    if controller_of(first) == controller_of(second):
        raise OneSeatPerPlayer("a pair is two different people")
    with writing(), transaction.atomic():
        taken = {
            controller_of(p)
            for pair in Pair.objects.filter(season=season).select_related("player_1", "player_2")
            for p in (pair.player_1, pair.player_2)
        }
        if {controller_of(first), controller_of(second)} & taken:
            raise AlreadyInPair()
        return Pair.objects.create(
            season=season,
            name=name or f"{first.username} & {second.username}",
            player_1=first,
            player_2=second,
        )


# -- rounds --------------------------------------------------------------------------------
def do_create_round(*, user: User, season: Season) -> Round:
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        number = (
            season.rounds.order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        return Round.objects.create(season=season, number=number)


def check_round_open(round_: Round) -> None:
    if round_.status != "open":
        raise RoundStarted(number=round_.number)


def do_check_in(
    *,
    user: User,
    round_: Round,
    players: list[str] | None = None,
    pairs: list[int] | None = None,
) -> list[CheckIn]:
    """Set who is present for an open round (the whole list, replacing any earlier one)."""
    season = round_.season
    check_organizer(season.club, user)
    check_round_open(round_)
    if season.format == "individual":
        if pairs:
            raise WrongFormat("an individual season checks in players")
        people = _members(season.club, list(dict.fromkeys(players or [])))
        controllers = [controller_of(p) for p in people]
        if len(set(controllers)) != len(controllers):
            raise OneSeatPerPlayer("a member and their own bot cannot both play a round")
        rows = [CheckIn(round=round_, player=p) for p in people]
    else:
        if players:
            raise WrongFormat("a pairs season checks in pairs")
        ids = list(dict.fromkeys(pairs or []))
        found = {p.pk: p for p in Pair.objects.filter(season=season, pk__in=ids)}
        missing = [str(i) for i in ids if i not in found]
        if missing:
            raise NotFound(f"no pairs {', '.join(missing)} in this season")
        rows = [CheckIn(round=round_, pair=found[i]) for i in ids]
    with writing(), transaction.atomic():
        CheckIn.objects.filter(round=round_).delete()
        return CheckIn.objects.bulk_create(rows)


def check_may_start(round_: Round) -> None:
    check_round_open(round_)
    earlier = Round.objects.filter(season=round_.season, number__lt=round_.number)
    if earlier.exclude(status="finished").exists():
        raise RoundInProgress()


def do_start_round(*, user: User, round_: Round) -> list[LeagueMatch]:
    """Draw the round and create its rated tables, every seat assigned."""
    season = round_.season
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        round_ = Round.objects.select_for_update().get(pk=round_.pk)
        check_may_start(round_)
        if season.format == "individual":
            seatings, byes = _draw_individual(round_)
        else:
            seatings, byes = _draw_pairs(round_)
        if not seatings:
            raise NotEnoughPlayers()
        matches = [
            _open_match(user, round_, number, seats, pairs, fillers)
            for number, (seats, pairs, fillers) in enumerate(seatings, start=1)
        ]
        if season.format == "individual":
            CheckIn.objects.filter(round=round_, player_id__in=byes).update(bye=True)
        else:
            CheckIn.objects.filter(round=round_, pair_id__in=byes).update(bye=True)
        round_.status, round_.started_at = "started", timezone.now()
        round_.save(update_fields=["status", "started_at"])
        projections.rebuild_standings(season)
        seated = [s.player_id for m in matches for s in m.seats.all()]
        transaction.on_commit(lambda: _tell_players(seated))
    return matches


def _draw_individual(round_: Round):
    season = round_.season
    present = list(
        CheckIn.objects.filter(round=round_, player__isnull=False)
        .order_by("player_id")
        .values_list("player_id", flat=True)
    )
    checked_in = set(present)
    history = []  # earlier tables of the season, house bots filling seats as None
    for match in LeagueMatch.objects.filter(season=season).prefetch_related("seats").order_by("id"):
        seats = {s.number: None if s.filler else s.player_id for s in match.seats.all()}
        history.append(tuple(seats[n] for n in (1, 2, 3, 4)))
    draw = draw_individual(
        present,
        history,
        seed=_round_seed(round_),
        fill_with_bots=season.fill_with_bots,
        bye_counts=projections.season_byes(season),
    )
    fillers = iter(_house_bots(season, checked_in, sum(t.count(None) for t in draw.tables)))
    players = User.objects.in_bulk(checked_in)
    seatings = [
        (
            {
                n: players[pid] if pid is not None else next(fillers)
                for n, pid in zip((1, 2, 3, 4), table, strict=True)
            },
            (None, None),
            {n for n, pid in zip((1, 2, 3, 4), table, strict=True) if pid is None},
        )
        for table in draw.tables
    ]
    return seatings, list(draw.byes)


def _house_bots(season: Season, present: set[int], needed: int) -> list[User]:
    if not needed:
        return []
    bots = list(
        User.objects.filter(
            memberships__club=season.club,
            memberships__active=True,
            is_bot=True,
            bot_owner__isnull=True,
        )
        .exclude(pk__in=present)
        .order_by("username")[:needed]
    )
    if len(bots) < needed:
        raise NotEnoughHouseBots(needed=needed, free=len(bots))
    return bots


def _draw_pairs(round_: Round):
    season = round_.season
    present = list(
        CheckIn.objects.filter(round=round_, pair__isnull=False)
        .order_by("pair_id")
        .values_list("pair_id", flat=True)
    )
    ranked = [
        pid
        for pid in season.standings.filter(pair__isnull=False)
        .order_by("position")
        .values_list("pair_id", flat=True)
        if pid in present
    ]
    played = [
        frozenset((a, b))
        for a, b in LeagueMatch.objects.filter(season=season).values_list("pair_a_id", "pair_b_id")
    ]
    # Pairs not ranked yet are drawn in a seeded order by the pairing module.
    draw = draw_pairs(
        present,
        ranked,
        played,
        seed=_round_seed(round_),
        bye_counts=projections.season_byes(season),
    )
    pairs = Pair.objects.select_related("player_1", "player_2").in_bulk(present)
    seatings: list[tuple[dict[int, User], tuple[Pair, Pair], set[int]]] = []
    for x, y in draw.tables:
        px, py = pairs[x], pairs[y]
        seatings.append(
            ({1: px.player_1, 2: py.player_1, 3: px.player_2, 4: py.player_2}, (px, py), set())
        )
    return seatings, list(draw.byes)


def _round_seed(round_: Round) -> int:
    return round_.season.seed * 1000 + round_.number


def _open_match(
    user: User, round_: Round, number: int, seats: dict[int, User], pairs, fillers: set[int]
) -> LeagueMatch:
    table = table_services.do_create_seated_table(owner=user, players=seats, rated=True)
    match = LeagueMatch.objects.create(
        table=table,
        club=round_.season.club,
        season=round_.season,
        round=round_,
        table_number=number,
        pair_a=pairs[0],
        pair_b=pairs[1],
        rated=True,
        started_at=table.created_at,
    )
    seat_players(match, seats, fillers)
    return match


def _tell_players(user_ids: list[int]) -> None:
    league_tables_changed(user_ids)


# -- annul -----------------------------------------------------------------------------------
def do_annul(*, user: User, match: LeagueMatch, reason: str) -> LeagueMatch:
    """An organizer stops a stuck match: an ``annul`` event in the table's log."""
    if match.club is None:
        raise NotALeagueMatch()
    check_organizer(match.club, user)
    if not reason.strip():
        raise ValidationError("say why the match is annulled (reason)")
    table_services.do_annul(actor=user, table=match.table, reason=reason.strip())
    match.refresh_from_db()
    return match


# -- results (receiver of tables.signals.match_ended) ------------------------------------------
def record_match_end(sender, table: Table, state, annulled: bool, **kwargs) -> None:
    match = LeagueMatch.objects.filter(table=table).select_related("season", "club").first()
    if match is None:
        match = casual_match(table)
    elif match.status != "playing":
        # A casual table may play on after its match ended (undo, new match): its history
        # keeps the first finished match, as a rebuild from the log does.
        return
    if match.club_id is not None:
        # One club's results are written one at a time (PostgreSQL: the club row's lock),
        # so each sees the others' committed rows: standings, ratings, the round's end.
        Club.objects.select_for_update().filter(pk=match.club_id).first()
    projections.apply_result(match, state)
    if match.season is not None and not annulled:
        projections.rebuild_standings(match.season)
    if match.club_id is not None and match.rated and not annulled:
        projections.rate(match)
    if match.round_id is not None:
        _finish_round_if_done(match.round_id)
    seated = list(match.seats.values_list("player_id", flat=True))
    transaction.on_commit(lambda: _tell_players(seated))


def _finish_round_if_done(round_id: int) -> None:
    if not LeagueMatch.objects.filter(round_id=round_id, status="playing").exists():
        Round.objects.filter(pk=round_id).update(status="finished")
