"""One way to fold a record and notice each hand's end: a stream of steps.

Like scalachess' ``Replay`` and python-chess' ``Board`` with its ``Outcome``: every
program that walks a record (the server's projection and its record export, the
league's results, the web replay, the command line's analysis) folds it here, one
``Step`` per event, instead of watching ``Match.results`` grow by itself::

    for step in steps(load_record(text)):
        if step.hand_result is not None:
            print(step.hand_result.team, step.hand_result.points)

A ``Step`` says what one event did: the phase and hand number after it, and the hands it
ended (``HandResult``: how, who won, the points, the four hands revealed, the scores and
base after). ``Outcome`` sums up a match. All three are frozen values whose reprs read as
constructors. A refused event raises ``IllegalEventError`` with ``index`` set to the
step's index and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from engine.errors import IllegalEventError
from engine.events import DealtHands, dealt_hands
from engine.fold import Match, Reveal
from engine.phases import Phase
from engine.seats import SEAT_KEYS, TEAMS, Team

HandEnd = Literal["domino", "block", "tie"]
"""How a hand ended (RULES §5): a seat played out, the lowest count won a block, or the
lowest count was held by both teams."""


class PerTeam(NamedTuple):
    """One number per team: ``PerTeam(A=3, B=0)``."""

    A: int
    B: int

    def of(self, team: Team) -> int:
        return self.A if team == "A" else self.B

    def as_dict(self) -> dict[str, int]:
        """``{"A": …, "B": …}``, as the record summary and the API write scores."""
        return {"A": self.A, "B": self.B}


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: how it ended, who won it and what it scored, with all four hands
    revealed (RULES §5) and the match's scores and base right after it."""

    hand_no: int
    result: HandEnd
    team: Team | None  # the team that won the hand; None for a tie
    points: int  # what the winning team scored (0 for a tie)
    dekabes: bool
    pips: tuple[int, int, int, int]  # pips left in each hand, seat 1 first
    dealt: DealtHands  # the four hands as dealt, seat 1 first
    hands: DealtHands  # the tiles left in each hand at the end, seat 1 first
    scores: PerTeam  # after the hand (the losing team's back at 0)
    base: int  # the base of the next hand (2 after a tie)

    @classmethod
    def of(cls, reveal: Reveal) -> HandResult:
        """The fold's record of a finished hand as a value."""
        record = reveal.record
        pips = record["pips"]
        return cls(
            hand_no=record["hand_no"],
            result=record["result"],
            team=record["team"],
            points=record["points"],
            dekabes=record["dekabes"],
            pips=(pips["1"], pips["2"], pips["3"], pips["4"]),
            dealt=dealt_hands(reveal.dealt),
            hands=dealt_hands(reveal.hands),
            scores=PerTeam(*reveal.scores),
            base=reveal.base,
        )

    def as_dict(self) -> dict[str, Any]:
        """The hand's entry in ``results`` (the replay summary, the seat view)."""
        return {
            "hand_no": self.hand_no,
            "result": self.result,
            "team": self.team,
            "points": self.points,
            "dekabes": self.dekabes,
            "pips": dict(zip(SEAT_KEYS, self.pips, strict=True)),
        }


@dataclass(frozen=True, slots=True)
class Step:
    """What one event of a record did.

    ``index`` is the event's position (0-based, as in a rejection's ``at``; the server
    passes its log's ``seq``); ``phase`` and ``hand_no`` are the match's after it.
    ``hand_results`` are the hands the event ended: one for the play or pass that ends
    a hand, and as many as a ``redo`` brings back; usually none.
    """

    index: int
    event: Any
    phase: Phase | None
    hand_no: int
    hand_results: tuple[HandResult, ...] = ()

    @property
    def hand_result(self) -> HandResult | None:
        """The (newest) hand this event ended, or None."""
        return self.hand_results[-1] if self.hand_results else None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A match summed up from its finished hands (the effective history: hands an undo
    took back, or a new match dropped, are not counted)."""

    winner: Team | None  # None while the match is not over
    scores: PerTeam
    hands_played: int  # finished hands, ties included
    hands_won: PerTeam
    hands_tied: int
    points: PerTeam  # the points of the hands each team won
    dekabes: PerTeam  # hands each team won with a Dékabès

    @classmethod
    def of(cls, match: Match) -> Outcome:
        state = match.state()
        reveals = state.results if state is not None else ()
        records = [r.record for r in reveals]
        won = {team: [r for r in records if r["team"] == team] for team in TEAMS}
        return cls(
            winner=match.winner,
            scores=PerTeam(*state.scores) if state is not None else PerTeam(0, 0),
            hands_played=len(records),
            hands_won=PerTeam(len(won["A"]), len(won["B"])),
            hands_tied=sum(1 for r in records if r["result"] == "tie"),
            points=PerTeam(*(sum(r["points"] for r in won[team]) for team in TEAMS)),
            dekabes=PerTeam(*(sum(1 for r in won[team] if r["dekabes"]) for team in TEAMS)),
        )


def step(match: Match, event: object, index: int) -> Step:
    """Apply ``event`` to ``match`` and say what it did; a refusal raises
    ``IllegalEventError`` with ``index`` set and leaves ``match`` as it was."""
    state = match.state()
    before = state.results if state is not None else ()
    try:
        match.apply(event)
    except IllegalEventError as err:
        err.index = index
        raise
    state = match.state()
    if state is None:  # unreachable: only match_started applies to an unstarted match
        raise RuntimeError("the fold has no state after an event it accepted")
    after = state.results
    if after is before or len(after) <= len(before):
        return Step(index, event, state.phase, state.hand_no)
    ended = tuple(HandResult.of(reveal) for reveal in after[len(before) :])
    return Step(index, event, state.phase, state.hand_no, ended)


class Replay:
    """A record folded event by event: ``apply`` folds one and returns its ``Step``.

    ``match`` is the fold itself, to read between steps (its views, its summary); it
    changes with the next ``apply``. ``index`` is the index the next event gets.
    """

    def __init__(self, match: Match | None = None, index: int = 0) -> None:
        self.match = match if match is not None else Match()
        self.index = index

    def apply(self, event: object) -> Step:
        done = step(self.match, event, self.index)
        self.index += 1
        return done

    def outcome(self) -> Outcome:
        return Outcome.of(self.match)

    def __repr__(self) -> str:
        return f"<Replay index={self.index} match={self.match!r}>"


def steps(events: Iterable[object], replay: Replay | None = None) -> Iterator[Step]:
    """Fold ``events`` one by one, yielding each one's ``Step`` right after it is
    applied (read ``replay.match`` then for the table at that moment)."""
    replay = replay if replay is not None else Replay()
    for event in events:
        yield replay.apply(event)


def outcome(match: Match) -> Outcome:
    """The match summed up now (``Outcome.of``)."""
    return Outcome.of(match)


__all__ = [
    "HandEnd",
    "HandResult",
    "Outcome",
    "PerTeam",
    "Replay",
    "Step",
    "outcome",
    "step",
    "steps",
]
