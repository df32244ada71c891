"""One outbox row as the mail a person reads: in their language (the member's chosen
site language; an invite in its organizer's), plain text, with absolute links, an
unsubscribe link in the text and the RFC 8058 one-click headers
(``List-Unsubscribe`` + ``List-Unsubscribe-Post``) a mail program shows as a button.

What a mail says is what its reader may already see: their own table, seat, partner
and opponents, the round's deadline, the announcement's text; never a tile, a hand or a
score of another table. A substitution or a forfeit names the round and table number
only (no link to a table the reader no longer holds, which a duplicate round hides).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import formats, translation
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from server.accounts.models import User
from server.mail import links
from server.mail.kinds import (
    ANNOUNCEMENT,
    DEADLINE,
    INVITE,
    MEMBER_KINDS,
    SEAT_CHANGES,
    TABLE_READY,
)
from server.mail.models import OutboxMail
from server.mail.selectors import LANGUAGE_CODES, language_of
from server.mail.tokens import make_token


def recipient_of(row: OutboxMail) -> str:
    """The address the row goes to now ('' when there is none)."""
    if row.kind == INVITE:
        return row.address
    user: User | None = row.user
    if user is None or user.is_bot or not user.is_active:
        return ""
    return user.email


def language_for(row: OutboxMail) -> str:
    if row.kind == INVITE:
        chosen = row.data.get("language")
        return chosen if chosen in LANGUAGE_CODES else settings.LANGUAGE_CODE
    assert row.user is not None
    return language_of(row.user)


def compose(row: OutboxMail, address: str) -> EmailMessage:
    language = language_for(row)
    if row.kind == INVITE:
        token = make_token(kind=INVITE, address=address)
    else:
        token = make_token(kind=row.kind, user_id=row.user_id)
    unsubscribe_url = links.absolute(links.unsubscribe_path(token))
    with translation.override(language):
        context = _context(row, unsubscribe_url)
        template = row.data.get("what", row.kind) if row.kind == SEAT_CHANGES else row.kind
        body = render_to_string(f"mail/{template}.txt", context).strip() + "\n"
        subject = _subject(row, context)
    return EmailMessage(
        subject=subject,
        body=body,
        to=[address],
        headers={
            "List-Unsubscribe": f"<{unsubscribe_url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "Auto-Submitted": "auto-generated",
            "Content-Language": language,
        },
    )


def _when(value) -> str:
    """A moment in the reader's language, in UTC (the server's time; said so)."""
    moment = parse_datetime(value) if isinstance(value, str) else value
    if not isinstance(moment, dt.datetime):
        return ""
    moment = moment.astimezone(dt.UTC)
    return f"{formats.date_format(moment, 'DATETIME_FORMAT')} UTC"


def _context(row: OutboxMail, unsubscribe_url: str) -> dict:
    data = row.data
    context: dict = {
        "d": data,
        "name": row.user.username if row.user is not None else "",
        "unsubscribe_url": unsubscribe_url,
        "preferences_url": links.absolute(links.preferences_path()),
        "kind_label": str(MEMBER_KINDS.get(row.kind, "")),
        "deadline": _when(data.get("deadline")),
        "expires": _when(data.get("expires_at")),
    }
    if "club_slug" in data:
        context["club_url"] = links.absolute(links.club_path(data["club_slug"]))
    if "round" in data and "season" in data:
        context["round_url"] = links.absolute(links.round_path(data))
    if data.get("code") and row.kind in (TABLE_READY, DEADLINE):
        context["play_url"] = links.absolute(links.play_path(data["code"]))
    if row.kind == INVITE:
        context["join_url"] = links.absolute(links.join_path(data["club_slug"], data["code"]))
    return context


def _subject(row: OutboxMail, context: dict) -> str:
    data = row.data
    values = {
        "club": data.get("club_name", ""),
        "round": data.get("round", ""),
        "table": data.get("table_number", ""),
    }
    if row.kind == TABLE_READY:
        if data.get("substitute"):
            return (
                _("%(club)s: you are seated as a substitute (round %(round)s, table %(table)s)")
                % values
            )
        return _("%(club)s: your table is ready (round %(round)s, table %(table)s)") % values
    if row.kind == DEADLINE:
        return _("%(club)s: round %(round)s ends %(deadline)s") % {
            **values,
            "deadline": context["deadline"],
        }
    if row.kind == SEAT_CHANGES and data.get("what") == "substituted":
        return (
            _("%(club)s: your seat at table %(table)s of round %(round)s was handed over") % values
        )
    if row.kind == SEAT_CHANGES:
        return (
            _("%(club)s: your match at table %(table)s of round %(round)s was forfeited") % values
        )
    if row.kind == ANNOUNCEMENT:
        return _("%(club)s: a new announcement") % values
    return _("%(inviter)s invites you to %(club)s on Dékabès") % {
        **values,
        "inviter": data.get("inviter", ""),
    }
