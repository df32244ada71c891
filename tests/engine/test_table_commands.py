"""``engine.table_commands``: what it lists is exactly what the match accepts, state by
state, over random matches with table commands mixed in."""

from __future__ import annotations

import random

import pytest

from engine import IllegalEventError, Match
from engine.table_commands import (
    SEAT_EVENT_TYPES,
    TABLE_COMMANDS,
    available_commands,
    seats_to_act,
)
from tests.engine.helpers import BOTS, random_event, start


def accepted_commands(m: Match) -> list[str]:
    """The table commands a copy of ``m`` really accepts (the engine's own answer)."""
    accepted = []
    for kind in TABLE_COMMANDS:
        trial = m.copy()
        try:
            trial.apply({"type": kind, "seat": 1})
        except IllegalEventError:
            continue
        accepted.append(kind)
    return accepted


def seats_with_a_move(m: Match) -> list[int]:
    return [seat for seat in (1, 2, 3, 4) if m.legal_events(seat)]


def states(seed: int, rated: bool = False, size: int = 400):
    """Every state of a random match (table commands now and then, when not rated)."""
    rng = random.Random(seed)
    m = Match()
    m.apply(start(rated=rated))
    yield m
    for _ in range(size):
        roll = rng.random()
        if m.phase == "match_over":
            event = {"type": "new_match", "seat": 1} if not rated else None
            if event is None:
                return
        elif not rated and roll < 0.08:
            event = {"type": rng.choice(TABLE_COMMANDS), "seat": 1}
        else:
            event = random_event(m, rng)
        try:
            m.apply(event)
        except IllegalEventError:
            continue  # a command the state refuses: try something else
        yield m


@pytest.mark.parametrize("seed", range(6))
def test_the_commands_listed_are_the_ones_the_match_accepts(seed):
    seen = set()
    for m in states(seed):
        listed = available_commands(m)
        assert listed == accepted_commands(m), (m.phase, listed)
        seen.update(listed)
    assert seen == set(TABLE_COMMANDS)  # every command was listed somewhere


@pytest.mark.parametrize("seed", range(6))
def test_the_seats_to_act_are_the_seats_with_a_legal_move(seed):
    phases = set()
    for m in states(seed):
        views = [m.seat_view(seat) for seat in (1, 2, 3, 4)]
        expected = seats_with_a_move(m)
        assert all(seats_to_act(view) == expected for view in views), (m.phase, expected)
        phases.add(m.phase)
    assert {"deal", "accept", "play"} <= phases


def test_a_rated_match_lists_no_command():
    for m in states(3, rated=True, size=200):
        assert available_commands(m) == [] == accepted_commands(m)


def test_nothing_before_the_match_starts():
    assert available_commands(Match()) == []
    assert seats_to_act({}) == []


def test_in_an_accept_phase_the_seats_still_to_accept_must_act():
    view = {"phase": "accept", "accepted": {"1": True, "2": False, "3": True, "4": False}}
    assert seats_to_act(view) == [2, 4]
    assert seats_to_act({"phase": "match_over", "to_act": None}) == []


def test_seat_events_and_table_commands_are_every_event_a_client_sends():
    assert set(SEAT_EVENT_TYPES) == {"accept", "claim_redeal", "choose_opener", "play", "pass"}
    assert not set(SEAT_EVENT_TYPES) & set(TABLE_COMMANDS)


def test_a_bots_only_match_asks_for_its_seats_too():
    rng = random.Random(5)
    m = Match()
    m.apply(start(BOTS))
    while m.phase != "match_over":
        assert seats_to_act(m.view(1)) == seats_with_a_move(m)
        m.apply(random_event(m, rng))
