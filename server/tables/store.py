"""Every hand-written SQL statement of the tables, and the one runner that runs them.

The ORM builds the tables' other statements. These are written by hand because they
run on every request of the hot path, where compiling an ORM query costs more than
running it (~1 ms of compilation against ~50 µs of SQLite), or because the ORM has no
word for them (the lock, the multi-row INSERT of the log rows).

**Two branches.** On SQLite a statement goes to the driver's connection itself: Django's
cursor (thread check, wrapper chain, "%s" -> "?" by regex) cost ~30 µs a statement
there, more than SQLite's own work, and a read of a seat and an action run three. Same
connection and transaction: ``atomic()`` and ``on_commit`` see no difference, and errors
become Django's (IntegrityError) as through a cursor. PostgreSQL keeps Django's cursor,
and so does a connection whose queries are logged (DEBUG, or a test capturing them:
which is why the query-count tests never see the direct branch, and
``tests/server/test_table_store.py`` runs every statement here on both).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

from server.accounts.models import User
from server.tables.models import Event, NewEvent, Seat, Table, TableSnapshot

_EVENTS = Event._meta.db_table


def database():
    """This thread's connection to the database. ``django.db.connection`` looks the
    connection up again on every attribute read (~3 µs each): the hot path's functions
    look it up once with this."""
    return connections[DEFAULT_DB_ALIAS]


# -- the runner ------------------------------------------------------------------------------
def rows(sql: str, params: Sequence) -> list[tuple]:
    """The rows of one statement (``%s`` placeholders, as for a Django cursor)."""
    return _run(sql, params, fetch=True)


def execute(sql: str, params: Sequence) -> None:
    """Run one statement that answers no rows (``%s`` placeholders)."""
    _run(sql, params, fetch=False)


def _run(sql: str, params: Sequence, fetch: bool) -> list[tuple]:
    db = database()
    if db.vendor != "sqlite" or db.queries_logged:
        return _through_cursor(db, sql, params, fetch)
    return _direct(db, sql, params, fetch)


def _through_cursor(db, sql: str, params: Sequence, fetch: bool) -> list[tuple]:
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if fetch else []


def _direct(db, sql: str, params: Sequence, fetch: bool) -> list[tuple]:
    db.validate_no_broken_transaction()  # as Django's cursor checks first
    with db.wrap_database_errors:
        db.ensure_connection()
        cursor = db.connection.execute(_qmark(sql), params)
        return cursor.fetchall() if fetch else []


_QMARK: dict[str, str] = {}


def _qmark(sql: str) -> str:
    text = _QMARK.get(sql)
    if text is None:
        text = _QMARK[sql] = sql.replace("%s", "?")
    return text


# -- the log ---------------------------------------------------------------------------------
# Every read of a table runs this (usually answering no rows).
EVENTS_AFTER = f"SELECT seq, payload FROM {_EVENTS} WHERE table_id = %s AND seq > %s ORDER BY seq"


def events_after(table_id: int, seq: int) -> list[tuple[int, dict]]:
    """(seq, payload) of the table's events after ``seq``, in order."""
    found = rows(EVENTS_AFTER, (table_id, seq))
    # The JSON column comes back as text (SQLite, and PostgreSQL under Django's loaders).
    return [
        (seq, json.loads(payload) if isinstance(payload, (str, bytes)) else payload)
        for seq, payload in found
    ]


# The newest seq of each of several tables (a ping round's: ``selectors.current_versions``),
# one backward step on the (table, seq) index per table, however long its log.
_NEWEST: dict[int, str] = {}  # tables asked -> the SELECT


def newest_seqs(table_ids: Sequence[int]) -> dict[int, int]:
    """table id -> the seq of its newest event (0: none yet), for those that exist."""
    if not table_ids:
        return {}
    return {pk: seq or 0 for pk, seq in rows(newest_statement(len(table_ids)), list(table_ids))}


def newest_statement(tables: int) -> str:
    sql = _NEWEST.get(tables)
    if sql is None:
        sql = _NEWEST[tables] = (
            f"SELECT t.id, (SELECT MAX(e.seq) FROM {_EVENTS} e WHERE e.table_id = t.id) "
            f"FROM {Table._meta.db_table} t WHERE t.id IN ({', '.join(['%s'] * tables)})"
        )
    return sql


# The columns an appended log row fills (the same rows bulk_create writes).
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
_INSERTS: dict[tuple[str, int], str] = {}  # (vendor, rows) -> the INSERT


def append_events(events: Sequence[Event | NewEvent]) -> None:
    """Write new log rows in one INSERT statement: every action appends its events, and
    Django's bulk_create spends more time compiling the INSERT than the database spends
    running it."""
    if not events:
        return
    db = database()
    sql = _INSERTS.get((db.vendor, len(events)))
    if sql is None:
        sql = _INSERTS[(db.vendor, len(events))] = insert_events(db, len(events))
    now = db.ops.adapt_datetimefield_value(timezone.now())
    params: list = []
    for e in events:
        params += [e.table_id, e.seq, e.type, json.dumps(e.payload), e.actor_id, e.seat]
        params += [e.actor_kind, e.command_id, e.request_hash, e.receipt, now]
    execute(sql, params)


