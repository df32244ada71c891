"""A finished match's replay, folded by the engine from its record alone.

``build_replay(text)`` reads a JSON Lines record (what ``/api/tables/{code}/record``
serves), folds it event by event with ``engine.Match`` and keeps, after every event, a
*frame*: the line as laid, every seat's tiles, scores, base, who acts, and the hand's
result when that event ended a hand. Nothing here knows a rule: every fact is read from
the engine's fold (its seat views and results). A record whose fold does not end in
``match_over`` is refused — a match in progress is never replayed, since its current
hand is hidden information.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine import IllegalEventError, Match, load_record


class NotReplayable(Exception):
    """The record is unreadable or its match is not over."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason  # "unreadable" | "in_progress"


@dataclass(frozen=True)
class HandSummary:
    number: int
    first_step: int  # the step of the hand's (last) deal
    end_step: int  # the step whose event ended the hand
    result: dict  # the engine's result: result, team, points, dekabes, pips
    scores: dict  # scores after the hand


@dataclass(frozen=True)
class Replay:
    events: list[dict]
    frames: list[dict]  # frames[i]: the table right after events[i]
    hands: list[HandSummary]
    seats: dict  # seat number (str) -> "human" | "bot"
    teams: dict  # seat number (str) -> "A" | "B", as the engine's seat view says
    play_ends: dict  # step of a play -> the end the engine laid it on (None: opening)
    winner: str
    scores: dict

    @property
    def steps(self) -> int:
        return len(self.frames)


@lru_cache(maxsize=16)
def build_replay(text: str) -> Replay:
    """Cached by record text: a finished record never changes, nor does its fold."""
    events = load_record(text)
    if not events:
        raise NotReplayable("unreadable")
    match = Match()
    frames: list[dict] = []
    hands: list[HandSummary] = []
    deal_step = 0
    play_ends: dict[int, str | None] = {}
    try:
        for step, event in enumerate(events):
            results_before = len(match.results)
            match.apply(event)
            if isinstance(event, dict) and event.get("type") == "deal":
                deal_step = step
            frame, public = _frame(match)
            if isinstance(event, dict) and event.get("type") == "play":
                play_ends[step] = public["turns"][-1]["end"]
            results = match.results
            if len(results) > results_before:
                frame["result"] = len(hands)
                hands.append(
                    HandSummary(
                        results[-1]["hand_no"],
                        deal_step,
                        step,
                        results[-1],
                        dict(frame_scores(frame)),
                    )
                )
            frames.append(frame)
    except IllegalEventError:
        raise NotReplayable("unreadable") from None
    if match.phase != "match_over":
        raise NotReplayable("in_progress")
    summary = match.summary()
    return Replay(
        events,
        frames,
        hands,
        {str(k): v for k, v in match.seats.items()},
        {str(n): match.seat_view(n)["team"] for n in (1, 2, 3, 4)},
        play_ends,
        summary["winner"],
        summary["scores"],
    )


def frame_scores(frame: dict) -> dict:
    return {"A": frame["scores"][0], "B": frame["scores"][1]}


def _frame(match: Match) -> tuple[dict, dict]:
    """The public table after an event of a finished match: all four hands are shown."""
    public = match.seat_view(1)
    # A claimed redeal voids the deal: the seat view then counts no tile for anyone.
    held = any(public["tile_counts"].values())
    hands = [match.hand_of(seat) if held else [] for seat in (1, 2, 3, 4)]
    return {
        "hand_no": public["hand_no"],
        "phase": public["phase"],
        "line": [[t["a"], t["b"], t["seat"]] for t in public["line"]],
        "hands": hands,
        "scores": [public["scores"]["A"], public["scores"]["B"]],
        "base": public["base"],
        "to_act": public["to_act"],
        "result": None,
    }, public
