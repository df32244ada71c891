"""A finished match's replay, folded by the engine from its record alone.

``build_replay(text)`` reads a JSON Lines record (what ``/api/tables/{code}/record``
serves), folds it event by event with the engine's step stream (``engine.steps``) and
keeps, after every event, a *frame*: the line as laid, every seat's tiles, scores, base, who acts, and the hand's
result when that event ended a hand. Nothing here knows a rule: every fact is read from
the engine's fold (its seat views and results). A record whose fold does not end in
``match_over`` is refused — a match in progress is never replayed, since its current
hand is hidden information.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import engine.replay
from engine import IllegalEventError, Match, load_record
from engine.seats import SEAT_KEYS, SEATS, team_of


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
    fold = engine.replay.Replay()
    match = fold.match
    frames: list[dict] = []
    hands: list[HandSummary] = []
    deal_step = 0
    play_ends: dict[int, str | None] = {}
    try:
        for done in engine.replay.steps(events, fold):
            kind = done.event.get("type") if isinstance(done.event, dict) else None
            if kind == "deal":
                deal_step = done.index
            frame, public = _frame(match)
            if kind == "play":
                play_ends[done.index] = public["turns"][-1]["end"]
            ended = done.hand_result
            if ended is not None:
                frame["result"] = len(hands)
                hands.append(
                    HandSummary(
                        ended.hand_no,
                        deal_step,
                        done.index,
                        ended.as_dict(),
                        ended.scores.as_dict(),
                    )
                )
            frames.append(frame)
    except IllegalEventError:
        raise NotReplayable("unreadable") from None
    outcome = fold.outcome()
    if outcome.winner is None:  # a winner exactly when the match is over
        raise NotReplayable("in_progress")
    return Replay(
        events,
        frames,
        hands,
        {str(k): v for k, v in match.seats.items()},
        {SEAT_KEYS[n - 1]: team_of(n) for n in SEATS},
        play_ends,
        outcome.winner,
        outcome.scores.as_dict(),
    )


def _frame(match: Match) -> tuple[dict, dict]:
    """The public table after an event of a finished match: all four hands are shown."""
    public = match.seat_view(1)
    # A claimed redeal voids the deal: the seat view then counts no tile for anyone.
    held = any(public["tile_counts"].values())
    hands = [match.hand_of(seat) if held else [] for seat in SEATS]
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
