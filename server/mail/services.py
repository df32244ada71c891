"""Writes of the mail app: queueing mail in the transaction of its event, a member's
choices, the unsubscribe links, and an organizer's invite sent to an address.

``queue_for_members`` is the one way mail for members is queued: it leaves out bots,
members without an address and members who turned the kind off (nothing is queued for
them, so nothing is sent), and one ``dedupe_key`` per event and member means an event
seen twice (a retried tick) queues one mail.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import ValidationError
from server.league.actions import members as league_members
from server.league.models import Club, Invite
from server.mail import selectors
from server.mail.kinds import INVITE, MEMBER_KINDS
from server.mail.models import InviteOptOut, MailPreference, OutboxMail
from server.mail.tokens import read_token
from server.tables.locking import writing

INVITE_VALID_DAYS = 14  # an invite sent by mail: a single-use code, valid this long


# -- queueing ---------------------------------------------------------------------------------
def queue_for_members(
    *, kind: str, users: Iterable[User], data: dict, key: str | None = None
) -> int:
    """Queue one ``kind`` mail with ``data`` for each of ``users`` who wants it. Called
    inside the transaction of the event; ``key`` (the event's identity) makes each
    member's row unique. Returns how many rows were queued."""
    return queue_each(kind=kind, mails=[(user, data, key) for user in users])


def queue_each(*, kind: str, mails: Sequence[tuple[User, dict, str | None]]) -> int:
    """``queue_for_members`` for mails that differ by member (their own table, seat):
    ``(member, data, key)`` each, read and written in one query each."""
    wanted = _wanted(kind, [user for user, _data, _key in mails])
    rows = [
        OutboxMail(
            kind=kind,
            user=user,
            data=data,
            dedupe_key=f"{kind}:{key}:{user.pk}"[:120] if key is not None else None,
        )
        for user, data, key in mails
        if user is not None and user.pk in wanted
    ]
    if not rows:
        return 0
    return len(OutboxMail.objects.bulk_create(rows, ignore_conflicts=True))


def _wanted(kind: str, users: Iterable[User]) -> set[int]:
    """The ids of ``users`` who get ``kind``: people (not bots) with an address who did not
    turn it off."""
    people = {u.pk for u in users if u is not None and not u.is_bot and u.email}
    if not people:
        return set()
    refused = set(
        MailPreference.objects.filter(user_id__in=people, **{kind: False}).values_list(
            "user_id", flat=True
        )
    )
    return people - refused


# -- a member's choices -----------------------------------------------------------------------
def check_language(language: str) -> None:
    if language not in selectors.LANGUAGE_CODES:
        raise ValidationError(f"language is one of {', '.join(selectors.LANGUAGE_CODES)}")


def check_address(address: str) -> str:
    address = address.strip()
    if address:
        try:
            validate_email(address)
        except DjangoValidationError:
            raise ValidationError("not an email address") from None
    return address


def do_set_preferences(
    *, user: User, email: str, language: str, kinds: dict[str, bool]
) -> MailPreference:
    """The member's address (empty: no mail at all), the language of their mail and the
    kinds they want (a kind not named keeps its value)."""
    check_language(language)
    email = check_address(email)
    unknown = set(kinds) - set(MEMBER_KINDS)
    if unknown:
        raise ValidationError(f"no mail kind {', '.join(sorted(unknown))}")
    with writing(), transaction.atomic():
        if user.email != email:
            user.email = email
            user.save(update_fields=["email"])
        preference, _ = MailPreference.objects.get_or_create(user=user)
        preference.language = language
        for kind, wanted in kinds.items():
            setattr(preference, kind, bool(wanted))
        preference.save()
        return preference


def do_remember_language(*, user: User, language: str) -> None:
    """The site language the member chose (signing in, the language switcher): their
    mail comes in it. An unknown code changes nothing."""
    if user.is_bot or language not in selectors.LANGUAGE_CODES:
        return
    with writing(), transaction.atomic():
        updated = MailPreference.objects.filter(user=user).exclude(language=language)
        if updated.update(language=language) == 0:
            MailPreference.objects.get_or_create(user=user, defaults={"language": language})


# -- unsubscribe links ------------------------------------------------------------------------
@dataclass(frozen=True)
class Unsubscribed:
    kind: str
    user: User | None  # None: an invited address


def check_token(token: str) -> Unsubscribed:
    found = read_token(token)
    if found is None:
        raise ValidationError("not an unsubscribe link of this server")
    if found.user_id is None:
        return Unsubscribed(kind=found.kind, user=None)
    user = User.objects.filter(pk=found.user_id).first()
    if user is None or found.kind not in MEMBER_KINDS:
        raise ValidationError("not an unsubscribe link of this server")
    return Unsubscribed(kind=found.kind, user=user)


def do_unsubscribe(*, token: str, subscribe: bool = False) -> Unsubscribed:
    """The link's kind is turned off for its member (or its invited address gets no more
    invites); ``subscribe`` turns it back on (the page's undo)."""
    found = check_token(token)
    read = read_token(token)
    assert read is not None
    with writing(), transaction.atomic():
        if found.user is not None:
            preference, _ = MailPreference.objects.get_or_create(user=found.user)
            setattr(preference, found.kind, subscribe)
            preference.save()
        elif subscribe:
            InviteOptOut.objects.filter(address_hash=read.address_hash).delete()
        else:
            InviteOptOut.objects.get_or_create(address_hash=read.address_hash)
    return found


# -- an invite sent to an address -------------------------------------------------------------
def check_invite_address(address: str) -> str:
    address = check_address(address)
    if not address:
        raise ValidationError("an invite is sent to an email address")
    if selectors.invite_refused(address):
        raise ValidationError("this address asked to receive no invites")
    return address


def do_send_invite(*, user: User, club: Club, address: str, language: str) -> Invite:
    """A single-use invite code of ``club`` (valid ``INVITE_VALID_DAYS``), mailed to
    ``address`` in ``language`` (the organizer's). The code is the league's (its checks:
    an organizer, the open-invite quota); the mail goes out after the commit."""
    address = check_invite_address(address)
    check_language(language)
    expires_at = timezone.now() + dt.timedelta(days=INVITE_VALID_DAYS)
    with writing(), transaction.atomic():
        invite = league_members.do_create_invite(
            user=user, club=club, single_use=True, expires_at=expires_at
        )
        OutboxMail.objects.create(
            kind=INVITE,
            address=address,
            data={
                "club_name": club.name,
                "club_slug": club.slug,
                "code": invite.code,
                "inviter": user.username,
                "expires_at": expires_at,
                "language": language,
            },
        )
        return invite
