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


def decision_times(level: str, n_decisions: int = 200, seed: int = 1) -> dict[str, Any]:
    """Wall time of ``n_decisions`` non-forced decisions of ``level``: p50/p95/max in ms.

    The expert runs on its default budget (its time limit per decision)."""
    rng = random.Random(f"dekabes-bench|{seed}")
    timed: list[float] = []
    forced: list[float] = []
    cpu: list[float] = []
    while len(timed) < n_decisions:
        _time_match(rng, timed, forced, n_decisions, level, cpu)
    return {
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


def _time_match(
    rng: random.Random,
    timed: list[float],
    forced: list[float],
    wanted: int,
    level: str = "strong",
    cpu: list[float] | None = None,
) -> None:
    """One match of four ``level`` bots (``autoplay``), each decision timed."""
    choose = decider(level)
    bot_rng = random.Random(rng.getrandbits(64))

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

    autoplay(new_bot_match(), [timed_player] * 4, rng, stop=lambda m: len(timed) >= wanted)
    del timed[wanted:]
    if cpu is not None:
        del cpu[wanted:]


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
