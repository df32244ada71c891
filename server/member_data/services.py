"""Closing an account (``POST /api/me/close``, the "Your data" page).

The member's name is replaced by a pseudonym (``ghost-`` and 8 hex digits, as heltour
does) wherever the server shows it: the account row itself, so every page, answer and
record reading it shows the pseudonym; and the places that keep a name as text — the
clubs' action-log entries and the tables' ``seat_handover`` events (who took a seat from
whom) and the answers the oldest receipts of idempotent actions stored whole
(``ActionReceipt``) — are rewritten the same way. Their tokens, web sessions, password and email address are gone; their bots are
closed with them. What stays, and why (docs/server.md, "Members' data"): the
account row under its pseudonym with its matches, seats, results, standings and
ratings — the league's record, which the other players' results depend on (a match
has four players) — and the clubs' logs of what organizers did.

No game state changes: ``rebuild_league`` gives the same rows before and after.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from server.accounts.models import AccessToken, User
from server.errors import (
    AccountInPlay,
    ConfirmationRequired,
    LastOrganizer,
    PermissionDenied,
    WrongPassword,
)
from server.ladder import entries
from server.league.action_log import record_action
from server.league.models import ClubAction, Membership
from server.matchmaking import challenges, seeks
from server.member_data.selectors import names, tables_in_play
from server.tables import projection
from server.tables import selectors as table_selectors
from server.tables.locking import writing
from server.tables.models import ActionReceipt, Event, Table

CONFIRMATION = "close my account"
PSEUDONYM_PREFIX = "ghost-"


@dataclass(frozen=True)
class ClosedAccount:
    pseudonym: str
    bots: int  # bots closed with the account
    tokens: int  # tokens revoked (the account's and its bots')
    sessions: int  # web sessions ended


def check_may_close(*, user: User, password: str, confirmation: str) -> list[User]:
    """The accounts to close (the member and their bots), or the refusal."""
    if user.is_bot:
        raise PermissionDenied("a bot account is closed by its owner, with theirs")
    if confirmation.strip().lower() != CONFIRMATION:
        raise ConfirmationRequired(phrase=CONFIRMATION)
    if not user.has_usable_password() or not user.check_password(password):
        raise WrongPassword("the password is wrong")
    accounts = [user, *User.objects.filter(bot_owner=user)]
    playing = tables_in_play(accounts)
    if playing:
        raise AccountInPlay(tables=playing)
    for membership in Membership.objects.filter(user=user, role="organizer", active=True):
        others = Membership.objects.filter(club=membership.club, active=True).exclude(user=user)
        if others.exists() and not others.filter(role="organizer").exists():
            raise LastOrganizer(
                f"you are the last organizer of {membership.club.slug}: make another member "
                "an organizer first"
            )
    return accounts


def do_close_account(*, user: User, password: str, confirmation: str) -> ClosedAccount:
    accounts = check_may_close(user=user, password=password, confirmation=confirmation)
    renamed: dict[str, str] = {}
    with writing(), transaction.atomic():
        for account in accounts:
            old = account.username  # read first: the assignment below renames it
            renamed[old] = _pseudonymise(account)
        tokens, _ = AccessToken.objects.filter(user__in=accounts).delete()
        sessions = _end_sessions({a.pk for a in accounts})
        now = timezone.now()
        for membership in Membership.objects.filter(user__in=accounts, active=True).select_related(
            "club", "user"
        ):
            membership.active, membership.removed_at = False, now
            membership.save(update_fields=["active", "removed_at"])
            record_action(
                club=membership.club,
                actor=None,
                verb="member.close",
                username=membership.user.username,
            )
        _rename_in_logs(accounts, renamed)
        # What it offered others: nobody may take its seek's seat or wait on its answer.
        seeks.cancel_seeks_of(accounts)
        challenges.cancel_challenges_of(accounts)
        entries.leave_with_account([a for a in accounts if a.is_bot])
    # This process's kept tables and folds held the old names (other processes: see
    # docs/server.md, "Members' data").
    table_selectors.forget_full_tables()
    projection.forget()
    return ClosedAccount(user.username, len(accounts) - 1, tokens, sessions)


def _pseudonymise(account: User) -> str:
    for _ in range(10):
        pseudonym = PSEUDONYM_PREFIX + secrets.token_hex(4)
        if User.objects.filter(username__iexact=pseudonym).exists():
            continue
        account.username = pseudonym
        account.email = account.first_name = account.last_name = account.display_name = ""
        account.is_active = account.is_staff = account.is_superuser = False
        account.set_unusable_password()
        try:
            with transaction.atomic():
                account.save()
        except IntegrityError:
            continue
        return pseudonym
    raise RuntimeError("no free pseudonym in ten draws")


def _end_sessions(account_ids: set[int]) -> int:
    """Delete the web sessions signed in as one of the accounts (each decoded: Django
    stores the account inside the session's data)."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        data = session.get_decoded()
        if str(data.get("_auth_user_id")) in {str(i) for i in account_ids}:
            session.delete()
            ended += 1
    return ended


def _rename_in_logs(accounts: list[User], renamed: dict[str, str]) -> None:
    """The names kept as text: the clubs' action logs, the seat handovers, the answers
    kept by the oldest receipts (``ActionReceipt``)."""
    ids = [a.pk for a in accounts]
    clubs = Membership.objects.filter(user__in=accounts).values("club")
    for entry in ClubAction.objects.filter(Q(club__in=clubs) | Q(actor__in=accounts)):
        details = _renamed(entry.details, renamed)
        if details != entry.details:
            entry.details = details
            entry.save(update_fields=["details"])
    tables = set(
        Table.objects.filter(
            Q(owner__in=ids) | Q(seats__player__in=ids) | Q(league_match__seats__player__in=ids)
        ).values_list("pk", flat=True)
    )
    tables |= set(Event.objects.filter(actor__in=ids).values_list("table_id", flat=True))
    for handover in Event.objects.filter(type="seat_handover"):
        if any(names(handover.payload, old) for old in renamed):
            # Not the game: who held the seat, which the engine never reads (the one kind
            # of row rewritten in the append-only log; docs/server.md, "Members' data").
            Event.objects.filter(pk=handover.pk).update(payload=_renamed(handover.payload, renamed))
            tables.add(handover.table_id)
            projection.forget(Table(pk=handover.table_id), snapshots=True)
    # A receipt on an event is a version, no name (a retry's answer is built from the
    # log and the accounts as they are now); only the oldest kind stored whole answers.
    for receipt in ActionReceipt.objects.filter(table_id__in=tables):
        response = _renamed(receipt.response, renamed)
        if response != receipt.response:
            receipt.response = response
            receipt.save(update_fields=["response"])


def _renamed(value, renamed: dict[str, str]):
    if isinstance(value, str):
        return renamed.get(value, value)
    if isinstance(value, dict):
        return {k: _renamed(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, renamed) for v in value]
    return value
