"""The event store under real concurrency, on whichever database the run uses.

These are marked ``backend``: ``make test`` runs them on SQLite, and again on
PostgreSQL when DATABASE_URL is set (``.ci/run`` sets it when PostgreSQL answers).
"""

from __future__ import annotations

import os
import threading

import pytest
from django.db import IntegrityError, connection, connections, transaction

from server.errors import StaleVersion
from server.tables import projection, selectors, services
from server.tables.models import Event
from tests.server.conftest import Players

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def test_the_database_is_the_one_the_environment_names():
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        assert connection.vendor == "postgresql"
    else:
        assert connection.vendor == "sqlite"
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"


def race(callables) -> list:
    """Run the callables at the same moment in real threads; their results or errors."""
    barrier = threading.Barrier(len(callables))
    results: list = [None] * len(callables)

    def run(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except Exception as err:  # noqa: BLE001 - the test inspects what came out
            results[i] = err
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(callables)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.parametrize("round_", range(3))
def test_two_actions_on_the_same_version_exactly_one_wins(round_):
    p = Players(kinds=("human", "bot", "human", "bot"))
    v = p.seat(1)["version"]
    before = len(p.log())
    outcomes = race(
        [
            lambda: services.do_action(
                user=p.owner,
                table=p.table,
                seat=1,
                action={"type": "accept", "expected_version": v},
                key=None,
            ),
            lambda: services.do_action(
                user=p.owner,
                table=p.table,
                seat=3,
                action={"type": "accept", "expected_version": v},
                key=None,
            ),
        ]
    )
    wins = [o for o in outcomes if isinstance(o, services.ActionResult)]
    losses = [o for o in outcomes if isinstance(o, StaleVersion)]
    assert len(wins) == 1 and len(losses) == 1, outcomes
    assert losses[0].version == wins[0].version == v + 1
    assert losses[0].view["version"] == v + 1  # the loser's body: the current view
    log = p.log()
    assert len(log) == before + 1 and [row[0] for row in log] == list(range(1, len(log) + 1))


def test_a_retry_racing_the_original_applies_once():
    p = Players()
    v = p.seat(1)["version"]
    body = {"type": "accept", "expected_version": v}
    outcomes = race([lambda: act(p, body, "same-key") for _ in range(3)])
    assert all(isinstance(o, (services.ActionResult, StaleVersion)) for o in outcomes), outcomes
    assert any(isinstance(o, services.ActionResult) for o in outcomes)
    assert Event.objects.filter(table=p.table, type="accept").count() == 1
    # Afterwards a retry returns the first answer (the seat's answer at its version).
    again = act(p, body, "same-key")
    assert again.replayed and again.status == 200 and again.body()["version"] == v + 1


def act(p, body, key):
    return services.do_action(user=p.owner, table=p.table, seat=1, action=dict(body), key=key)


def test_seq_and_command_id_are_unique_per_table():
    p = Players()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(
            table=p.table,
            seq=1,
            type="accept",
            payload={"type": "accept", "seat": 1},
            actor_kind="human",
        )
    Event.objects.create(
        table=p.table, seq=99, type="x", payload={}, actor_kind="server", command_id="c"
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(
            table=p.table, seq=100, type="x", payload={}, actor_kind="server", command_id="c"
        )


def test_the_cached_state_is_disposable():
    p = Players()
    for seat in (1, 2, 3, 4):
        p.act(seat, {"type": "accept", "expected_version": p.seat(seat)["version"]})
    views = [p.seat(n) for n in (1, 2, 3, 4)]
    projection.forget()
    assert [p.seat(n) for n in (1, 2, 3, 4)] == views
    rebuilt = projection.project(p.table)
    assert rebuilt.version == selectors.current_version(p.table)


def test_the_cache_drops_the_least_recently_used_table(monkeypatch):
    monkeypatch.setattr(projection, "CACHE_SIZE", 3)
    tables = [Players().table for _ in range(4)]
    for table in tables[:3]:
        projection.project(table)
    projection.project(tables[0])  # read again: now the most recently used
    projection.project(tables[3])  # one too many: the oldest unread one leaves
    assert set(projection._cache) == {tables[0].pk, tables[2].pk, tables[3].pk}
    for table in tables:  # a miss folds the log again to the same state
        assert projection.project(table).version == selectors.current_version(table)


def test_the_cache_holds_at_most_its_budget_of_events_and_undo_points(settings):
    """A finished match's fold is ~300 KB: bounded by count alone, the cache of a process
    that had served 1,024 tables held ~300 MB for good."""
    played = []
    for _ in range(4):
        p = Players()
        for seat in (1, 2, 3, 4):
            p.act(seat, {"type": "accept", "expected_version": p.seat(seat)["version"]})
        played.append(p.table)
    projection.forget()
    sizes = [projection.project(table).match.kept_size() for table in played]
    assert min(sizes) > 0
    assert projection._kept_size[0] == sum(sizes)  # all four kept: the budget is large
    settings.PROJECTION_EVENTS = sizes[0] + sizes[3]  # room for two of them only
    projection.project(played[0])  # read again: the newest, so it stays
    projection.project(played[3])
    assert list(projection._cache) == [played[0].pk, played[3].pk]
    assert projection._kept_size[0] == sizes[0] + sizes[3] <= sum(sizes)
    settings.PROJECTION_EVENTS = 1  # smaller than any fold: the one read now is kept
    projection.project(played[1])
    assert list(projection._cache) == [played[1].pk]
    assert projection._kept_size[0] == sizes[1]
    for table in played:  # a table that left is folded again to the same state
        assert projection.project(table).version == selectors.current_version(table)
    projection.forget(played[3])
    assert projection._kept_size[0] == 0 and not projection._cache
