"""The table's state as a projection over its event log: the cache and the snapshots.

``project(table)`` folds the log (``TableState.fold``, ``server.tables.table_state``).
Two disposable layers spare the fold:

- an in-process LRU cache keeps the last fold per table and applies only the newer
  events;
- snapshots: every ``SNAPSHOT_EVERY`` events a table's folded state is pickled into
  ``TableSnapshot``, so a table this process has not seen (a restart, another process,
  an eviction) unpickles the newest snapshot and folds only the events after it.

Both are disposable: ``forget()`` drops the cache (``snapshots=True`` the snapshot rows
too) and the next read folds the log again to the same state. A snapshot is read only
by the code that wrote it (``SNAPSHOT_FORMAT``, a hash of the engine's and this module's
source and of ``table_state``'s), so a changed fold never meets a state pickled by the
old one; a row that fails to load is ignored the same way.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Q

import engine
from engine import Match
from server.accounts.models import User
from server.tables import store
from server.tables.locking import writing
from server.tables.models import Event, Table, TableSnapshot
from server.tables.table_state import TableState

log = logging.getLogger(__name__)

# Least recently used tables leave first: a club with more active tables than this still
# hits the cache for every table in play (a miss starts from the newest snapshot). And the
# folds kept hold at most ``settings.PROJECTION_EVENTS`` events and undo points in all
# (``Match.kept_size``, ~1 KB each): a finished match's fold is ~300 KB, so 1,024 of them
# held ~300 MB in a process that had served that many tables, and kept it.
CACHE_SIZE = 1024
# A snapshot once a table's log has grown this many events past its newest one: a cold
# read then unpickles one state (~7 ms of CPU for a long match's, undo history included)
# and folds at most this many events (~13 µs each).
SNAPSHOT_EVERY = 100


def _source_hash() -> str:
    digest = hashlib.sha256()
    package = Path(engine.__file__).parent
    here = Path(__file__)
    for path in [*sorted(package.rglob("*.py")), here, here.with_name("table_state.py")]:
        name = path.relative_to(package) if path.is_relative_to(package) else path.name
        digest.update(str(name).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:32]


SNAPSHOT_FORMAT = _source_hash()


_cache: OrderedDict[int, TableState] = OrderedDict()
# Per cached table: its fold's ``kept_size()`` when kept, and their sum. Kept here beside
# the OrderedDict, not with a library's sized cache (cachetools' ``getsizeof``): an
# eviction must also drop the table's snapshot mark under the same lock as the snapshot
# claim, and the whole bound is these ten lines, no dependency for them.
_sizes: dict[int, int] = {}
_kept_size = [0]
# Per cached table: the seq of its newest snapshot (known to this process).
_snapshot_seq: dict[int, int] = {}
_lock = threading.Lock()
# Counts ``forget()`` calls: what is kept from a fold elsewhere (``answers``) is dropped
# when it changes.
_generation = 0


def generation() -> int:
    return _generation


# What else is kept from folds, dropped with all of them (``forget()``): a full table's
# seats (``selectors``), the spectators' frames (``server.league.spectate``).
_also_forget: list[Callable[[], None]] = []


def also_forget(hook: Callable[[], None]) -> None:
    if hook not in _also_forget:
        _also_forget.append(hook)


# Closing an account rewrites its name in the log (a seat_handover's "from"/"to") and
# drops what the closing process keeps (docs/server.md, "Members' data"); the other
# processes' folds, kept seats, answers and frames held the old name until they
# restarted. So every process counts the closed accounts (one read, at most every
# ``CLOSED_ACCOUNTS_CHECK_SECONDS``, by the first fold asked after it is due) and drops
# everything it keeps when the count moved: the old name is shown there that long at most.
_closed = [-1, 0.0]  # [closed accounts at the last look (-1: none yet), next look at]


def _look_for_closed_accounts() -> None:
    now = time.monotonic()
    if now < _closed[1]:
        return
    with _lock:
        if now < _closed[1]:
            return
        _closed[1] = now + settings.CLOSED_ACCOUNTS_CHECK_SECONDS
    count = User.objects.filter(is_active=False).count()
    seen, _closed[0] = _closed[0], count
    if seen >= 0 and count != seen:
        forget()


def project(table: Table, upto: int | None = None) -> TableState:
    """The state after the whole log (or after event ``upto``); callers get a private copy."""
    _look_for_closed_accounts()
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
        newer = store.events_after(table.pk, state.version)
    for seq, payload in newer:
        state.fold(seq, payload)
    if upto is None:
        remember(table, state)
    return state


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
            size = state.match.kept_size()
            _kept_size[0] += size - _sizes.get(table.pk, 0)
            _sizes[table.pk] = size
        _cache.move_to_end(table.pk)
        # the table just kept stays, however large: it is the one being read
        while len(_cache) > 1 and (
            len(_cache) > CACHE_SIZE or _kept_size[0] > settings.PROJECTION_EVENTS
        ):
            gone, _ = _cache.popitem(last=False)
            _kept_size[0] -= _sizes.pop(gone, 0)
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
            _sizes.clear()
            _kept_size[0] = 0
            _snapshot_seq.clear()
        else:
            _cache.pop(table.pk, None)
            _kept_size[0] -= _sizes.pop(table.pk, 0)
            _snapshot_seq.pop(table.pk, None)
    if table is None:
        for hook in _also_forget:
            hook()
    if snapshots:
        rows = TableSnapshot.objects.all()
        (rows if table is None else rows.filter(table=table)).delete()


# -- snapshots ---------------------------------------------------------------------------
def _from_snapshot(table_id: int, upto: int | None = None) -> TableState | None:
    """The newest snapshot of the table (at or before ``upto``), or None."""
    row = store.newest_snapshot(table_id, SNAPSHOT_FORMAT, upto)
    if row is None:
        return None
    seq, blob = row
    try:
        state = pickle.loads(blob)
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
