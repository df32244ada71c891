"""The table's state as a projection over its event log.

``project(table)`` folds the log with the engine. A small in-process cache keeps the
last fold per table and applies only the newer events; it is disposable: ``forget()``
drops it and the next read folds the log again to the same state.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from django.db import connection

from engine import Match
from server.tables.models import Event, Table

# In the log, not in the engine record: the record of an annulled match still replays.
SERVER_EVENT_TYPES = ("pause", "resume", "annul")
# Least recently used tables leave first: a club with more active tables than this still
# hits the cache for every table in play (a miss refolds the whole log).
CACHE_SIZE = 1024


@dataclass
class TableState:
    match: Match
    version: int = 0  # seq of the newest event folded
    paused_by: set[int] = field(default_factory=set)  # seats that opened rules/log
    # seq of the latest hand end: every deal logged before it is public from then on, the
    # deal that was played and any voided before it (redealt, undone), as in the record.
    revealed_upto: int = 0
    annulled: dict | None = None  # the annul event, once an organizer annulled

    @property
    def paused(self) -> bool:
        return bool(self.paused_by)

    def copy(self) -> TableState:
        return TableState(
            self.match.copy(),
            self.version,
            set(self.paused_by),
            self.revealed_upto,
            self.annulled,
        )

    def fold(self, seq: int, payload: dict) -> None:
        """Apply one stored event (already validated when it was appended)."""
        kind = payload.get("type")
        if kind == "pause":
            self.paused_by.add(payload["seat"])
        elif kind == "resume":
            self.paused_by.discard(payload["seat"])
        elif kind == "annul":
            self.annulled = payload
        else:
            results_before = len(self.match.results)
            self.match.apply(payload)
            if ended_a_hand(self.match, results_before):
                self.revealed_upto = seq
        self.version = seq


def ended_a_hand(match: Match, results_before: int) -> bool:
    """Whether the event just applied ended a hand (the phase is back at the deal, or the
    match is over, with one result more). The record's finished prefix uses the same test."""
    return match.phase in ("deal", "match_over") and len(match.results) > results_before


_cache: OrderedDict[int, TableState] = OrderedDict()
_lock = threading.Lock()


def project(table: Table, upto: int | None = None) -> TableState:
    """The state after the whole log (or after event ``upto``); callers get a private copy."""
    with _lock:
        cached = _cache.get(table.pk)
        if cached is not None:
            _cache.move_to_end(table.pk)
    state = cached.copy() if cached is not None else TableState(Match())
    if upto is not None:
        if upto < state.version:
            state = TableState(Match())
        newer = (
            Event.objects.filter(table=table, seq__gt=state.version, seq__lte=upto)
            .order_by("seq")
            .values_list("seq", "payload")
        )
    else:
        newer = _events_after(table.pk, state.version)
    for seq, payload in newer:
        state.fold(seq, payload)
    if upto is None:
        remember(table, state)
    return state


# Every read of a table runs this (usually answering no rows): plain SQL, not an ORM
# query compiled again on each request.
_EVENTS_AFTER = (
    f"SELECT seq, payload FROM {Event._meta.db_table} WHERE table_id = %s AND seq > %s ORDER BY seq"
)


def _events_after(table_id: int, seq: int) -> list[tuple[int, dict]]:
    with connection.cursor() as cursor:
        cursor.execute(_EVENTS_AFTER, [table_id, seq])
        rows = cursor.fetchall()
    # The JSON column comes back as text (SQLite, and PostgreSQL under Django's loaders).
    return [
        (seq, json.loads(payload) if isinstance(payload, (str, bytes)) else payload)
        for seq, payload in rows
    ]


def remember(table: Table, state: TableState) -> None:
    with _lock:
        current = _cache.get(table.pk)
        if current is None or current.version <= state.version:
            _cache[table.pk] = state.copy()
        _cache.move_to_end(table.pk)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


def forget(table: Table | None = None) -> None:
    with _lock:
        if table is None:
            _cache.clear()
        else:
            _cache.pop(table.pk, None)
