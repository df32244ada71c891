"""Members' mail: what each member wants to receive, and the outbox.

An ``OutboxMail`` row is written in the transaction of the event that causes it (a
round's draw, a substitution, an announcement: ``server.mail.receivers``), so a refused
action queues nothing; the queue (``server.mail.queue``, run by ``server.run`` and by
``manage.py send_mail_queue``) sends it after the commit, never inside a request. A row
names the member, not their address: the address is read when the mail is sent (a
member who changed or erased it meanwhile is mailed at the new one, or not at all). Only
an invite, sent to someone who is not a member yet, carries its address.
"""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

USER = settings.AUTH_USER_MODEL


class MailPreference(models.Model):
    """One member's choices. No row: every kind on, the site's default language."""

    user = models.OneToOneField(USER, on_delete=models.CASCADE, related_name="mail_preference")
    language = models.CharField(
        max_length=8, blank=True, default="", help_text="the site language they last chose"
    )
    table_ready = models.BooleanField(default=True)
    deadline = models.BooleanField(default=True)
    seat_changes = models.BooleanField(default=True)
    announcement = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"mail preferences of {self.user_id}"

    def wants(self, kind: str) -> bool:
        return bool(getattr(self, kind, False))


class InviteOptOut(models.Model):
    """An address that asked for no more invites (the unsubscribe link of an invite),
    stored as a SHA-256 of the address in lower case, never the address itself."""

    address_hash = models.CharField(max_length=64, unique=True)
    at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"invite opt-out {self.pk}"


class OutboxMail(models.Model):
    STATUSES = (
        ("pending", "pending"),  # to send (again, from next_attempt_at)
        ("sent", "sent"),
        ("failed", "failed"),  # given up after MAX_ATTEMPTS or a permanent refusal
        ("dropped", "dropped"),  # not sent: no address any more, or unsubscribed meanwhile
    )

    kind = models.CharField(max_length=16)
    user = models.ForeignKey(
        USER, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    address = models.EmailField(blank=True, default="", help_text="an invite's only")
    data = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    dedupe_key = models.CharField(  # noqa: DJ001 -- NULL: no key (invites), never unique-checked
        max_length=120, null=True, blank=True, unique=True, help_text="one mail per event"
    )
    status = models.CharField(max_length=8, choices=STATUSES, default="pending")
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        # The queue reads the pending rows due now, oldest first.
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="mail_due")]

    def __str__(self) -> str:
        return f"mail {self.pk} ({self.kind}, {self.status})"
