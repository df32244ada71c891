"""Figures for the strong bot's decision time (printed by ``python -m engine bench``).

Decision views come from real matches folded by ``engine.Match``: four strong bots
play, and every decision that is not forced (more than one legal event, opener choices
included) is timed. Forced decisions are timed apart: they should cost next to nothing.
"""

from __future__ import annotations

import random
import time

from engine.bots import decide
from engine.match import Match, deal_event


def strong_decision_times(n_decisions: int = 200, seed: int = 1) -> dict:
    """Wall time of ``n_decisions`` non-forced strong decisions: p50/p95/max in ms."""
    rng = random.Random(f"dekabes-bench|{seed}")
    timed: list[float] = []
    forced: list[float] = []
    while len(timed) < n_decisions:
        _time_match(rng, timed, forced, n_decisions)
    return {
        "decisions": len(timed),
        "p50_ms": _ms(_quantile(timed, 0.50)),
        "p95_ms": _ms(_quantile(timed, 0.95)),
        "max_ms": _ms(max(timed)),
        "mean_ms": _ms(sum(timed) / len(timed)),
        "forced_decisions": len(forced),
        "forced_p50_ms": _ms(_quantile(forced, 0.50)) if forced else None,
        "seed": seed,
    }


def _time_match(rng: random.Random, timed: list[float], forced: list[float], wanted: int) -> None:
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
            event = decide(view, "strong", bot_rng)
            elapsed = time.perf_counter() - started
            if view["phase"] in ("play", "choose_opener"):
                (timed if len(legal) > 1 else forced).append(elapsed)
            m.apply(event)
            if m.phase != "accept":
                break


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _ms(seconds: float) -> float:
    return round(seconds * 1000.0, 2)