def insert_events(db, count: int) -> str:
    """The INSERT of ``count`` log rows on ``db``'s backend."""
    quote = db.ops.quote_name
    payload = "CAST(%s AS jsonb)" if db.vendor == "postgresql" else "%s"
    row = "(" + ", ".join(payload if c == "payload" else "%s" for c in _COLUMNS) + ")"
    return (
        f"INSERT INTO {quote(_EVENTS)} ({', '.join(quote(c) for c in _COLUMNS)}) VALUES "
        + ", ".join([row] * count)
    )


# A retry's stored answer: the receipt on the event its key wrote (``services._replayed``).
RECEIPT_ON_EVENT = (
    f"SELECT request_hash, actor_id, receipt FROM {_EVENTS} WHERE table_id = %s AND command_id = %s"
)


def receipt_on_event(table_id: int, key: str) -> tuple[str | None, int | None, str | None] | None:
    """(request hash, account id, receipt text) of the event ``key`` wrote, or None."""
    found = rows(RECEIPT_ON_EVENT, (table_id, key))
    return found[0] if found else None


# Tables with a pause that nothing ended since: no resume of its seat, no handover of
# its seat (a pause is its holder's), no annul or forfeit. The candidates of
# ``services.lift_due_pauses``, each then folded to find its open pauses. One scan of the
# log's pause rows (the ticking driver runs it once a minute); the JSON of a handover is
# read as each backend reads JSON.
_HANDOVER_SEAT = {
    "sqlite": "json_extract(r.payload, '$.seat')",
    "postgresql": "(r.payload ->> 'seat')::integer",
}
_OPEN_PAUSES: dict[str, str] = {}


def open_pauses(db) -> str:
    """The statement of ``tables_with_open_pauses`` on ``db``'s backend."""
    sql = _OPEN_PAUSES.get(db.vendor)
    if sql is None:
        sql = _OPEN_PAUSES[db.vendor] = (
            f"SELECT DISTINCT p.table_id FROM {_EVENTS} p WHERE p.type = 'pause' AND NOT EXISTS ("
            f"SELECT 1 FROM {_EVENTS} r WHERE r.table_id = p.table_id AND r.seq > p.seq AND ("
            "(r.type = 'resume' AND r.seat = p.seat)"
            f" OR (r.type = 'seat_handover' AND {_HANDOVER_SEAT[db.vendor]} = p.seat)"
            " OR r.type IN ('annul', 'forfeit'))) ORDER BY p.table_id"
        )
    return sql


def tables_with_open_pauses() -> list[int]:
    """The ids of the tables with a pause that nothing has ended."""
    return [pk for (pk,) in rows(open_pauses(database()), ())]


# -- the table and its seats -------------------------------------------------------------------
# The hot path's one read of a table: its row, its owner's name and its four seats with
# their players, in one statement (``selectors.table_and_seats`` builds the models).
TABLE_AND_SEATS = f"""
    SELECT t.id, t.code, t.owner_id, t.rated, t.secret_seed, t.created_at, t.deal_seed,
           o.username,
           s.id, s.number, s.kind, s.player_id, p.username, p.is_bot
      FROM {Table._meta.db_table} t
      JOIN {User._meta.db_table} o ON o.id = t.owner_id
      JOIN {Seat._meta.db_table} s ON s.table_id = t.id
      LEFT JOIN {User._meta.db_table} p ON p.id = s.player_id
     WHERE t.code = %s
     ORDER BY s.number"""


def table_and_seat_rows(code: str) -> list[tuple]:
    """One row per seat of the table with invite ``code`` (none: no such table)."""
    return rows(TABLE_AND_SEATS, (code,))


# PostgreSQL: the row lock that serialises the writes of one table (SQLite has one
# writer at a time already: ``locking.writing`` and the IMMEDIATE transaction).
LOCK_TABLE = f"SELECT id FROM {Table._meta.db_table} WHERE id = %s FOR UPDATE"


def lock_table(table_id: int) -> None:
    """Lock the table's row for this transaction (PostgreSQL; nothing to do on SQLite)."""
    if database().vendor != "sqlite":
        rows(LOCK_TABLE, (table_id,))


# -- snapshots ---------------------------------------------------------------------------------
NEWEST_SNAPSHOT = (
    f"SELECT seq, state FROM {TableSnapshot._meta.db_table} "
    "WHERE table_id = %s AND format = %s AND seq <= %s ORDER BY seq DESC LIMIT 1"
)
_NO_LIMIT = 2**31 - 1  # seq is a 32-bit column on every backend


def newest_snapshot(table_id: int, format: str, upto: int | None) -> tuple[int, bytes] | None:
    """(seq, pickled state) of the table's newest snapshot of ``format`` at or before
    ``upto`` (None: any), or None."""
    found = rows(NEWEST_SNAPSHOT, (table_id, format, _NO_LIMIT if upto is None else upto))
    if not found:
        return None
    seq, blob = found[0]
    return seq, bytes(blob)


def statements(db) -> set[str]:
    """Every statement above on ``db``'s backend (the INSERT of one row, the newest seqs
    of two tables), for the test that runs each on both branches of the runner."""
    fixed = {EVENTS_AFTER, RECEIPT_ON_EVENT, TABLE_AND_SEATS, NEWEST_SNAPSHOT}
    return (
        fixed
        | {insert_events(db, 1), open_pauses(db), newest_statement(2)}
        | ({LOCK_TABLE} if db.vendor != "sqlite" else set())
    )
