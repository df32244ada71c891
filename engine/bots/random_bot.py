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


class RandomPicker:
    """``decide``'s choice as an index into the listed legal events, from their number
    alone (see ``Match.advance``): self-play with this level needs no seat view.

    Same rng draws as ``decide``, so both paths give the same match. In the accept
    phase the second listed event, when there is one, is the redeal claim. ``randbits``
    (a ``random.Random``'s own ``getrandbits``, else None) tells the fold that a play
    choice is ``rng.randrange(count)``, so it may draw that number itself.
    """

    __slots__ = ("randbits", "_randrange")
    claims = True  # the accept phase's choice is count - 1, without a draw (``Match.advance``)

    def __init__(self, rng: random.Random) -> None:
        exact = type(rng) is random.Random
        self.randbits: Callable[[int], int] | None = rng.getrandbits if exact else None
        # randrange(n) is _randbelow(n) for n >= 1: the same draws, a call less per move
        self._randrange: Callable[[int], int] = (
            getattr(rng, "_randbelow") if exact else rng.randrange  # noqa: B009
        )

    def __call__(self, phase: str, count: int) -> int:
        if phase == "accept":
            return count - 1
        return self._randrange(count)


def picker(rng: random.Random) -> Callable[[str, int], int]:
    """The level's picker bound to ``rng`` (``RandomPicker``)."""
    return RandomPicker(rng)
