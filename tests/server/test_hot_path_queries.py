"""SQL statements per game action (issue 10): a regression bound, not a timing.

One action is the seat view GET and the action POST. Counted on the test database
(SQLite file, or PostgreSQL in the backend run) with Django's query capture.
"""

from __future__ import annotations

import random

import orjson
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from server.tables import projection
from server.tables.models import ActionReceipt, Event
from tests.server.conftest import Players

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

# Seat view at a full table: token -> account, the events newer than the cache (the
# table and seats rows are kept in-process once every seat is taken).
SEAT_VIEW_MAX = 2
# Action: the same reads, BEGIN, the table row lock (PostgreSQL), one insert of the action
# and its consequences (the key's receipt on the action's own row; a new key is never
# looked up), COMMIT.
ACTION_MAX = 5 if connection.vendor == "sqlite" else 6


def counted(call):
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == 200, response.content
    return response, [q["sql"] for q in queries.captured_queries]


def test_a_seat_view_and_an_action_take_a_bounded_number_of_statements():
    table = Players(kinds=("human", "human", "human", "human"))
    table.seat(1)  # warm: the projection cache holds the table
    response, view_sql = counted(lambda: table.api(1).get(f"/api/tables/{table.code}/seats/1"))
    body = response.json()
    event = next(e for e in body["view"]["legal"] if e["type"] == "accept")
    answer, action_sql = counted(lambda: table.send(event, body["version"], key="k-1"))
    print(f"\nseat view: {len(view_sql)} statements; action: {len(action_sql)} statements")
    for sql in view_sql + action_sql:
        print("  ", sql[:160])
    assert len(view_sql) <= SEAT_VIEW_MAX, view_sql
    assert len(action_sql) <= ACTION_MAX, action_sql
    assert not [q for q in action_sql if "tables_actionreceipt" in q], action_sql
    inserts = [q for q in action_sql if q.startswith("INSERT")]
    assert len(inserts) == 1 and '"receipt"' in inserts[0], inserts
    stored = Event.objects.filter(table=table.table, command_id="k-1").values_list(
        "request_hash", "receipt"
    )
    [(digest, receipt)] = stored
    assert len(digest) == 64 and orjson.loads(receipt) == {"version": answer.json()["version"]}


def test_a_retry_is_answered_from_its_receipt_and_a_reused_key_refused():
    """The receipt is read only when the action is refused as it stands (a retry's
    version is stale) or its key collides: the stored first answer, or 422."""
    table = Players(kinds=("human", "human", "human", "human"))
    body = table.seat(1)
    event = next(e for e in body["view"]["legal"] if e["type"] == "accept")
    first = table.send(event, body["version"], key="k-r")
    assert first.status_code == 200, first.content
    again = table.send(event, body["version"], key="k-r")
    assert (again.status_code, again.json()) == (200, first.json())
    other = table.seat(2)
    accept = next(e for e in other["view"]["legal"] if e["type"] == "accept")
    reused = table.send(accept, other["version"], key="k-r")
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    assert table.seat(2)["version"] == other["version"]  # nothing applied


def test_an_action_and_its_consequences_are_written_in_one_insert(monkeypatch):
    """Over a random match: one INSERT into the log per action, however many events."""
    # The projection's snapshot (one every SNAPSHOT_EVERY events, tests/server/
    # test_snapshots.py) is not part of an action's own statements.
    monkeypatch.setattr(projection, "SNAPSHOT_EVERY", 10**9)
    table = Players(kinds=("human", "human", "human", "human"))
    rng = random.Random(7)
    several = 0
    for _ in range(120):
        seat, body = next(
            ((n, b) for n in (1, 2, 3, 4) for b in [table.seat(n)] if b["view"]["legal"]),
            (None, None),
        )
        if seat is None:
            break
        event = rng.choice(body["view"]["legal"])
        response, sql = counted(lambda: table.send(event, body["version"]))
        inserts = [q for q in sql if q.startswith('INSERT INTO "tables_event"')]
        assert len(inserts) == 1, inserts
        several += response.json()["version"] - body["version"] > 1
        if response.json()["view"]["phase"] == "match_over":
            break  # the match's end is written by the league's receiver as well
        assert len(sql) <= ACTION_MAX, sql  # no Idempotency-Key: the same statements
    assert several > 0, "no action had consequences (a deal or forced passes) to write"


def test_the_one_statement_read_gives_the_same_table_and_seats_as_the_orm():
    from server.tables.models import Seat, Table
    from server.tables.selectors import table_and_seats

    p = Players(kinds=("human", "bot", "human", "bot"))
    table, seats = table_and_seats(p.code)
    orm = Table.objects.select_related("owner").get(code=p.code)
    assert (table.pk, table.code, table.owner_id, table.rated, table.owner.username) == (
        orm.pk,
        orm.code,
        orm.owner_id,
        orm.rated,
        orm.owner.username,
    )
    assert table.created_at == orm.created_at and table.created_at.tzinfo is not None
    assert [
        (s.number, s.kind, s.player_id, s.player.username if s.player_id else None) for s in seats
    ] == [
        (s.number, s.kind, s.player_id, s.player.username if s.player_id else None)
        for s in Seat.objects.filter(table=orm).select_related("player")
    ]


def test_a_full_tables_rows_are_read_once_and_a_table_with_a_free_seat_each_time(
    django_user_model,
):
    from server.tables import services
    from server.tables.selectors import table_and_seats

    def reads_of_the_table(code):
        with CaptureQueriesContext(connection) as queries:
            found = table_and_seats(code)
        return found, [q for q in queries.captured_queries if "tables_seat" in q["sql"]]

    p = Players(kinds=("human", "human", "human", "human"), humans_joined=False)
    for number in (1, 2, 3):
        services.do_join(user=p.owner, table=p.table, number=number)
    (table, seats), reads = reads_of_the_table(p.code)
    assert reads and seats[3].player_id is None
    _, reads = reads_of_the_table(p.code)
    assert reads, "a table with a free seat is read again: a join must show"
    newcomer = django_user_model.objects.create_user("newcomer", password="x" * 12)
    services.do_join(user=newcomer, table=table, number=4)
    (_, seats), reads = reads_of_the_table(p.code)
    assert reads and seats[3].player.username == "newcomer"
    (_, again), reads = reads_of_the_table(p.code)
    assert not reads, "a full table's rows cannot change: they are not read again"
    assert [s.player_id for s in again] == [s.player_id for s in seats]


def test_a_receipt_written_before_receipts_moved_onto_the_event_still_answers():
    """Actions applied by an older server have their receipt in ``ActionReceipt``."""
    table = Players(kinds=("human", "human", "human", "human"))
    body = table.seat(1)
    event = next(e for e in body["view"]["legal"] if e["type"] == "accept")
    first = table.send(event, body["version"], key="k-old")
    assert first.status_code == 200, first.content
    row = Event.objects.get(table=table.table, command_id="k-old")
    digest = Event.objects.filter(pk=row.pk).values_list("request_hash", flat=True)[0]
    Event.objects.filter(pk=row.pk).update(request_hash=None, receipt=None)  # as written then
    ActionReceipt.objects.create(
        table=table.table,
        key="k-old",
        account=table.owner,
        seat=1,
        request_hash=digest,
        status_code=200,
        response=first.json(),
    )
    again = table.send(event, body["version"], key="k-old")
    assert (again.status_code, again.json()) == (200, first.json())
    other = table.seat(2)
    accept = next(e for e in other["view"]["legal"] if e["type"] == "accept")
    reused = table.send(accept, other["version"], key="k-old")
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
