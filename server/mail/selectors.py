"""What the mail pages and the queue read."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from server.accounts.models import User
from server.league.models import Club
from server.mail.kinds import MEMBER_KINDS
from server.mail.models import InviteOptOut, MailPreference, OutboxMail
from server.mail.tokens import address_hash

LANGUAGE_CODES = tuple(code for code, _name in settings.LANGUAGES)


def preference_of(user: User) -> MailPreference:
    """The member's choices; an unsaved row with every kind on when they never chose."""
    found = MailPreference.objects.filter(user=user).first()
    return found if found is not None else MailPreference(user=user)


def language_of(user: User) -> str:
    language = MailPreference.objects.filter(user=user).values_list("language", flat=True)
    chosen = language.first()
    return chosen if chosen in LANGUAGE_CODES else settings.LANGUAGE_CODE


@dataclass(frozen=True)
class MailChoices:
    email: str
    language: str
    table_ready: bool
    deadline: bool
    seat_changes: bool
    announcement: bool


def mail_choices(user: User) -> MailChoices:
    """The member's address, the language of their mail and the kinds they get."""
    return MailChoices(email=user.email, language=language_of(user), **wanted_kinds(user))


def wanted_kinds(user: User) -> dict[str, bool]:
    preference = preference_of(user)
    return {kind: preference.wants(kind) for kind in MEMBER_KINDS}


def members_without_address(club: Club) -> list[str]:
    """The usernames of the club's active people with no email address: they get no
    mail (the members page lists them for the organizers). Bots never get mail."""
    return list(
        User.objects.filter(
            memberships__club=club, memberships__active=True, is_bot=False, email=""
        )
        .order_by("username")
        .values_list("username", flat=True)
    )


def invite_refused(address: str) -> bool:
    """The address asked for no more invites (an invite's unsubscribe link)."""
    return InviteOptOut.objects.filter(address_hash=address_hash(address)).exists()


def queue_figures() -> dict[str, int]:
    """What /healthz says of the outbox: mails waiting, the oldest one's wait in
    minutes, and the mails given up in the last day."""
    now = timezone.now()
    waiting = OutboxMail.objects.filter(status="pending")
    oldest = waiting.order_by("created_at").values_list("created_at", flat=True).first()
    return {
        "waiting": waiting.count(),
        "oldest_waiting_minutes": int((now - oldest).total_seconds() // 60) if oldest else 0,
        "failed_last_day": OutboxMail.objects.filter(
            status="failed", created_at__gte=now - dt.timedelta(days=1)
        ).count(),
    }
