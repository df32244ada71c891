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
import itertools
import random
import secrets
from collections.abc import Iterable

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from engine.bots import LEVELS
from server.accounts import services as account_services
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
    SeasonClosed,
    SlugTaken,
    TooManyClubs,
    TooManyHostedPlayers,
    TooManyInvites,
    TooManyRounds,
    TooManySeasons,
    ValidationError,
    WrongFormat,
)
from server.league import projections, selectors
from server.league.action_log import VERBS
from server.league.match_rows import casual_match, seat_players
from server.league.models import (
    Announcement,
    Availability,
    CheckIn,
    Club,
    ClubAction,
    Invite,
    LeagueMatch,
    LeagueMatchSeat,
    Membership,
    Pair,
    Round,
    Season,
)
from server.league.pairing import draw_individual, draw_pairs
from server.notices.notify import club_changed, league_tables_changed
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


def lock_club(club_id: int) -> None:
    """Take the club row's lock (PostgreSQL; SQLite's one writer serialises anyway) for the
    rest of the transaction: the league's writes under one club happen one at a time, so
    each one's checks (an invite's uses, the last organizer, a pair's players, a round's
    status) see the others' committed rows. The lock order is always the club row first,
    then a round row; a table's writer locks its table row first, then the club row
    (``record_match_end``), and no league write holds the club row while locking a table
    that is in play."""
    list(Club.objects.select_for_update().filter(pk=club_id).values_list("pk", flat=True))


def check_still_organizer(club: Club, user: User) -> None:
    """``check_organizer`` again under the club's lock: another organizer may have
    demoted or removed ``user`` meanwhile."""
    check_organizer(club, user)


# -- the organizer action log ----------------------------------------------------------------
def record_action(*, club: Club, actor: User | None, verb: str, **details) -> ClubAction:
    """One entry of the club's action log. Called inside the transaction of the action
    it records, so a refused (rolled back) action leaves no entry; ``actor`` None is the
    server itself. ``details`` name the subject as data (usernames, numbers, reasons)."""
    if verb not in VERBS:
        raise ValueError(f"{verb!r} is not in action_log.VERBS")
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("record_action belongs inside the action's transaction")
    return ClubAction.objects.create(club=club, actor=actor, verb=verb, details=details)


# -- clubs -------------------------------------------------------------------------------
def do_create_club(
    *, user: User, slug: str, name: str, description: str = "", visibility: str = "public"
) -> Club:
    check_person(user)
    if Club.objects.filter(slug=slug).exists():
        raise SlugTaken(slug=slug)
    try:
        with writing(), transaction.atomic():
            # One creation at a time per account (its row's lock): the quota holds.
            list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk"))
            check_club_quota(user)
            club = Club.objects.create(
                slug=slug,
                name=name,
                description=description,
                visibility=visibility,
                created_by=user,
            )
            Membership.objects.create(club=club, user=user, role="organizer")
            record_action(
                club=club,
                actor=user,
                verb="club.create",
                slug=slug,
                name=name,
                visibility=visibility,
            )
    except IntegrityError:
        raise SlugTaken(slug=slug) from None
    return club


def check_club_quota(user: User) -> None:
    limit = settings.DEKABES_MAX_CLUBS
    if Club.objects.filter(created_by=user).count() >= limit:
        raise TooManyClubs(limit=limit)


def check_invite_quota(club: Club) -> None:
    limit = settings.DEKABES_MAX_INVITES
    if selectors.open_invites(club).count() >= limit:
        raise TooManyInvites(limit=limit)


def do_update_club(*, user: User, club: Club, changes: dict) -> Club:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        before = {name: getattr(club, name) for name in changes}
        for name, value in changes.items():
            setattr(club, name, value)
        club.save(update_fields=list(changes) or None)
        record_action(
            club=club,
            actor=user,
            verb="club.edit",
            changes={n: [before[n], v] for n, v in changes.items() if before[n] != v},
        )
    return club


