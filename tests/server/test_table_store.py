"""``server.tables.store``: every hand-written statement, run on both branches of the
runner and giving the same answer on each.

Production on SQLite runs them on the driver's connection itself (the direct branch);
a connection whose queries are logged, as every query-count test's is, and PostgreSQL
go through Django's cursor. So the query-count tests only ever see the cursor branch:
here each statement runs on both, and the test fails if a statement of ``store`` is
left out. On PostgreSQL (the backend run) only the cursor branch exists, and the row
lock (``LOCK_TABLE``, PostgreSQL only) runs there too.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from server.tables import projection, services, store
from server.tables.models import Event, NewEvent, TableSnapshot
from tests.server.conftest import Players, new_bot

pytestmark = [pytest.mark.backend, pytest.mark.django_db]

SQLITE = connection.vendor == "sqlite"
BRANCHES = ("direct", "cursor") if SQLITE else ("cursor",)


@pytest.fixture
def ran(monkeypatch):
    """The statements each branch ran: {"direct": [sql, ...], "cursor": [...]}."""
    seen: dict[str, list[str]] = {"direct": [], "cursor": []}
    direct, through_cursor = store._direct, store._through_cursor

    def on_direct(db, sql, params, fetch):
        seen["direct"].append(sql)
        return direct(db, sql, params, fetch)

    def on_cursor(db, sql, params, fetch):
        seen["cursor"].append(sql)
        return through_cursor(db, sql, params, fetch)

    monkeypatch.setattr(store, "_direct", on_direct)
    monkeypatch.setattr(store, "_through_cursor", on_cursor)
    return seen


def on(branch: str, run):
    """``run()`` on ``branch``: the cursor branch as a query-count test sees it (its
    queries logged), the direct one as production on SQLite runs it."""
    if branch == "cursor":
        with CaptureQueriesContext(connection) as captured:
            answer = run()
        assert captured.captured_queries, "the cursor branch logs its statements"
        return answer
    assert not connection.queries_logged
    return run()


def each_branch(run) -> list:
    return [on(branch, run) for branch in BRANCHES]


@pytest.fixture
def table():
    """A table with a log: a keyed action (its receipt), a pause, and a snapshot."""
    p = Players(kinds=("human", "bot", "bot", "bot"))
    body = p.seat(1)
    assert (
        p.act(1, {"type": "pause", "expected_version": body["version"]}, key="k-1").status_code
        == 200
    )
    state = projection.project(p.table)
    TableSnapshot.objects.create(
        table=p.table, seq=state.version, format="test format", state=b"\x00pickled\xff"
    )
    return p


def test_every_statement_runs_on_both_branches_with_the_same_answer(table, ran):
    p = table
    pk = p.table.pk
    ran["direct"].clear(), ran["cursor"].clear()  # not the table's own making
    answers = {
        "events_after": each_branch(lambda: store.events_after(pk, 0)),
        "receipt": each_branch(lambda: store.receipt_on_event(pk, "k-1")),
        "no receipt": each_branch(lambda: store.receipt_on_event(pk, "k-2")),
        "open pauses": each_branch(store.tables_with_open_pauses),
        "table and seats": each_branch(lambda: store.table_and_seat_rows(p.code)),
        "no table": each_branch(lambda: store.table_and_seat_rows("NOSUCH")),
        "snapshot": each_branch(lambda: store.newest_snapshot(pk, "test format", None)),
        "snapshot upto": each_branch(lambda: store.newest_snapshot(pk, "test format", 1)),
        "newest seqs": each_branch(lambda: store.newest_seqs([pk, pk + 1000])),  # one is none
    }
    for name, (first, *others) in answers.items():
        assert all(other == first for other in others), name
    events = answers["events_after"][0]
    assert [seq for seq, _ in events] == list(range(1, len(events) + 1))
    assert events[-1][1]["type"] == "pause" and isinstance(events[-1][1], dict)
    request_hash, account, receipt = answers["receipt"][0]
    assert account == p.owner.pk and len(request_hash) == 64
    assert json.loads(receipt) == {"version": events[-1][0]}  # the version its answer is at
    assert answers["no receipt"][0] is None
    assert pk in answers["open pauses"][0]
    rows = answers["table and seats"][0]
    assert [row[9] for row in rows] == [1, 2, 3, 4] and rows[0][1] == p.code
    assert answers["no table"][0] == []
    assert answers["snapshot"][0] == (len(events), b"\x00pickled\xff")
    assert answers["snapshot upto"][0] is None
    assert answers["newest seqs"][0] == {pk: len(events)}

    # the append: the same rows written on each branch read back the same
    written = []
    for n, branch in enumerate(BRANCHES):
        seq = len(events) + 1 + n
        row = NewEvent(pk, seq, "resume", {"type": "resume", "seat": 1, "é": n}, None, 1, "server")
        on(branch, lambda row=row: store.append_events([row]))
        written.append(Event.objects.filter(table=p.table, seq=seq).values().get())
    assert [(w["type"], w["payload"]["é"], w["seat"]) for w in written] == [
        ("resume", n, 1) for n in range(len(BRANCHES))
    ]

    if not SQLITE:  # the row lock: PostgreSQL only
        with transaction.atomic():
            store.lock_table(pk)
    for branch in BRANCHES:
        assert set(ran[branch]) == store.statements(connection), branch


def test_a_pause_is_open_until_a_resume_a_handover_of_its_seat_an_annul_or_a_forfeit(table):
    p = table
    assert store.tables_with_open_pauses() == [p.table.pk]
    version = p.seat(1)["version"]
    assert p.act(1, {"type": "resume", "expected_version": version}).status_code == 200
    for found in each_branch(store.tables_with_open_pauses):
        assert found == []
    version = p.seat(1)["version"]
    assert p.act(1, {"type": "pause", "expected_version": version}).status_code == 200
    other = Players(kinds=("human", "bot", "bot", "bot"))
    assert (
        other.act(1, {"type": "pause", "expected_version": other.seat(1)["version"]}).status_code
        == 200
    )
    assert store.tables_with_open_pauses() == sorted([p.table.pk, other.table.pk])
    # a handover of another seat leaves the pause open; of the paused seat, it ends it
    services.do_hand_over(actor=None, table=p.table, seat=2, to=new_bot(), reason="computer")
    assert store.tables_with_open_pauses() == sorted([p.table.pk, other.table.pk])
    services.do_hand_over(actor=None, table=p.table, seat=1, to=None, reason="leave")
    assert not projection.project(p.table).paused
    assert store.tables_with_open_pauses() == [other.table.pk]
    services.do_annul(actor=other.owner, table=other.table, reason="test")
    assert store.tables_with_open_pauses() == []


def test_the_lock_is_never_sent_to_sqlite(table, ran):
    if not SQLITE:
        pytest.skip("SQLite only")
    with transaction.atomic():
        store.lock_table(table.table.pk)
    assert ran == {"direct": [], "cursor": []}
