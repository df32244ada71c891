"""``store.append_events``: the action path's one hand-written INSERT writes the rows the
ORM would (payload JSON, actor, seat, command id, an aware creation time)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from server.tables import store
from server.tables.models import Event, NewEvent
from tests.server.conftest import Players

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def as_model(**fields):
    return Event(**fields)


def as_row(*, table, actor, **fields):  # what the action path appends (services._fold)
    return NewEvent(table_id=table.pk, actor_id=None if actor is None else actor.pk, **fields)


@pytest.mark.parametrize("make", [as_model, as_row], ids=["Event", "NewEvent"])
def test_appended_rows_read_back_as_written(make):
    p = Players()
    start = Event.objects.filter(table=p.table).count()
    payloads = [
        {"type": "play", "seat": 1, "tile": "3-5", "end": "left"},
        {"type": "annul", "reason": "ünïcode \\ \"quotes\" and 'apostrophes'", "n": [1, None]},
    ]
    before = timezone.now()
    store.append_events(
        [
            make(
                table=p.table,
                seq=start + 1,
                type="play",
                payload=payloads[0],
                actor=p.owner,
                seat=1,
                actor_kind="human",
                command_id="key-1",
            ),
            make(
                table=p.table,
                seq=start + 2,
                type="annul",
                payload=payloads[1],
                actor=None,
                seat=None,
                actor_kind="server",
            ),
        ]
    )
    rows = list(Event.objects.filter(table=p.table, seq__gt=start).order_by("seq"))
    assert [r.payload for r in rows] == payloads
    assert [(r.seq, r.type, r.actor_id, r.seat, r.actor_kind, r.command_id) for r in rows] == [
        (start + 1, "play", p.owner.pk, 1, "human", "key-1"),
        (start + 2, "annul", None, None, "server", None),
    ]
    assert all(timezone.is_aware(r.created_at) and r.created_at >= before for r in rows)


def test_an_append_that_breaks_a_constraint_writes_nothing():
    p = Players()
    start = Event.objects.filter(table=p.table).count()
    rows = [
        Event(table=p.table, seq=start + 1, type="x", payload={}, actor_kind="server"),
        Event(table=p.table, seq=start, type="x", payload={}, actor_kind="server"),  # taken
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        store.append_events(rows)
    assert Event.objects.filter(table=p.table).count() == start