def do_create_invite(
    *, user: User, club: Club, single_use: bool = False, expires_at: dt.datetime | None = None
) -> Invite:
    check_organizer(club, user)
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationError("expires_at must be in the future")
    with writing(), transaction.atomic():
        lock_club(club.pk)
        check_invite_quota(club)
        while True:
            code = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(10))
            if not Invite.objects.filter(code=code).exists():
                break
        invite = Invite.objects.create(
            club=club, code=code, created_by=user, single_use=single_use, expires_at=expires_at
        )
        record_action(
            club=club,
            actor=user,
            verb="invite.create",
            code=code,
            single_use=single_use,
            expires_at=expires_at,
        )
        return invite


def do_revoke_invite(*, user: User, club: Club, code: str) -> Invite:
    """The code joins no one any more (its uses so far stay): the remedy when a removed
    member could rejoin with the code they used. A revoked or unknown code: ``InviteInvalid``
    (a revoked code then joins as an unknown one)."""
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)
        invite = (
            Invite.objects.select_for_update()
            .filter(club=club, code=code.strip().upper(), revoked_at__isnull=True)
            .first()
        )
        if invite is None:
            raise InviteInvalid()
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])
        record_action(club=club, actor=user, verb="invite.revoke", code=invite.code)
        return invite


def check_invite(club: Club, code: str) -> Invite:
    invite = Invite.objects.filter(
        club=club, code=code.strip().upper(), revoked_at__isnull=True
    ).first()
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
    try:
        return _join_club(user=user, club=club, code=code)
    except IntegrityError:  # an earlier write of the same membership (SQLite, another process)
        raise AlreadyMember() from None


def _join_club(*, user: User, club: Club, code: str) -> Membership:
    with writing(), transaction.atomic():
        lock_club(club.pk)  # joins one at a time: a single-use code admits one person
        invite = check_invite(club, code)
        membership = Membership.objects.filter(club=club, user=user).first()
        if membership is not None and membership.active:
            raise AlreadyMember()
        Invite.objects.filter(pk=invite.pk).update(uses=F("uses") + 1)
        record_action(
            club=club,
            actor=user,
            verb="member.join",
            username=user.username,
            invite=invite.code,
            again=membership is not None,
        )
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
        lock_club(club.pk)  # two organizers removing each other: the second keeps the club
        membership = _active_member(club, username)
        _check_keeps_an_organizer(club, membership)
        check_still_organizer(club, user)
        membership.active, membership.removed_at = False, timezone.now()
        membership.save(update_fields=["active", "removed_at"])
        removed = membership.user
        record_action(
            club=club,
            actor=user,
            verb="member.remove",
            username=removed.username,
            role=membership.role,
            is_bot=removed.is_bot,
            level=removed.hosted_level or None,
        )
        if not removed.is_bot:
            _remove_bots_of(club=club, actor=user, owner=removed)
        return membership


def _remove_bots_of(*, club: Club, actor: User, owner: User) -> None:
    """A removed member's own bots leave the club with them (docs/league.md): a bot
    stays a member only as long as the person who entered it."""
    bots = Membership.objects.filter(
        club=club, active=True, user__is_bot=True, user__bot_owner=owner
    ).select_related("user")
    for membership in bots:
        membership.active, membership.removed_at = False, timezone.now()
        membership.save(update_fields=["active", "removed_at"])
        record_action(
            club=club,
            actor=actor,
            verb="member.remove",
            username=membership.user.username,
            role=membership.role,
            is_bot=True,
            level=None,
        )


def do_set_role(*, user: User, club: Club, username: str, role: str) -> Membership:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)  # two organizers demoting each other: the second is refused
        membership = _active_member(club, username)
        if membership.user.is_bot and role == "organizer":
            raise PermissionDenied("a bot cannot organize a club")
        if role == "member":
            _check_keeps_an_organizer(club, membership)
        check_still_organizer(club, user)
        membership.role = role
        membership.save(update_fields=["role"])
        verb = "member.promote" if role == "organizer" else "member.demote"
        record_action(club=club, actor=user, verb=verb, username=membership.user.username)
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
    try:
        return _enter_bot(user=user, club=club, bot=bot)
    except IntegrityError:  # an earlier write of the same membership (SQLite, another process)
        raise AlreadyMember(f"{bot.username} is in this club already") from None


