"""The kinds of mail the server sends, the one list: what a member may turn off, what
each unsubscribe link names, and the outbox rows' ``kind``."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

TABLE_READY = "table_ready"  # your table is ready (a round's draw, or seated as substitute)
DEADLINE = "deadline"  # the round's deadline is in N hours and your match is not over
SEAT_CHANGES = "seat_changes"  # you were substituted, or your match was forfeited
ANNOUNCEMENT = "announcement"  # an organizer posted an announcement in your club
INVITE = "invite"  # an organizer invited an address (not a member yet: no preferences)

# The kinds a member chooses on their preferences page, in the page's order, with the
# label the page and the unsubscribe page show.
MEMBER_KINDS: dict[str, StrOrPromise] = {
    TABLE_READY: _("Your table is ready"),
    DEADLINE: _("A round's deadline is near and your match is not over"),
    SEAT_CHANGES: _("Your seat was handed to a substitute, or your match was forfeited"),
    ANNOUNCEMENT: _("New announcements of your clubs"),
}

ALL_KINDS = (*MEMBER_KINDS, INVITE)
