"""Figures printed by ``python -m engine bench``: bot decision times, self-play speed.

Decision views come from real matches folded by ``engine.Match``: four bots of the
level play, and every decision that is not forced (more than one legal event, opener
choices included) is timed. Forced decisions are timed apart: they should cost next to
nothing. Self-play speed is given for the path users run (``simulate``: the fold, lazy
seat views, the bots' ``decide``) next to the bare core loop (``core.random_hand``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine.autoplay import autoplay, new_bot_match
from engine.bots import decider


def strong_decision_times(n_decisions: int = 200, seed: int = 1) -> dict[str, Any]:
    """Wall time of ``n_decisions`` non-forced strong decisions: p50/p95/max in ms."""
    return decision_times("strong", n_decisions, seed)


def decision_times(
    level: str,
    n_decisions: int = 200,
    seed: int = 1,
    against: str | None = None,
    iterations: int | None = None,
) -> dict[str, Any]:
    """Wall time of ``n_decisions`` non-forced decisions of ``level``: p50/p95/max in ms.

    The expert runs on its default budget (its time limit per decision), or on exactly
    ``iterations`` worlds with no clock. ``against``: the level of seats 2 and 4 (their
    decisions are not timed); by default all four seats play ``level``."""
    rng = random.Random(f"dekabes-bench|{seed}")
    timed: list[float] = []
    forced: list[float] = []
    cpu: list[float] = []
    while len(timed) < n_decisions:
        _time_match(rng, timed, forced, n_decisions, level, cpu, against, iterations)
    out = {
        "decisions": len(timed),
        "p50_ms": _ms(_quantile(timed, 0.50)),
        "p95_ms": _ms(_quantile(timed, 0.95)),
        "max_ms": _ms(max(timed)),
        "mean_ms": _ms(sum(timed) / len(timed)),
        # CPU time of the same decisions: what they cost whatever the machine's load
        "cpu_p50_ms": _ms(_quantile(cpu, 0.50)),
        "cpu_p95_ms": _ms(_quantile(cpu, 0.95)),
        "cpu_max_ms": _ms(max(cpu)),
        "forced_decisions": len(forced),
        "forced_p50_ms": _ms(_quantile(forced, 0.50)) if forced else None,
        "seed": seed,
        "level": level,
    }
    if against is not None:
        out["against"] = against
    if iterations is not None:
        out["iterations"] = iterations
    return out


def _time_match(
    rng: random.Random,
    timed: list[float],
    forced: list[float],
    wanted: int,
    level: str = "strong",
    cpu: list[float] | None = None,
    against: str | None = None,
    iterations: int | None = None,
) -> None:
    """One match of ``level`` bots (``autoplay``; ``against`` in seats 2 and 4), each
    decision of ``level`` timed."""
    choose = decider(level)
    bot_rng = random.Random(rng.getrandbits(64))
    if iterations is not None and level == "expert":
        from engine.bots.expert import Budget, decide

        budget = Budget(iterations=iterations, seconds=None)

        def choose(view: Mapping[str, Any], r: random.Random) -> dict[str, Any]:
            return decide(view, r, budget)

    def timed_player(view: Mapping[str, Any]) -> dict[str, Any]:
        legal, phase = view["legal"], view["phase"]
        started, cpu_started = time.perf_counter(), time.process_time()
        event = choose(view, bot_rng)
        elapsed = time.perf_counter() - started
        if phase in ("play", "choose_opener"):
            (timed if len(legal) > 1 else forced).append(elapsed)
            if len(legal) > 1 and cpu is not None:
                cpu.append(time.process_time() - cpu_started)
        return event

    players: list[Any] = [timed_player] * 4
    if against is not None:
        other = decider(against)
        other_rng = random.Random(rng.getrandbits(64))

        def other_player(view: Mapping[str, Any]) -> dict[str, Any]:
            return other(view, other_rng)

        players[1] = players[3] = other_player
    autoplay(new_bot_match(), players, rng, stop=lambda m: len(timed) >= wanted)
    del timed[wanted:]
    if cpu is not None:
        del cpu[wanted:]


def expert_worlds_per_second(
    n_decisions: int = 40, worlds: int = 100, seed: int = 1
) -> dict[str, Any]:
    """The expert's search speed: ``n_decisions`` non-forced play decisions of strong
    self-play, each valued by ``expert.move_values`` on exactly ``worlds`` worlds (no
    clock); worlds per CPU second (a world: one sampled deal, every legal move searched
    in it). The views and the search are seeded: the figure depends on the code and the
    machine only."""
    from engine.bots import expert
    from engine.bots.knowledge import read_view

    views: list[dict[str, Any]] = []
    choose = decider("strong")
    rng = random.Random(f"dekabes-worlds|{seed}")
    bot_rng = random.Random(rng.getrandbits(64))

    def collecting(view: Mapping[str, Any]) -> dict[str, Any]:
        if view["phase"] == "play" and len(view["legal"]) > 1 and len(views) < n_decisions:
            views.append(dict(view))
        return choose(view, bot_rng)

    while len(views) < n_decisions:
        autoplay(new_bot_match(), [collecting] * 4, rng, stop=lambda m: len(views) >= n_decisions)
    budget = expert.Budget(iterations=worlds, seconds=None)
    searched = 0
    cpu = time.process_time()
    for index, view in enumerate(views):
        know = read_view(view)
        _, done = expert.move_values(view, know, view["legal"], random.Random(index), budget)
        searched += done
    cpu = time.process_time() - cpu
    return {
        "decisions": len(views),
        "worlds": searched,
        "worlds_per_second_cpu": round(searched / cpu) if cpu > 0 else None,
        "seed": seed,
    }


def simulate_hands_per_second(
    hands: int = 5000, bots: Sequence[str] = ("random",) * 4
) -> dict[str, Any]:
    """Hands per second of ``simulate`` in this process (the path users run)."""
    from engine.simulate import simulate

    cpu = time.process_time()
    wall = time.perf_counter()
    simulate(list(bots), hands=hands, seed=1)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    return {
        "bots": list(bots),
        "hands": hands,
        "hands_per_second_wall": round(hands / wall),
        "hands_per_second_cpu": round(hands / cpu),
    }


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)
