"""Ladder test helpers: bots on the ladder and its legs played out in-process."""

from __future__ import annotations

import random

import pytest

from engine.bots import decide
from server.ladder.models import Leg
from server.tables import projection, seeds, selectors
from server.tables import services as table_services
from server.tables.models import Seat


@pytest.fixture(autouse=True)
def fresh_projection_cache():
    projection.forget()
    selectors.forget_full_tables()
    yield
    projection.forget()
    selectors.forget_full_tables()


@pytest.fixture
def seeded_deals(monkeypatch):
    """The pairs' deal seeds (and the tables') from a generator seeded alike in every
    test that asks: the same ladder whatever the test's name (each test's own deals are
    reproducible anyway: tests/conftest.py, ``deals_of_this_test``)."""
    rng = random.Random(2026)
    monkeypatch.setattr(seeds, "new_seed", lambda: f"{rng.getrandbits(256):064x}")


@pytest.fixture
def fast_ladder(settings):
    """The two fastest house levels as anchors; legs of a real length."""
    settings.DEKABES_LADDER_LEVELS = ("random", "medium")
    settings.DEKABES_LADDER_MATCHES_PER_DAY = 48
    return settings


def playing_legs() -> list[Leg]:
    return list(Leg.objects.filter(match__status="playing").select_related("match__table"))


def play_leg(
    leg: Leg, levels: dict[int, str], rng: random.Random, skip: frozenset[int] = frozenset()
) -> bool:
    """Play the leg's table to its end, each seat by its holder's level (``levels`` by
    account id; a house player by its own), through the table service. A holder in
    ``skip`` never moves: the leg stops when only that holder can act (False)."""
    table = leg.match.table
    while True:
        state = projection.project(table)
        if state.match.phase == "match_over" or state.stopped:
            return True
        holders = {
            s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")
        }
        waiting = False
        for number in (1, 2, 3, 4):
            if not state.match.legal_events(number):
                continue
            player = holders[number]
            if player.pk in skip:
                waiting = True
                continue
            level = player.hosted_level or levels[player.pk]
            event = decide(state.match.seat_view(number), level, rng)
            body = {k: v for k, v in event.items() if k != "seat"}
            body["expected_version"] = state.version
            table_services.do_action(user=player, table=table, seat=number, action=body, key=None)
            break
        else:
            if waiting:
                return False
            raise AssertionError("nobody can act")
