"""Snapshots of a table's folded state (server.tables.projection): a cold read starts from
the newest one and folds only the events after it, to exactly the state a full fold of
the log gives. Snapshots are disposable: a dropped, foreign or unreadable one changes
nothing but the time of the next cold read."""

from __future__ import annotations

import random

import pytest

from engine import Match
from server.tables import projection, store
from server.tables.models import Event, TableSnapshot
from server.tables.table_state import TableState
from tests.server.conftest import Players

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

EVERY = 8  # small, so that a short game writes several snapshots


@pytest.fixture(autouse=True)
def frequent_snapshots(monkeypatch):
    monkeypatch.setattr(projection, "SNAPSHOT_EVERY", EVERY)


def played(steps: int, seed: int) -> Players:
    """Four human seats held by the owner (undo allowed), ``steps`` actions, some undos."""
    p = Players(kinds=("human", "human", "human", "human"))
    rng = random.Random(seed)
    for _ in range(steps):
        body = p.seat(1)
        if "undo" in body["allowed"] and rng.random() < 0.15:
            response = p.act(1, {"type": "undo", "expected_version": body["version"]})
            assert response.status_code == 200, response.content
        elif p.step(rng) is None:
            break
    return p


def full_fold(p: Players) -> TableState:
    state = TableState(Match())
    for seq, payload in (
        Event.objects.filter(table=p.table).order_by("seq").values_list("seq", "payload")
    ):
        state.fold(seq, payload)
    return state


def same_state(a: TableState, b: TableState) -> None:
    assert (a.version, a.paused_by, a.revealed, a.annulled) == (
        b.version,
        b.paused_by,
        b.revealed,
        b.annulled,
    )
    for seat in (1, 2, 3, 4):
        assert a.match.seat_view(seat) == b.match.seat_view(seat)
    assert (a.match.can_undo(), a.match.can_redo()) == (b.match.can_undo(), b.match.can_redo())


def test_a_cold_read_starts_from_the_newest_snapshot_and_gives_the_same_views():
    p = played(40, seed=3)
    views = [p.seat(n) for n in (1, 2, 3, 4)]
    version = views[0]["version"]
    snapshots = list(TableSnapshot.objects.filter(table=p.table).values_list("seq", flat=True))
    assert len(snapshots) == 1, "only the newest snapshot is kept"
    assert version - EVERY < snapshots[0] <= version

    projection.forget()  # the cache goes; the snapshot row stays
    start = projection._from_snapshot(p.table.pk)
    assert start is not None and start.version == snapshots[0]
    projection.forget()
    assert [p.seat(n) for n in (1, 2, 3, 4)] == views

    projection.forget(snapshots=True)  # both go: the whole log is folded again
    assert not TableSnapshot.objects.filter(table=p.table).exists()
    assert [p.seat(n) for n in (1, 2, 3, 4)] == views


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_a_state_from_a_snapshot_plays_on_exactly_like_a_full_fold(seed):
    """Undo history included: undo, redo and play after the snapshot match the full fold."""
    p = played(45, seed=seed)
    from_snapshot = projection._from_snapshot(p.table.pk)
    assert from_snapshot is not None
    for seq, payload in store.events_after(p.table.pk, from_snapshot.version):
        from_snapshot.fold(seq, payload)
    full = full_fold(p)
    same_state(from_snapshot, full)
    rng = random.Random(seed)
    for step in range(30):
        m = full.match
        if m.phase == "match_over":
            break
        if m.can_undo() and step % 4 == 0:
            event = {"type": "undo", "seat": 1}
        elif m.can_redo() and step % 5 == 0:
            event = {"type": "redo", "seat": 1}
        elif m.needs_deal():
            break  # the server deals from its secret seed: out of this test's hands
        else:
            seat = m.to_act or next(n for n in (1, 2, 3, 4) if m.legal_events(n))
            event = rng.choice(m.legal_events(seat))
        full.fold(full.version + 1, event)
        from_snapshot.fold(from_snapshot.version + 1, event)
        same_state(from_snapshot, full)


def test_a_snapshot_is_never_shared_with_the_cache_or_the_caller():
    p = played(20, seed=4)
    a = projection._from_snapshot(p.table.pk)
    b = projection._from_snapshot(p.table.pk)
    assert a is not None and b is not None and a is not b
    a.fold(a.version + 1, {"type": "pause", "seat": 2})
    fresh = projection._from_snapshot(p.table.pk)
    same_state(b, fresh)
    assert 2 not in fresh.paused_by


def test_an_unreadable_snapshot_is_ignored_and_the_log_folded():
    p = played(30, seed=6)
    views = [p.seat(n) for n in (1, 2, 3, 4)]
    TableSnapshot.objects.filter(table=p.table).update(state=b"not a pickle")
    projection.forget()
    assert projection._from_snapshot(p.table.pk) is None
    assert [p.seat(n) for n in (1, 2, 3, 4)] == views


def test_a_snapshot_written_by_other_code_is_never_read(monkeypatch):
    """The format is a hash of the engine's and the projection's source: a changed engine
    never unpickles a state the old one wrote."""
    p = played(30, seed=7)
    views = [p.seat(n) for n in (1, 2, 3, 4)]
    assert projection._from_snapshot(p.table.pk) is not None
    monkeypatch.setattr(projection, "SNAPSHOT_FORMAT", "another engine")
    projection.forget()
    assert projection._from_snapshot(p.table.pk) is None
    assert [p.seat(n) for n in (1, 2, 3, 4)] == views
    # The new code writes its own snapshot on that cold read; the old one goes.
    formats = set(TableSnapshot.objects.filter(table=p.table).values_list("format", flat=True))
    assert formats == {"another engine"}


def test_the_format_is_a_hash_of_the_engine_source():
    assert len(projection.SNAPSHOT_FORMAT) == 32
    assert projection.SNAPSHOT_FORMAT == projection._source_hash()


def test_a_state_that_does_not_pickle_or_a_failed_write_never_fails_an_action(monkeypatch):
    def refuse(*args, **kwargs):
        raise TypeError("cannot pickle this")

    monkeypatch.setattr(projection.pickle, "dumps", refuse)
    p = played(12, seed=8)  # past a snapshot mark: every action still answered 200
    assert not TableSnapshot.objects.filter(table=p.table).exists()
    monkeypatch.undo()
    monkeypatch.setattr(projection, "SNAPSHOT_EVERY", EVERY)
    monkeypatch.setattr(projection, "SNAPSHOT_FORMAT", "x" * 65)  # too long for PostgreSQL
    views = [p.seat(n) for n in (1, 2, 3, 4)]
    projection.forget()
    assert [p.seat(n) for n in (1, 2, 3, 4)] == views


@pytest.mark.parametrize("seed", [1, 2])
def test_the_state_kept_after_actions_is_the_fold_of_the_log(seed):
    """What an action leaves in the cache (folded one event at a time as it was appended)
    is, field by field, what a fold of the log gives: once, the deals of the match in play
    (``match_deals``) were left behind by the action path's fold."""
    p = played(30, seed=seed)
    kept = projection.project(p.table)  # the cached fold, kept by the last action
    folded = full_fold(p)
    same_state(kept, folded)
    fields = ("paused_at", "takeback", "watchable", "forfeited", "handovers", "hand_deals")
    assert [getattr(kept, f) for f in fields] == [getattr(folded, f) for f in fields]
    assert kept.match_deals == folded.match_deals and folded.match_deals
