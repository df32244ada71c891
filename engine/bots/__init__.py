"""Computer players. A bot is a function of one seat's view and an rng, nothing else.

``decide(view, level, rng)`` returns one of ``view["legal"]``. Levels, weakest first:
"random", "greedy", "medium", "strong", "expert" (see the module of each level).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

LEVELS = ("random", "greedy", "medium", "strong", "expert")
# level -> its module; imported on first use (self-play with random bots starts quickly)
_MODULES = {
    "random": "engine.bots.random_bot",
    "greedy": "engine.bots.greedy",
    "medium": "engine.bots.medium",
    "strong": "engine.bots.strong",
    "expert": "engine.bots.expert",
}

Decide = Callable[..., dict[str, Any]]


def decider(level: str) -> Decide:
    """The decision function ``f(view, rng) -> event`` of a level (no checks, for loops
    that call it many times with their own rng)."""
    decide: Decide = _level_module(level).decide
    return decide


def picker(level: str, rng: random.Random) -> Callable[[str, int], int] | None:
    """The level's ``pick(phase, count) -> index`` bound to ``rng`` (see
    ``Match.advance``), or None for a level that must read the view."""
    if level != "random":
        return None
    pick: Callable[[str, int], int] = _level_module(level).picker(rng)
    return pick


def _level_module(level: str) -> ModuleType:
    module = _LOADED.get(level)
    if module is None:
        if level not in _MODULES:
            raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
        module = _LOADED[level] = importlib.import_module(_MODULES[level])
    return module


_LOADED: dict[str, ModuleType] = {}  # level -> its module once imported (asked per match)


def decide(view: Mapping[str, Any], level: str, rng: random.Random | None = None) -> dict[str, Any]:
    """One legal event for ``view["seat"]``; deterministic for a seeded ``rng``.

    Without an rng the decision still depends on the view only: the rng is seeded from
    the view's public state and own hand, so a hint repeated on the same view agrees.
    """
    choose = decider(level)
    legal = view.get("legal") or []
    if not legal:
        raise ValueError("the seat has no legal event now")
    if rng is None:
        rng = random.Random(_view_seed(view))
    return choose(view, rng)


def _view_seed(view: Mapping[str, Any]) -> str:
    turns = ";".join(
        f"{t['seat']}{t.get('tile', 'p')}{t.get('end') or ''}" for t in view.get("turns") or ()
    )
    return f"{view.get('seat')}|{view.get('hand_no')}|{','.join(view.get('hand') or ())}|{turns}"


__all__ = ["LEVELS", "Decide", "decide", "decider", "picker"]