def _enter_bot(*, user: User, club: Club, bot: User) -> Membership:
    with writing(), transaction.atomic():
        lock_club(club.pk)  # one entry of a bot at a time
        membership = Membership.objects.filter(club=club, user=bot).first()
        if bot.hosted_level and membership is None:
            raise PermissionDenied("a hosted player plays for the club it was added to")
        if membership is not None and membership.active:
            raise AlreadyMember(f"{bot.username} is in this club already")
        record_action(
            club=club,
            actor=user,
            verb="bot.enter",
            bot=bot.username,
            owner=bot.bot_owner.username if bot.bot_owner is not None else None,
        )
        if membership is None:
            return Membership.objects.create(club=club, user=bot, role="member", entered_by=user)
        membership.active, membership.removed_at, membership.entered_by = True, None, user
        membership.save(update_fields=["active", "removed_at", "entered_by"])
        return membership


# -- server-hosted computer players -----------------------------------------------------------
def check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValidationError(f"a level is one of {', '.join(LEVELS)}")


def check_hosted_quota(club: Club) -> None:
    limit = settings.DEKABES_MAX_HOSTED_PLAYERS
    if selectors.hosted_members(club).count() >= limit:
        raise TooManyHostedPlayers(limit=limit)


def hosted_name(club: Club, level: str) -> str:
    """A free, readable account name for a new hosted player: ``riverside-expert-2``."""
    for n in itertools.count(1):
        suffix = f"-{level}-{n}"
        name = club.slug[: account_services.NAME_MAX - len(suffix)] + suffix
        if not User.objects.filter(username__iexact=name).exists():
            return name
    raise AssertionError("unreachable")  # itertools.count never ends


def do_add_hosted_player(
    *, user: User, club: Club, level: str, name: str | None = None
) -> Membership:
    """An organizer adds a server-hosted computer player at ``level`` to the club: a new
    house bot account (its name derived from the club and the level unless given) that
    the server's host process plays. Remove it as any member (``do_remove_member``)."""
    check_organizer(club, user)
    check_level(level)
    if name is not None:
        account_services.check_username(name)
    return _add_hosted_player(club=club, level=level, name=name, actor=user)


def _add_hosted_player(
    *, club: Club, level: str, name: str | None, actor: User | None
) -> Membership:
    with writing(), transaction.atomic():
        # One addition at a time per club (PostgreSQL: the club row's lock), so two
        # concurrent additions cannot both pass the quota.
        lock_club(club.pk)
        check_hosted_quota(club)
        bot = account_services.do_create_hosted_bot(
            name=name or hosted_name(club, level), level=level
        )
        membership = Membership.objects.create(club=club, user=bot, role="member", entered_by=actor)
        record_action(club=club, actor=actor, verb="bot.host", username=bot.username, level=level)
    return membership


def hosted_player_for(
    *, club: Club, level: str, exclude: Iterable[int] = (), actor: User | None = None
) -> User:
    """A hosted player of ``level`` in ``club`` to seat now (a substitution): one that sits
    at no league match in progress if there is one, else any of that level, never one of
    the account ids ``exclude`` (the match's own players); none: a new one is added
    (``bot.host`` in the log by ``actor``, None for the server; the club's quota holds)."""
    check_level(level)
    busy = LeagueMatchSeat.objects.filter(player=OuterRef("user"), match__status="playing")
    found = (
        selectors.hosted_members(club)
        .filter(user__hosted_level=level)
        .exclude(user_id__in=list(exclude))
        .annotate(busy=Exists(busy))
        .order_by("busy", "user__username")
        .first()
    )
    if found is not None:
        return found.user
    return _add_hosted_player(club=club, level=level, name=None, actor=actor).user


def check_host(user: User | None) -> None:
    """The server's host process signs in as the house bot ``DEKABES_HOST_ACCOUNT``."""
    if user is None:
        raise NotAuthenticated()
    if not (user.is_house_bot and user.username == settings.DEKABES_HOST_ACCOUNT):
        raise PermissionDenied("only the server's host account plays hosted players")


