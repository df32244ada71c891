"""Copies of a match are independent: folding events into one never changes another.

The server keeps a cached projection per table and folds new events into copies of it
(one per request thread, one per process catching up); a copy that shares a mutable
state object with another corrupts both.
"""

from __future__ import annotations

import random

import pytest

from engine import Match
from tests.engine.helpers import random_event, self_play

UNDO = {"type": "undo", "seat": 1}


def _at_an_undoable_point(seed: int) -> tuple[list[dict], Match]:
    """A record played at random until a human action can be taken back."""
    rng = random.Random(seed)
    events, m = self_play(seed, max_events=1)
    while not m.can_undo() or rng.random() < 0.5:
        event = random_event(m, rng)
        m.apply(event)
        events.append(event)
    return events, m


@pytest.mark.parametrize("seed", range(40))
def test_undo_then_more_play_leaves_a_copy_untouched(seed):
    events, m = _at_an_undoable_point(seed)
    copy = m.copy()
    m.apply(UNDO)
    rng = random.Random(seed + 1000)
    for _ in range(6):  # play on from the restored state in the original
        if m.phase == "match_over":
            break
        m.apply(random_event(m, rng))
    copy.apply(UNDO)  # the copy restores the same checkpoint
    fresh = Match.from_events(events + [UNDO])
    assert [copy.seat_view(s) for s in (1, 2, 3, 4)] == [fresh.seat_view(s) for s in (1, 2, 3, 4)]
    assert copy.to_act == fresh.to_act


@pytest.mark.parametrize("seed", range(20))
def test_a_copy_taken_after_undo_is_independent(seed):
    events, m = _at_an_undoable_point(seed)
    m.apply(UNDO)
    copy = m.copy()
    before = [copy.seat_view(s) for s in (1, 2, 3, 4)]
    rng = random.Random(seed + 2000)
    for _ in range(6):
        if m.phase == "match_over":
            break
        m.apply(random_event(m, rng))
    assert [copy.seat_view(s) for s in (1, 2, 3, 4)] == before


@pytest.mark.parametrize("seed", range(10))
def test_kept_size_counts_what_a_match_holds_and_what_undo_moves(seed):
    """``kept_size``: what a kept match's memory grows with (the server bounds its folds
    by it): each event since the match began, a state per undoable one, taken-back ones."""
    assert Match().kept_size() == 0
    events, m = _at_an_undoable_point(seed)
    held = m.kept_size()
    assert held >= len(events) and m.copy().kept_size() == held
    m.apply(UNDO)  # one checkpoint used up; its events move to the redo stack
    assert m.kept_size() == held - 1
    m.apply({"type": "redo", "seat": 1})
    assert m.kept_size() == held  # the segment and its checkpoint are back
    m.apply({"type": "new_match", "seat": 1})
    assert m.kept_size() <= 1  # a new match holds nothing of the old one
