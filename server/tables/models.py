"""A table, its four seats, and its append-only event log (the source of truth).

The table's state is never stored: it is the fold over ``Event`` rows
(``server.tables.table_state``, cached by ``projection``). Events are never updated or
deleted; the hand-written statements that read and append them are ``store``'s.
"""

from __future__ import annotations

from typing import NamedTuple

from django.conf import settings
from django.db import models


class Table(models.Model):
    code = models.CharField(max_length=12, unique=True, help_text="invite code")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="owned_tables"
    )
    rated = models.BooleanField(default=False)
    # Drives the server's shuffles; never leaves the server (not in any response or log).
    secret_seed = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Duplicate rounds (docs/league.md): every table of the round has the same deal seed,
    # and its deals are shuffled from it by hand number and redeal, not by log position.
    # Never leaves the server either. Empty: an ordinary table.
    deal_seed = models.CharField(max_length=64, blank=True, default="", editable=False)

    def __str__(self) -> str:
        return self.code


class Seat(models.Model):
    KINDS = (("human", "human"), ("bot", "bot"))

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=5, choices=KINDS)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="one_seat_per_number")
        ]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"table {self.table_id} seat {self.number} ({self.kind})"


class NewEvent(NamedTuple):
    """A log row to append (``store.append_events``): the columns of an ``Event`` without
    building a model instance (~15 µs each, and an action writes one to three)."""

    table_id: int
    seq: int
    type: str
    payload: dict
    actor_id: int | None
    seat: int | None
    actor_kind: str
    command_id: str | None = None
    request_hash: str | None = None  # with command_id: the receipt (``Event.receipt``)
    receipt: str | None = None


class EventManager(models.Manager):
    def get_queryset(self):
        # The receipt (an answer of ~6 KB) is read only to answer a retry, by its own
        # statement (``store.receipt_on_event``): rows loaded as models leave it out.
        return super().get_queryset().defer("request_hash", "receipt")


class Event(models.Model):
    """One entry of a table's log: an engine record event, or a server one (pause/resume)."""

    ACTOR_KINDS = (("human", "human"), ("bot", "bot"), ("server", "server"))

    # No index of its own: ``gap_free_seq`` (table, seq) serves every lookup by table,
    # and one index less is one page less to write per commit (migration 0005).
    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="events", db_index=False
    )
    seq = models.PositiveIntegerField(help_text="1, 2, 3... per table, no gaps")
    type = models.CharField(max_length=20)
    payload = models.JSONField(help_text="the event in the engine's record format")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    actor_kind = models.CharField(max_length=6, choices=ACTOR_KINDS)
    # NULL (server events) never collides in the unique constraint below; "" would.
    command_id = models.CharField(max_length=80, null=True, blank=True)  # noqa: DJ001
    # The receipt of the action whose Idempotency-Key is ``command_id``, on the event it
    # wrote (one row less per action than a receipt of its own, ``ActionReceipt``): the
    # request's hash (a retry with another body is refused) and the answer as sent.
    request_hash = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    receipt = models.TextField(null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EventManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="gap_free_seq"),
            models.UniqueConstraint(fields=["table", "command_id"], name="one_event_per_command"),
        ]
        ordering = ["table", "seq"]

    def __str__(self) -> str:
        return f"table {self.table_id} #{self.seq} {self.type}"  # never the payload (hidden hands)


class ActionReceipt(models.Model):
    """The first answer to an idempotent action, returned again on a retry: as written
    before the receipt moved onto the action's event (``Event.receipt``). Still read
    for the keys of those actions; no longer written."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="receipts")
    key = models.CharField(max_length=80)
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    seat = models.PositiveSmallIntegerField()
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "key"], name="one_receipt_per_key")]

    def __str__(self) -> str:
        return f"table {self.table_id} seat {self.seat} key {self.key}"


class TableSnapshot(models.Model):
    """A table's folded state at one seq, so a cold table folds only the events after it.

    Disposable (``server.tables.projection``): deleting any or all rows changes nothing but
    the time the next cold read takes. ``format`` names the code that wrote it (a hash of
    the engine and the projection); a row of another format is never read.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField(help_text="the newest event folded into the state")
    format = models.CharField(max_length=64)
    state = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "format", "seq"], name="one_snapshot_per_seq")
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} at {self.seq}"
