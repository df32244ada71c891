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

from engine.bots import decide
from engine.match import Match, deal_event


def strong_decision_times(n_decisions: int = 200, seed: int = 1) -> dict:
    """Wall time of ``n_decisions`` non-forced strong decisions: p50/p95/max in ms."""
    return decision_times("strong", n_decisions, seed)


def decision_times(level: str, n_decisions: int = 200, seed: int = 1) -> dict:
    """Wall time of ``n_decisions`` non-forced decisions of ``level``: p50/p95/max in ms.

    The expert runs on its default budget (its time limit per decision)."""
    rng = random.Random(f"dekabes-bench|{seed}")
    timed: list[float] = []
    forced: list[float] = []
    while len(timed) < n_decisions:
        _time_match(rng, timed, forced, n_decisions, level)
    return {
        "decisions": len(timed),
        "p50_ms": _ms(_quantile(timed, 0.50)),
        "p95_ms": _ms(_quantile(timed, 0.95)),
        "max_ms": _ms(max(timed)),
        "mean_ms": _ms(sum(timed) / len(timed)),
        "forced_decisions": len(forced),
        "forced_p50_ms": _ms(_quantile(forced, 0.50)) if forced else None,
        "seed": seed,
        "level": level,
    }


def _time_match(rng: random.Random, timed: list[float], forced: list[float], wanted: int,
                level: str = "strong") -> None:
    bot_rng = random.Random(rng.getrandbits(64))
    m = Match()
    m.apply({"type": "match_started", "seats": {str(s): "bot" for s in range(1, 5)},
             "rated": False})
    while m.phase != "match_over" and len(timed) < wanted:
        if m.needs_deal():
            m.apply(deal_event(rng))
            continue
        seats = range(1, 5) if m.phase == "accept" else (m.to_act,)
        for seat in seats:
            legal = m.legal_events(seat)
            if not legal:
                continue
            view = m.seat_view(seat)
            started = time.perf_counter()
            event = decide(view, level, bot_rng)
            elapsed = time.perf_counter() - started
            if view["phase"] in ("play", "choose_opener"):
                (timed if len(legal) > 1 else forced).append(elapsed)
            m.apply(event)
            if m.phase != "accept":
                break


def simulate_hands_per_second(hands: int = 5000, bots=("random",) * 4) -> dict:
    """Hands per second of ``simulate`` in this process (the path users run)."""
    from engine.simulate import simulate

    cpu = time.process_time()
    wall = time.perf_counter()
    simulate(list(bots), hands=hands, seed=1)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    return {"bots": list(bots), "hands": hands, "hands_per_second_wall": round(hands / wall),
            "hands_per_second_cpu": round(hands / cpu)}


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)
