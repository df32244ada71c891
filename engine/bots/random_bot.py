"""Level "random": a uniformly random legal event (but it claims a redeal when entitled)."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.bots.common import Event, View, deal_decision


def decide(view: View, rng: random.Random) -> Event:
    if view["phase"] == "accept":
        return deal_decision(view)
    legal: list[Event] = view["legal"]
    return legal[rng.randrange(len(legal))]


def picker(rng: random.Random) -> Callable[[str, int], int]:
    """``decide``'s choice as an index into the listed legal events, from their number
    alone (see ``Match.advance``): self-play with this level needs no seat view.

    Same rng draws as ``decide``, so both paths give the same match. In the accept
    phase the second listed event, when there is one, is the redeal claim.
    """
    # randrange(n) is _randbelow(n) for n >= 1: the same draws, a call less per move
    randrange: Callable[[int], int] = (
        getattr(rng, "_randbelow") if type(rng) is random.Random else rng.randrange  # noqa: B009
    )

    def pick(phase: str, count: int) -> int:
        if phase == "accept":
            return count - 1
        return randrange(count)

    return pick
