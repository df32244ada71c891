"""Web page fixtures: finished and live matches in-process, and (for the browser tests)
a live Daphne with a seeded club and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from tests.server.conftest import PASSWORD, Players

TILE_TEXT = re.compile(r"(?<![\d.-])[0-6]-[0-6](?![\d-])")


def tiles_in(text: str) -> set[str]:
    """Every tile written in a text (``3-5``), dates and numbers aside."""
    return set(TILE_TEXT.findall(text))


def finish(p: Players, seed: int = 1, limit: int = 3000) -> Players:
    rng = random.Random(seed)
    for _ in range(limit):
        if p.step(rng) is None:
            return p
    raise AssertionError("the match did not end")


def advance_to_hand(p: Players, hand_no: int, seed: int = 2) -> Players:
    """Play until hand ``hand_no`` is under way (its first tile laid)."""
    rng = random.Random(seed)
    for _ in range(3000):
        view = p.seat(1)["view"]
        if view["phase"] == "match_over":
            raise AssertionError("the match ended first")
        if view["hand_no"] == hand_no and view["phase"] == "play" and view["line"]:
            return p
        p.step(rng)
    raise AssertionError("never reached the hand")


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def finished(db) -> Players:
    return finish(Players(kinds=("human", "bot", "bot", "bot")))
