"""Server-hosted computer players: a club's house bots that the server's host process
plays (``clients/bots/host``), added by an organizer or as a substitute, and the token
the host plays each of them with."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from engine.bots import LEVELS
from server.accounts import services as account_services
from server.accounts.models import User
from server.errors import (
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    TooManyHostedPlayers,
    ValidationError,
)
from server.league import selectors
from server.league.action_log import record_action
from server.league.actions.roles import check_organizer, lock_club
from server.league.models import Club, LeagueMatchSeat, Membership
from server.tables import quota
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Table


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


# -- the casual tables' computer players ---------------------------------------------------------
CASUAL_COMPUTER_NAME = "computer-{level}"


def casual_computer(*, level: str) -> User:
    """The server's computer player at ``level`` for casual tables: a hosted player that
    is no club's member (``selectors.casual_computers``), made on first use and always in
    the host's service. One account holds every computer seat of every casual table at
    that level (the host's runner plays each table it sits at)."""
    check_level(level)
    found = selectors.casual_computers().filter(hosted_level=level).first()
    if found is not None:
        return found
    with writing(), transaction.atomic():
        found = selectors.casual_computers().filter(hosted_level=level).first()
        if found is not None:  # made meanwhile (the writer lock orders the two)
            return found
        return account_services.do_create_hosted_bot(name=_free_computer_name(level), level=level)


def _free_computer_name(level: str) -> str:
    base = CASUAL_COMPUTER_NAME.format(level=level)
    for name in itertools.chain([base], (f"{base}-{n}" for n in itertools.count(2))):
        if not User.objects.filter(username__iexact=name).exists():
            return name
    raise AssertionError("unreachable")  # itertools.count never ends


def do_create_table_with_computers(*, owner: User, level: str, open_seats: Iterable[int]) -> Table:
    """A casual table for ``owner`` at seat 1: the seats in ``open_seats`` (of 2-4) are
    human seats left free for whoever the owner gives the link or the code to, the others
    the computer player of ``level``. The match starts at once (``do_create_table``); the
    owner's quota of tables in play holds."""
    if owner.is_bot:
        raise PermissionDenied("bot accounts do not create tables")
    free = sorted(set(open_seats))
    if any(n not in (2, 3, 4) for n in free):
        raise ValidationError("the open seats are among seats 2-4")
    check_level(level)
    quota.check_table_quota(owner)
    computer = casual_computer(level=level)
    kinds = {n: "human" if n == 1 or n in free else "bot" for n in (1, 2, 3, 4)}
    bots = {n: computer.username for n, kind in kinds.items() if kind == "bot"}
    return table_services.do_create_table(owner=owner, seats=kinds, join=[1], bots=bots)
