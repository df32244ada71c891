"""The table's state as a projection over its event log.

``project(table)`` folds the log with the engine. Two disposable layers spare the fold:

- an in-process LRU cache keeps the last fold per table and applies only the newer
  events;
- snapshots: every ``SNAPSHOT_EVERY`` events a table's folded state is pickled into
  ``TableSnapshot``, so a table this process has not seen (a restart, another process,
  an eviction) unpickles the newest snapshot and folds only the events after it.

Both are disposable: ``forget()`` drops the cache (``snapshots=True`` the snapshot rows
too) and the next read folds the log again to the same state. A snapshot is read only
by the code that wrote it (``SNAPSHOT_FORMAT``, a hash of the engine's and this module's
source), so a changed engine never meets a state pickled by the old one; a row that
fails to load is ignored the same way.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction
from django.db.models import Q

import engine
from engine import Match
from engine.events import DealtHands, deal_hands
from engine.phases import MATCH_OVER
from engine.replay import step
from server.tables.locking import writing
from server.tables.models import Event, Table, TableSnapshot, sql_rows

log = logging.getLogger(__name__)

# In the log, not in the engine record: the record of an annulled match still replays.
# ``seat_handover`` (a seat changes hands: a substitute, a player leaving, a replacement)
# and ``forfeit`` (an organizer ends a league match against a seat's team) likewise.
SEAT_EVENT_TYPES = ("seat_handover",)
SERVER_EVENT_TYPES = (
    "pause",
    "resume",
    "annul",
    "takeback_request",
    "takeback_answer",
    "watchable",
    "forfeit",
    *SEAT_EVENT_TYPES,
)
# A takeback request is voided by any engine event after it (the table moved on).
# Least recently used tables leave first: a club with more active tables than this still
# hits the cache for every table in play (a miss starts from the newest snapshot).
CACHE_SIZE = 1024
# A snapshot once a table's log has grown this many events past its newest one: a cold
# read then unpickles one state (~7 ms of CPU for a long match's, undo history included)
# and folds at most this many events (~13 µs each).
SNAPSHOT_EVERY = 100


def _source_hash() -> str:
    digest = hashlib.sha256()
    package = Path(engine.__file__).parent
    for path in [*sorted(package.rglob("*.py")), Path(__file__)]:
        name = path.relative_to(package) if path.is_relative_to(package) else path.name
        digest.update(str(name).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


SNAPSHOT_FORMAT = _source_hash()


@dataclass
class TableState:
    match: Match
    version: int = 0  # seq of the newest event folded
    paused_by: set[int] = field(default_factory=set)  # seats that opened rules/log
    # The deals whose hand has ended somewhere in the log (all four hands revealed,
    # RULES §5): only these are shown whole before the match is over. A deal voided by
    # a redeal claim, taken back by undo or dropped by a new match can come back, so it
    # stays out (RECORDS.md); a restarted hand replays its deal, shown once it ends. When
    # a match is over, every deal of it joins (``match_deals``).
    revealed: frozenset[DealtHands] = frozenset()
    annulled: dict | None = None  # the annul event, once an organizer annulled
    # When each pause began (the pause event's "at", ISO 8601; None for old logs).
    paused_at: dict[int, str | None] = field(default_factory=dict)
    # The open takeback request (the takeback_request event, with "votes": seat -> bool),
    # or None: at a casual table with several people, undo, redo, restart and new match
    # wait for the other people's consent.
    takeback: dict | None = None
    watchable: bool = False  # a casual table its owner lets the code's holders watch
    forfeited: dict | None = None  # the forfeit event, once an organizer ended it so
    # Every seat_handover, in log order, each with its ``seq``: who took which seat when.
    handovers: tuple[dict, ...] = ()
    # (finished hands when the newest deal was folded, deals folded since that count
    # last changed): which deal of which hand comes next (duplicate rounds' shuffles).
    hand_deals: tuple[int, int] = (0, 0)
    # Every deal of the match in play, voided or taken back ones too: once the match is
    # over they all join ``revealed`` (a finished match shows everything, RECORDS.md),
    # so a new match started after it does not hide part of it again.
    match_deals: frozenset[DealtHands] = frozenset()

    @property
    def paused(self) -> bool:
        return bool(self.paused_by)

    @property
    def stopped(self) -> bool:
        """Annulled or forfeited: nothing more is played at the table."""
        return self.annulled is not None or self.forfeited is not None

    @property
    def seat_epoch(self) -> int:
        """The seq of the newest seat handover (0: the seats never changed hands)."""
        return self.handovers[-1]["seq"] if self.handovers else 0

    def next_deal(self) -> tuple[int, int]:
        """(hand, attempt) of the deal due now: the hand's number counted in finished
        hands plus one, and how many deals of that hand came before (redeals)."""
        finished = self.match.hands_finished
        at, count = self.hand_deals
        return (finished + 1, count if at == finished else 0)

    def copy(self) -> TableState:
        return TableState(
            self.match.copy(),
            self.version,
            set(self.paused_by),
            self.revealed,
            self.annulled,
            dict(self.paused_at),
            None
            if self.takeback is None
            else {**self.takeback, "votes": dict(self.takeback["votes"])},
            self.watchable,
            self.forfeited,
            self.handovers,
            self.hand_deals,
            self.match_deals,
        )

    def fold(self, seq: int, payload: dict) -> None:
        """Apply one stored event (already validated when it was appended)."""
        kind = payload.get("type")
        if kind == "pause":
            self.paused_by.add(payload["seat"])
            self.paused_at[payload["seat"]] = payload.get("at")
        elif kind == "resume":
            self.paused_by.discard(payload["seat"])
            self.paused_at.pop(payload["seat"], None)
        elif kind == "annul":
            self.annulled = payload
        elif kind == "watchable":
            self.watchable = bool(payload["on"])
        elif kind == "takeback_request":
            self.takeback = {**payload, "seq": seq, "votes": {}}
        elif kind == "takeback_answer":
            if self.takeback is not None:
                self.takeback["votes"][str(payload["seat"])] = bool(payload["accept"])
                if not payload["accept"] or payload.get("final"):
                    self.takeback = None
        elif kind == "forfeit":
            self.forfeited = payload
        elif kind in SEAT_EVENT_TYPES:
            self.paused_by.discard(payload["seat"])  # a pause is its holder's, not the seat's
            self.paused_at.pop(payload["seat"], None)
            self.takeback = None  # its voters may have changed: a request starts again
            self.handovers = (*self.handovers, {**payload, "seq": seq})
        else:
            self.takeback = None  # any engine event ends an open request
            ended = step(self.match, payload, seq).hand_results
            if ended:
                self.revealed = self.revealed.union(hand.dealt for hand in ended)
            if kind == "deal":
                finished = self.match.hands_finished
                at, count = self.hand_deals
                self.hand_deals = (finished, count + 1 if at == finished else 1)
                self.match_deals = self.match_deals | {deal_hands(payload)}
            elif kind == "new_match":
                self.match_deals = frozenset()
            if self.match_deals and self.match.phase == MATCH_OVER:
                self.revealed = self.revealed | self.match_deals
                self.match_deals = frozenset()
        self.version = seq


_cache: OrderedDict[int, TableState] = OrderedDict()
# Per cached table: the seq of its newest snapshot (known to this process).
_snapshot_seq: dict[int, int] = {}
_lock = threading.Lock()
# Counts ``forget()`` calls: what is kept from a fold elsewhere (``answers``) is dropped
# when it changes.
_generation = 0


def generation() -> int:
    return _generation


def project(table: Table, upto: int | None = None) -> TableState:
    """The state after the whole log (or after event ``upto``); callers get a private copy."""
    with _lock:
        cached = _cache.get(table.pk)
        if cached is not None:
            _cache.move_to_end(table.pk)
    state = cached.copy() if cached is not None else None
    if state is None or (upto is not None and upto < state.version):
        state = _from_snapshot(table.pk, upto) or TableState(Match())
    newer: Iterable[tuple[int, dict]]
    if upto is not None:
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
    rows = sql_rows(_EVENTS_AFTER, (table_id, seq))
    # The JSON column comes back as text (SQLite, and PostgreSQL under Django's loaders).
    return [
        (seq, json.loads(payload) if isinstance(payload, (str, bytes)) else payload)
        for seq, payload in rows
    ]


def cached_phase(table_id: int, version: int) -> str | None:
    """The phase of the fold this process keeps for the table, if it is at ``version``
    (None: not kept, or at another version). Reads without copying the state."""
    with _lock:
        state = _cache.get(table_id)
        if state is None or state.version != version:
            return None
        return state.match.phase


def remember(table: Table, state: TableState, owned: bool = False) -> None:
    """Keep ``state`` as the table's newest fold (and snapshot it when it is due).
    ``owned``: the caller hands ``state`` over (it only reads it from now on), so it is
    kept without a copy; otherwise the caller keeps its own and a copy is kept."""
    with _lock:
        current = _cache.get(table.pk)
        if current is None or current.version < state.version:
            _cache[table.pk] = state if owned else state.copy()
        _cache.move_to_end(table.pk)
        while len(_cache) > CACHE_SIZE:
            gone, _ = _cache.popitem(last=False)
            _snapshot_seq.pop(gone, None)
        due = state.version - _snapshot_seq.get(table.pk, 0) >= SNAPSHOT_EVERY
        if due:
            _snapshot_seq[table.pk] = state.version  # claimed: one thread writes it
    if due:
        _save_snapshot(table.pk, state)


def forget(table: Table | None = None, snapshots: bool = False) -> None:
    """Drop the cached folds (of one table or all); ``snapshots`` deletes their rows too."""
    global _generation
    with _lock:
        _generation += 1
        if table is None:
            _cache.clear()
            _snapshot_seq.clear()
        else:
            _cache.pop(table.pk, None)
            _snapshot_seq.pop(table.pk, None)
    if snapshots:
        rows = TableSnapshot.objects.all()
        (rows if table is None else rows.filter(table=table)).delete()


# -- snapshots ---------------------------------------------------------------------------
_NEWEST_SNAPSHOT = (
    f"SELECT seq, state FROM {TableSnapshot._meta.db_table} "
    "WHERE table_id = %s AND format = %s AND seq <= %s ORDER BY seq DESC LIMIT 1"
)
_NO_LIMIT = 2**31 - 1  # seq is a 32-bit column on every backend


def _from_snapshot(table_id: int, upto: int | None = None) -> TableState | None:
    """The newest snapshot of the table (at or before ``upto``), or None."""
    with connection.cursor() as cursor:
        cursor.execute(
            _NEWEST_SNAPSHOT, [table_id, SNAPSHOT_FORMAT, _NO_LIMIT if upto is None else upto]
        )
        row = cursor.fetchone()
    if row is None:
        return None
    seq, blob = row
    try:
        state = pickle.loads(bytes(blob))
    except Exception:  # disposable: a row that does not load is a cache miss
        log.warning("snapshot %s of table %s does not load; folding the log", seq, table_id)
        return None
    if not isinstance(state, TableState) or state.version != seq:
        return None
    if upto is None:
        with _lock:
            _snapshot_seq[table_id] = max(seq, _snapshot_seq.get(table_id, 0))
    return state


def _save_snapshot(table_id: int, state: TableState) -> None:
    try:
        blob = pickle.dumps(state.copy(), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # an engine state that does not pickle: no snapshots, same answers
        log.warning("table %s: state does not pickle; no snapshot", table_id, exc_info=True)
        return
    row = TableSnapshot(table_id=table_id, seq=state.version, format=SNAPSHOT_FORMAT, state=blob)
    # On SQLite, take this process's writer lock like every other write (re-entrant: an
    # action already holds it); inside an action's transaction the savepoint keeps a
    # failed insert from breaking it.
    try:
        with writing(), transaction.atomic():
            TableSnapshot.objects.bulk_create([row], ignore_conflicts=True)
            # Only the newest of this format is ever read: older ones and others' go.
            TableSnapshot.objects.filter(table_id=table_id).filter(
                Q(seq__lt=state.version) | ~Q(format=SNAPSHOT_FORMAT)
            ).delete()
    except Exception:  # a snapshot is an optimisation: never fail the request for it
        log.warning("snapshot %s of table %s not written", state.version, table_id, exc_info=True)
