"""Level "random": a uniformly random legal event (but it claims a redeal when entitled)."""

from __future__ import annotations

import random

from engine.bots.common import deal_decision


def decide(view: dict, rng: random.Random) -> dict:
    if view["phase"] == "accept":
        return deal_decision(view)
    legal = view["legal"]
    return legal[rng.randrange(len(legal))]
