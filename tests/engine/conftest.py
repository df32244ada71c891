"""Engine tests run the expert on an iteration cap, never on its clock (reproducible,
and fast enough for tests that try every level)."""

from __future__ import annotations

import pytest

from engine.bots import expert

TEST_BUDGET = expert.Budget(iterations=8, seconds=None)


@pytest.fixture(autouse=True)
def expert_on_an_iteration_cap(monkeypatch):
    monkeypatch.setattr(expert, "DEFAULT_BUDGET", TEST_BUDGET)
