"""A club's members: invite codes, joining, roles, removal, and the bots members enter."""

from __future__ import annotations

import datetime as dt
import secrets

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from server.accounts.models import User
from server.errors import (
    AlreadyMember,
    InviteExpired,
    InviteInvalid,
    InviteUsed,
    LastOrganizer,
    NotAMember,
    NotFound,
    NotRemoved,
    NotYourBot,
    OrganizerOnly,
    PermissionDenied,
    RemovedFromClub,
    TooManyInvites,
    ValidationError,
)
from server.league import selectors
from server.league.action_log import record_action
from server.league.actions.roles import (
    check_member,
    check_organizer,
    check_person,
    check_still_organizer,
    lock_club,
)
from server.league.models import Club, Invite, Membership
from server.tables import services as table_services
from server.tables.locking import writing

INVITE_ALPHABET = table_services.CODE_ALPHABET


# -- invites ---------------------------------------------------------------------------------
def check_invite_quota(club: Club) -> None:
    limit = settings.DEKABES_MAX_INVITES
    if selectors.open_invites(club).count() >= limit:
        raise TooManyInvites(limit=limit)


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


# -- joining ---------------------------------------------------------------------------------
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
        if membership is not None and membership.barred:
            raise RemovedFromClub()  # no code lets them back: an organizer does
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


# -- roles and removal ------------------------------------------------------------------------
def active_member(club: Club, username: str) -> Membership:
    membership = (
        Membership.objects.filter(club=club, user__username=username, active=True)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise NotFound(f"{username!r} is not a member of this club")
    return membership


def _check_keeps_an_organizer(club: Club, leaving: Membership) -> None:
    if leaving.role == "organizer" and selectors.sole_organizer(club) == leaving.user.username:
        raise LastOrganizer()


def do_remove_member(*, user: User, club: Club, username: str) -> Membership:
    """The member leaves the club's lists; their matches and ratings stay. A person
    removed goes on the club's removed list: no invite code lets them back until an
    organizer allows it (``do_allow_back``); the codes others use stay valid."""
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)  # two organizers removing each other: the second keeps the club
        membership = active_member(club, username)
        _check_keeps_an_organizer(club, membership)
        check_still_organizer(club, user)
        removed = membership.user
        membership.active, membership.removed_at = False, timezone.now()
        membership.barred = not removed.is_bot  # a bot never joins by code
        membership.save(update_fields=["active", "removed_at", "barred"])
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


def do_allow_back(*, user: User, club: Club, username: str) -> Membership:
    """Take a removed member off the removed list: they may join again with a code (they
    are not a member again until they do)."""
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)
        membership = (
            Membership.objects.select_for_update()
            .filter(club=club, user__username=username, active=False, barred=True)
            .select_related("user")
            .first()
        )
        if membership is None:
            raise NotRemoved(username=username)
        membership.barred = False
        membership.save(update_fields=["barred"])
        record_action(club=club, actor=user, verb="member.readmit", username=username)
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


def check_may_set_role(club: Club, username: str, role: str) -> Membership:
    """Refused (the action's own refusal) unless ``username``'s role may become ``role``:
    a bot never organizes, and the club keeps an organizer. Asked before a question."""
    membership = active_member(club, username)
    if membership.user.is_bot and role == "organizer":
        raise PermissionDenied("a bot cannot organize a club")
    if role == "member":
        _check_keeps_an_organizer(club, membership)
    return membership


def do_set_role(*, user: User, club: Club, username: str, role: str) -> Membership:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)  # two organizers demoting each other: the second is refused
        membership = check_may_set_role(club, username, role)
        check_still_organizer(club, user)
        membership.role = role
        membership.save(update_fields=["role"])
        verb = "member.promote" if role == "organizer" else "member.demote"
        record_action(club=club, actor=user, verb=verb, username=membership.user.username)
        return membership


def check_members(club: Club, usernames: list[str]) -> list[User]:
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


# -- bots ------------------------------------------------------------------------------------
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
