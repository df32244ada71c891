"""A table, its four seats, and its append-only event log (the source of truth).

The table's state is never stored: it is the engine's fold over ``Event`` rows
(``server.tables.projection``). Events are never updated or deleted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, models
from django.utils import timezone


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


def database():
    """This thread's connection to the database. ``django.db.connection`` looks the
    connection up again on every attribute read (~3 µs each): the hot path's functions
    look it up once with this."""
    return connections[DEFAULT_DB_ALIAS]


# The hot path's statements (the events after a version, the append) on SQLite go to the
# driver's connection itself: Django's cursor (thread check, wrapper chain, "%s" -> "?"
# by regex) cost ~30 µs a statement there, more than SQLite's own work, and a read of a
# seat and an action run three. Same connection and transaction: ``atomic()`` and
# ``on_commit`` see no difference, and errors become Django's (IntegrityError) as through
# a cursor. PostgreSQL keeps Django's cursor, and so does a connection whose queries are
# logged (DEBUG, or a test capturing them).
_QMARK: dict[str, str] = {}


def sql_rows(sql: str, params: Sequence) -> list[tuple]:
    """The rows of one statement (``%s`` placeholders, as for a Django cursor)."""
    return _run(sql, params, fetch=True)


def sql_execute(sql: str, params: Sequence) -> None:
    """Run one statement that answers no rows (``%s`` placeholders)."""
    _run(sql, params, fetch=False)


def _run(sql: str, params: Sequence, fetch: bool) -> list[tuple]:
    db = database()
    if db.vendor != "sqlite" or db.queries_logged:
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall() if fetch else []
    db.validate_no_broken_transaction()  # as Django's cursor checks first
    with db.wrap_database_errors:
        db.ensure_connection()
        cursor = db.connection.execute(_qmark(sql), params)
        return cursor.fetchall() if fetch else []


def _qmark(sql: str) -> str:
    text = _QMARK.get(sql)
    if text is None:
        text = _QMARK[sql] = sql.replace("%s", "?")
    return text


class NewEvent(NamedTuple):
    """A log row to append: the columns of an ``Event`` without building a model
    instance (~15 µs each, and an action writes one to three)."""

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
    # Written by hand: every action appends its events, and Django's bulk_create spends
    # more time compiling the INSERT than the database spends running it.
    _COLUMNS = (
        "table_id",
        "seq",
        "type",
        "payload",
        "actor_id",
        "seat",
        "actor_kind",
        "command_id",
        "request_hash",
        "receipt",
        "created_at",
    )

    def get_queryset(self):
        # The receipt (an answer of ~6 KB) is read only to answer a retry, by its own
        # statement (``services._replayed``): rows loaded as models leave it out.
        return super().get_queryset().defer("request_hash", "receipt")

    _statements: dict[tuple[str, int], str] = {}  # (vendor, rows) -> the INSERT

    def append(self, events: Sequence[Event | NewEvent]) -> None:
        """Write new log rows in one INSERT statement (the same rows bulk_create writes)."""
        if not events:
            return
        db = database()
        sql = self._statements.get((db.vendor, len(events)))
        if sql is None:
            sql = self._statements[(db.vendor, len(events))] = self._insert(db, len(events))
        now = db.ops.adapt_datetimefield_value(timezone.now())
        params: list = []
        for e in events:
            params += [e.table_id, e.seq, e.type, json.dumps(e.payload), e.actor_id, e.seat]
            params += [e.actor_kind, e.command_id, e.request_hash, e.receipt, now]
        sql_execute(sql, params)

    def _insert(self, db, rows: int) -> str:
        quote = db.ops.quote_name
        payload = "CAST(%s AS jsonb)" if db.vendor == "postgresql" else "%s"
        row = "(" + ", ".join(payload if c == "payload" else "%s" for c in self._COLUMNS) + ")"
        return (
            f"INSERT INTO {quote(Event._meta.db_table)} "
            f"({', '.join(quote(c) for c in self._COLUMNS)}) VALUES " + ", ".join([row] * rows)
        )


class Event(models.Model):
    """One entry of a table's log: an engine record event, or a server one (pause/resume)."""

    ACTOR_KINDS = (("human", "human"), ("bot", "bot"), ("server", "server"))

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="events")
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
