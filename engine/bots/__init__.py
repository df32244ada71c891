"""Computer players. A bot is a function of one seat's view and an rng, nothing else.

``decide(view, level, rng)`` returns one of ``view["legal"]``. Levels, weakest first:
"random", "greedy", "medium", "strong", "expert" (see the module of each level).
"""

from __future__ import annotations

import random

from engine.bots import expert, greedy, medium, random_bot, strong

LEVELS = ("random", "greedy", "medium", "strong", "expert")

_DECIDERS = {
    "random": random_bot.decide,
    "greedy": greedy.decide,
    "medium": medium.decide,
    "strong": strong.decide,
    "expert": expert.decide,
}


def decider(level: str):
    """The decision function ``f(view, rng) -> event`` of a level (no checks, for loops
    that call it many times with their own rng)."""
    if level not in _DECIDERS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    return _DECIDERS[level]


def decide(view: dict, level: str, rng: random.Random | None = None) -> dict:
    """One legal event for ``view["seat"]``; deterministic for a seeded ``rng``.

    Without an rng the decision still depends on the view only: the rng is seeded from
    the view's public state and own hand, so a hint repeated on the same view agrees.
    """
    if level not in _DECIDERS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("the seat has no legal event now")
    if rng is None:
        rng = random.Random(_view_seed(view))
    return _DECIDERS[level](view, rng)


def _view_seed(view: dict) -> str:
    turns = ";".join(
        f"{t['seat']}{t.get('tile', 'p')}{t.get('end') or ''}" for t in view.get("turns") or ()
    )
    return f"{view.get('seat')}|{view.get('hand_no')}|{','.join(view.get('hand') or ())}|{turns}"


__all__ = ["LEVELS", "decide", "decider"]
