"""SQL statements per game action (issue 10): a regression bound, not a timing.

One action is the seat view GET and the action POST. Counted on the test database
(SQLite file, or PostgreSQL in the backend run) with Django's query capture.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.server.conftest import Players

pytestmark = pytest.mark.django_db(transaction=True)

# Seat view: token -> account, table + seats, the events newer than the cache.
SEAT_VIEW_MAX = 3
# Action: the same three reads, the receipt lookup, the lock (PostgreSQL), one insert of
# the action and its consequences, the receipt, and the transaction itself.
ACTION_MAX = 8


def counted(call):
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == 200, response.content
    return response, [q["sql"] for q in queries.captured_queries]


def test_a_seat_view_and_an_action_take_a_bounded_number_of_statements():
    table = Players(kinds=("human", "human", "human", "human"))
    table.seat(1)                      # warm: the projection cache holds the table
    response, view_sql = counted(lambda: table.api(1).get(f"/api/tables/{table.code}/seats/1"))
    body = response.json()
    event = next(e for e in body["view"]["legal"] if e["type"] == "accept")
    _, action_sql = counted(lambda: table.send(event, body["version"], key="k-1"))
    print(f"\nseat view: {len(view_sql)} statements; action: {len(action_sql)} statements")
    for sql in view_sql + action_sql:
        print("  ", sql[:160])
    assert len(view_sql) <= SEAT_VIEW_MAX, view_sql
    assert len(action_sql) <= ACTION_MAX, action_sql
