"""Post-match analysis: for every decision of a record, what the expert would have
played from that seat's view at that moment, and what the choice cost.

``analyse(events)`` folds the record event by event (``engine.replay.Replay``). Before
each ``play`` by a seat that had more than one legal move (and each ``choose_opener``),
it takes that seat's view — only what the seat could see then — and lets the expert
value every legal move (``expert.move_values``, a fixed number of worlds, no clock,
seeded from ``seed`` and the event's index): the estimated probability that the seat's
team wins the match after each move. The loss of a decision is best minus played.

Deterministic for a given record, seed and number of iterations. Output is plain JSON
(documented in docs/engine.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from engine.bots import expert
from engine.bots.knowledge import read_view
from engine.bots.strong import choose_opener_values
from engine.fold import Match
from engine.phases import CHOOSE_OPENER, SEAT_TO_ACT
from engine.replay import Replay
from engine.seats import SEATS, team_of

# Bumped whenever the analysis of a record could change (the expert's search, the
# sampling, the marks): the server re-analyses what an older version computed.
ANALYSIS_VERSION = 1
DEFAULT_ITERATIONS = 60
MISTAKES_SHOWN = 3
# A move within this much of the best counts as accurate (the estimate's own noise).
ACCURATE_WITHIN = 0.01
# The marks of a decision, by its loss in the probability that the seat's team wins the
# match (best minus played): under 0.02 "good", under 0.05 "inaccuracy", under 0.10
# "mistake", else "blunder" (docs/engine.md).
MARKS: tuple[tuple[float, str], ...] = (
    (0.02, "good"),
    (0.05, "inaccuracy"),
    (0.10, "mistake"),
)
BLUNDER = "blunder"


def mark(loss: float) -> str:
    """The mark of a decision that lost ``loss`` (see ``MARKS``)."""
    for below, name in MARKS:
        if loss < below:
            return name
    return BLUNDER


def analyse(
    events: Iterable[dict[str, Any]], iterations: int = DEFAULT_ITERATIONS, seed: int = 1
) -> dict[str, Any]:
    """The analysis of a record (a list of events); raises ``IllegalEventError``."""
    budget = expert.Budget(iterations=iterations, seconds=None)
    replay = Replay()
    decisions = []
    for event in events:
        match, index = replay.match, replay.index
        decision = None
        if (
            isinstance(event, dict)
            and event.get("type") in ("play", "choose_opener")
            and match.phase in SEAT_TO_ACT
            and event.get("seat") == match.to_act
        ):
            decision = _decision(match, index, event, budget, seed)
        replay.apply(event)  # a refused event raises with its index
        if decision is not None:
            decisions.append(decision)
    return {
        "version": ANALYSIS_VERSION,
        "iterations": iterations,
        "seed": seed,
        "decisions": decisions,
        "seats": _summaries(decisions),
    }


def _decision(
    match: Match, index: int, event: dict[str, Any], budget: expert.Budget, seed: int
) -> dict[str, Any] | None:
    seat = event["seat"]
    view = match.seat_view(seat)
    legal = view["legal"]
    if len(legal) < 2:
        return None
    played = _index_of(event, legal)
    if played is None:
        return None  # not a legal event: the fold will refuse it
    rng = random.Random(f"dekabes-analyse|{seed}|{index}")
    know = read_view(view)
    if view["phase"] == CHOOSE_OPENER:
        values = choose_opener_values(know, rng, worlds=budget.iterations * 10)
        means = [values[e["opener"] - 1] for e in legal]
    else:
        means, _ = expert.move_values(view, know, legal, rng, budget)
    best = max(range(len(legal)), key=lambda i: (means[i], -i))
    return {
        "at": index,
        "hand_no": view["hand_no"],
        "seat": seat,
        "phase": view["phase"],
        "played": legal[played],
        "best": legal[best],
        "win_played": round(means[played], 4),
        "win_best": round(means[best], 4),
        "loss": round(max(0.0, means[best] - means[played]), 4),
        "mark": mark(round(max(0.0, means[best] - means[played]), 4)),
        # The chance that team A wins the match after the move played, as that seat saw
        # it (its own view only): the points of the per-hand graph.
        "team_a": round(means[played] if team_of(seat) == "A" else 1.0 - means[played], 4),
        "moves": [{"event": e, "win": round(m, 4)} for e, m in zip(legal, means, strict=True)],
    }


def _index_of(event: dict[str, Any], legal: list[dict[str, Any]]) -> int | None:
    for i, candidate in enumerate(legal):
        if candidate["type"] != event.get("type"):
            continue
        if candidate["type"] == "choose_opener":
            if candidate["opener"] == event.get("opener"):
                return i
        elif candidate["tile"] == _low_high(event.get("tile")) and (
            event.get("end") is None or candidate.get("end") == event.get("end")
        ):
            return i
    return None


def _low_high(tile: object) -> str | None:
    if not isinstance(tile, str) or len(tile) != 3:
        return None
    a, b = tile[0], tile[2]
    return f"{min(a, b)}-{max(a, b)}"


def _summaries(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    return {str(seat): summary([d for d in decisions if d["seat"] == seat]) for seat in SEATS}


def summary(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """What a list of decisions sums to: a seat's summary in the report, or one
    holder's when a seat changed hands (the server splits a seat's decisions by who
    made them). ``accuracy`` is the best-move share: decisions within
    ``ACCURATE_WITHIN`` of the best, over all decisions."""
    marks = {name: 0 for _, name in MARKS} | {BLUNDER: 0}
    if not decisions:
        return {
            "decisions": 0,
            "accuracy": None,
            "mean_loss": None,
            "best_moves": 0,
            "total_loss": 0.0,
            "marks": marks,
            "biggest_mistakes": [],
        }
    accurate = sum(1 for d in decisions if d["loss"] <= ACCURATE_WITHIN)
    for d in decisions:
        marks[d["mark"]] += 1
    worst = sorted(decisions, key=lambda d: (-d["loss"], d["at"]))[:MISTAKES_SHOWN]
    return {
        "decisions": len(decisions),
        "accuracy": round(accurate / len(decisions), 4),
        "mean_loss": round(sum(d["loss"] for d in decisions) / len(decisions), 4),
        "best_moves": accurate,
        "total_loss": round(sum(d["loss"] for d in decisions), 4),
        "marks": marks,
        "biggest_mistakes": [
            {
                "at": d["at"],
                "hand_no": d["hand_no"],
                "loss": d["loss"],
                "played": d["played"],
                "best": d["best"],
            }
            for d in worst
            if d["loss"] > 0
        ],
    }