def grant_hosted_token(*, user: User, name: str) -> account_services.TokenGrant:
    """A token for a hosted player in service, for the host process (device ``host``:
    only the host's previous token of that player stops working)."""
    check_host(user)
    bot = selectors.hosted_players_in_service().filter(username=name).first()
    if bot is None:
        raise NotFound(f"no hosted player {name!r} in service")
    return account_services.grant_token(user=bot, device=account_services.HOST_DEVICE)


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
    auto_substitute_after: int | None = None,
    duplicate: bool = False,
    seed: int | None = None,
) -> Season:
    check_organizer(club, user)
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError("ends_on is before starts_on")
    with writing(), transaction.atomic():
        lock_club(club.pk)
        limit = settings.DEKABES_MAX_SEASONS
        if Season.objects.filter(club=club).count() >= limit:
            raise TooManySeasons(limit=limit)
        season = Season.objects.create(
            club=club,
            name=name,
            format=format,
            starts_on=starts_on,
            ends_on=ends_on,
            fill_with_bots=fill_with_bots,
            auto_substitute_after=auto_substitute_after,
            duplicate=duplicate,
            seed=random.randrange(2**31) if seed is None else seed,
        )
        record_action(
            club=club,
            actor=user,
            verb="season.create",
            season=season.pk,
            name=name,
            format=format,
            starts_on=starts_on,
            ends_on=ends_on,
            fill_with_bots=fill_with_bots,
            auto_substitute_after=auto_substitute_after,
            duplicate=duplicate,
        )
        return season


def check_season_open(season: Season) -> None:
    if season.closed_at is not None:
        raise SeasonClosed()


SEASON_FIELDS = ("name", "starts_on", "ends_on")


def do_update_season(*, user: User, season: Season, changes: dict) -> Season:
    """Change a season's name or dates (``changes``: some of ``SEASON_FIELDS``)."""
    check_organizer(season.club, user)
    check_season_open(season)
    unknown = set(changes) - set(SEASON_FIELDS)
    if unknown:
        raise ValidationError(f"a season's {', '.join(sorted(unknown))} cannot be changed")
    if "name" in changes and not str(changes["name"]).strip():
        raise ValidationError("a season has a name")
    starts_on = changes.get("starts_on", season.starts_on)
    ends_on = changes.get("ends_on", season.ends_on)
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError("ends_on is before starts_on")
    with writing(), transaction.atomic():
        lock_club(season.club_id)
        before = {name: getattr(season, name) for name in changes}
        for name, value in changes.items():
            setattr(season, name, value)
        season.save(update_fields=list(changes) or None)
        record_action(
            club=season.club,
            actor=user,
            verb="season.edit",
            season=season.pk,
            changes={n: [before[n], v] for n, v in changes.items() if before[n] != v},
        )
    return season


def do_close_season(*, user: User, season: Season) -> Season:
    """Archive a season: its standings stay readable, it takes no new round, check-in or
    start. A round being played must finish first (``RoundInProgress``); a round opened
    but not drawn stays as it is, never to be started."""
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        lock_club(season.club_id)
        season = Season.objects.select_for_update().select_related("club").get(pk=season.pk)
        check_season_open(season)
        if season.rounds.filter(status="started").exists():
            raise RoundInProgress("a round of this season is being played")
        season.closed_at = timezone.now()
        season.save(update_fields=["closed_at"])
        record_action(
            club=season.club, actor=user, verb="season.close", season=season.pk, name=season.name
        )
    return season


# -- availability ---------------------------------------------------------------------------
def do_set_availability(
    *, user: User, season: Season, available: bool, username: str | None = None
) -> Availability:
    """A member says whether they can play the season's next round; an organizer may say
    it for any member (``username``: an override, in the action log). The check-in of the
    round is still the organizer's (the round page offers "everyone available")."""
    club = season.club
    member = check_member(club, user)
    check_season_open(season)
    if username is None or username == user.username:
        player = user
    else:
        if member.role != "organizer":
            raise OrganizerOnly("only organizers mark another member")
        player = _active_member(club, username).user
    with writing(), transaction.atomic():
        lock_club(season.club_id)
        row, _ = Availability.objects.update_or_create(
            season=season,
            player=player,
            defaults={"available": available, "set_by": user, "at": timezone.now()},
        )
        if player != user:
            record_action(
                club=club,
                actor=user,
                verb="availability.override",
                season=season.pk,
                username=player.username,
                available=available,
            )
    return row


# -- announcements ----------------------------------------------------------------------------
ANNOUNCEMENT_MAX = 500


