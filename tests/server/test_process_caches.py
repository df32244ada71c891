"""What one server process keeps across requests stays right when another process (or
another thread of the same one) writes: a kept value is validated, or dropped, so that a
stale one is never served (docs/server.md, "Every process is stateless but for caches").
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from server.tables import projection, selectors
from server.tables import services as table_services
from tests.server.conftest import client_for, new_bot, new_member
from tests.server.test_leave_replace import casual_table, error

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def test_seats_read_before_a_handover_are_not_kept_over_those_read_after_it(monkeypatch):
    """A thread of this process reads a full table's seats, and before it keeps them a
    handover commits elsewhere and another thread here, meeting the table's new seat
    epoch, reads and keeps the new seats (``selectors.fresh_seats``). The first thread's
    older seats must not replace them: the epoch is noted as seen, so they were served
    from then on, and the seat's old holder read its view and acted for it."""
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    spare = new_bot(owner)
    monkeypatch.setattr(
        table_services, "away_since", lambda t, seat: timezone.now() - dt.timedelta(hours=1)
    )
    # the handover is written as by another process: this one forgets nothing
    monkeypatch.setattr(
        table_services, "_after_handover", lambda t, state: table_services._after_commit(t, state)
    )
    selectors.forget_full_tables()
    read = selectors._read_table_and_seats
    first = []

    def read_then_handover(code):
        found = read(code)
        if not first:  # the first thread's read, before the handover
            first.append(found)
            table_services.do_replace(user=owner, table=table, seat=2, bot=spare)
            # the other thread: the seats as they are now, kept
            now = selectors.fresh_seats(found[0], found[1], projection.project(table))
            assert now[1].player_id == spare.pk
        return found

    monkeypatch.setattr(selectors, "_read_table_and_seats", read_then_handover)
    older = selectors.table_and_seats(table.code)  # the first thread keeps what it read
    assert older is not None and older[1][1].player_id == ann.pk
    monkeypatch.setattr(selectors, "_read_table_and_seats", read)

    error(client_for(ann).get(f"/api/tables/{table.code}/seats/2"), 403, "not_your_seat")
    version = projection.project(table).version
    answer = client_for(ann).post(
        f"/api/tables/{table.code}/seats/2/actions",
        {"type": "pass", "expected_version": version},
        format="json",
    )
    error(answer, 403, "not_your_seat")
    view = client_for(spare).get(f"/api/tables/{table.code}/seats/2")
    assert view.status_code == 200, view.content
    assert view.json()["table"]["seats"]["2"]["player"] == spare.username
    kept = selectors.table_and_seats(table.code)
    assert kept is not None
    seats = selectors.fresh_seats(kept[0], kept[1], projection.project(table))
    assert seats[1].player_id == spare.pk, "seats read before the handover were kept after it"