def do_post_announcement(*, user: User, club: Club, text: str) -> Announcement:
    check_organizer(club, user)
    text = text.strip()
    if not text or len(text) > ANNOUNCEMENT_MAX:
        raise ValidationError(f"an announcement has 1 to {ANNOUNCEMENT_MAX} characters")
    with writing(), transaction.atomic():
        lock_club(club.pk)
        note = Announcement.objects.create(club=club, text=text, author=user)
        record_action(club=club, actor=user, verb="announcement.post", id=note.pk, text=text)
    return note


def do_remove_announcement(*, user: User, club: Club, announcement_id: int) -> Announcement:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)
        note = Announcement.objects.filter(
            club=club, pk=announcement_id, removed_at__isnull=True
        ).first()
        if note is None:
            raise NotFound(f"no announcement {announcement_id} in this club")
        note.removed_at = timezone.now()
        note.save(update_fields=["removed_at"])
        record_action(club=club, actor=user, verb="announcement.remove", id=note.pk, text=note.text)
    return note


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
        lock_club(season.club_id)  # one registration at a time: a player in one pair
        taken = {
            controller_of(p)
            for pair in Pair.objects.filter(season=season).select_related("player_1", "player_2")
            for p in (pair.player_1, pair.player_2)
        }
        if {controller_of(first), controller_of(second)} & taken:
            raise AlreadyInPair()
        pair = Pair.objects.create(
            season=season,
            name=name or f"{first.username} & {second.username}",
            player_1=first,
            player_2=second,
        )
        record_action(
            club=season.club,
            actor=user,
            verb="pair.register",
            season=season.pk,
            pair=pair.pk,
            name=pair.name,
            players=[first.username, second.username],
        )
        return pair


# -- rounds --------------------------------------------------------------------------------
def do_create_round(*, user: User, season: Season) -> Round:
    check_organizer(season.club, user)
    check_season_open(season)
    with writing(), transaction.atomic():
        lock_club(season.club_id)  # rounds opened at once are numbered in turn
        number = (
            season.rounds.order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        if number > settings.DEKABES_MAX_ROUNDS:
            raise TooManyRounds(limit=settings.DEKABES_MAX_ROUNDS)
        round_ = Round.objects.create(season=season, number=number)
        record_action(
            club=season.club, actor=user, verb="round.open", season=season.pk, round=number
        )
        return round_


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
    check_season_open(season)
    check_round_open(round_)
    present: dict[str, list] = {}
    if season.format == "individual":
        if pairs:
            raise WrongFormat("an individual season checks in players")
        people = _members(season.club, list(dict.fromkeys(players or [])))
        controllers = [controller_of(p) for p in people]
        if len(set(controllers)) != len(controllers):
            raise OneSeatPerPlayer("a member and their own bot cannot both play a round")
        rows = [CheckIn(round=round_, player=p) for p in people]
        present["players"] = [p.username for p in people]
    else:
        if players:
            raise WrongFormat("a pairs season checks in pairs")
        ids = list(dict.fromkeys(pairs or []))
        found = {p.pk: p for p in Pair.objects.filter(season=season, pk__in=ids)}
        missing = [str(i) for i in ids if i not in found]
        if missing:
            raise NotFound(f"no pairs {', '.join(missing)} in this season")
        rows = [CheckIn(round=round_, pair=found[i]) for i in ids]
        present["pairs"] = ids
    with writing(), transaction.atomic():
        # The club row, then the round row, as the round's start takes them: a check-in
        # is either before the start (and drawn) or refused (round_started).
        lock_club(season.club_id)
        check_round_open(Round.objects.select_for_update().get(pk=round_.pk))
        CheckIn.objects.filter(round=round_).delete()
        checked_in = CheckIn.objects.bulk_create(rows)
        record_action(
            club=season.club,
            actor=user,
            verb="round.checkin",
            season=season.pk,
            round=round_.number,
            **present,
        )
        return checked_in


def check_may_start(round_: Round) -> None:
    check_season_open(round_.season)
    check_round_open(round_)
    earlier = Round.objects.filter(season=round_.season, number__lt=round_.number)
    if earlier.exclude(status="finished").exists():
        raise RoundInProgress()


def do_start_round(*, user: User, round_: Round) -> list[LeagueMatch]:
    """Draw the round and create its rated tables, every seat assigned."""
    season = round_.season
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        lock_club(season.club_id)  # the club row, then the round row (as do_check_in)
        round_ = Round.objects.select_for_update().get(pk=round_.pk)
        check_may_start(round_)
        if season.format == "individual":
            seatings, byes = _draw_individual(round_)
        else:
            seatings, byes = _draw_pairs(round_)
        if not seatings:
            raise NotEnoughPlayers()
        # Duplicate rounds: one deal seed for every table of the round (docs/league.md).
        deal_seed = secrets.token_hex(32) if season.duplicate else ""
        matches = [
            _open_match(user, round_, number, seats, pairs, fillers, deal_seed)
            for number, (seats, pairs, fillers) in enumerate(seatings, start=1)
        ]
        if season.format == "individual":
            CheckIn.objects.filter(round=round_, player_id__in=byes).update(bye=True)
        else:
            CheckIn.objects.filter(round=round_, pair_id__in=byes).update(bye=True)
        round_.status, round_.started_at = "started", timezone.now()
        round_.save(update_fields=["status", "started_at"])
        projections.rebuild_standings(season)
        record_action(
            club=season.club,
            actor=user,
            verb="round.start",
            season=season.pk,
            round=round_.number,
            tables=[m.table.code for m in matches],
            byes=_bye_names(season, byes),
        )
        seated = [s.player_id for m in matches for s in m.seats.all()]
        transaction.on_commit(lambda: _tell_players(seated, season.club_id))
    return matches


def _bye_names(season: Season, byes: list[int]) -> list[str]:
    """Who sits out, by name: usernames (individual) or pair names (pairs)."""
    if season.format == "individual":
        return list(User.objects.filter(pk__in=byes).values_list("username", flat=True))
    return list(Pair.objects.filter(pk__in=byes).values_list("name", flat=True))


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
    user: User,
    round_: Round,
    number: int,
    seats: dict[int, User],
    pairs,
    fillers: set[int],
    deal_seed: str = "",
) -> LeagueMatch:
    table = table_services.do_create_seated_table(
        owner=user, players=seats, rated=True, deal_seed=deal_seed
    )
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


def _tell_players(user_ids: list[int], club_id: int | None = None) -> None:
    league_tables_changed(user_ids)
    if club_id is not None:  # the club's live pages (docs/web.md)
        club_changed(club_id)


# -- annul -----------------------------------------------------------------------------------
def do_annul(*, user: User, match: LeagueMatch, reason: str) -> LeagueMatch:
    """An organizer stops a stuck match: an ``annul`` event in the table's log."""
    if match.club is None:
        raise NotALeagueMatch()
    check_organizer(match.club, user)
    if not reason.strip():
        raise ValidationError("say why the match is annulled (reason)")
    with writing(), transaction.atomic():  # the table's annul and its log entry: one commit
        table_services.do_annul(actor=user, table=match.table, reason=reason.strip())
        record_action(
            club=match.club,
            actor=user,
            verb="match.annul",
            match=match.pk,
            table=match.table.code,
            season=match.season_id,
            round=match.round.number if match.round is not None else None,
            table_number=match.table_number,
            reason=reason.strip(),
        )
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
    round_over = match.round_id is not None and _finish_round_if_done(match.round_id)
    duplicate = match.season is not None and match.season.duplicate
    if match.season is not None:
        if duplicate:
            # A duplicate round's results count once the whole round is over (docs/league.md).
            if not annulled or round_over:
                projections.rebuild_standings(match.season)
        elif not annulled:
            projections.update_standings(match)
    if duplicate and round_over and match.round_id is not None:
        for finished in projections.round_rated_in_order(match.round_id):
            projections.rate(finished)
    elif (
        match.club_id is not None
        and match.rated
        and not annulled
        and not duplicate
        and match.forfeited_by is None
    ):
        projections.rate(match)
    seated = list(match.seats.values_list("player_id", flat=True))
    transaction.on_commit(lambda: _tell_players(seated, match.club_id))


def _finish_round_if_done(round_id: int) -> bool:
    """Mark the round finished once no match of it is played; whether it just ended."""
    if not LeagueMatch.objects.filter(round_id=round_id, status="playing").exists():
        return (
            Round.objects.filter(pk=round_id).exclude(status="finished").update(status="finished")
            > 0
        )
    return False
