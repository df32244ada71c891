"""``server.tables.table_state``: the table's own state and rules, without a database.

The fold of the server events (pause, resume, takeback requests and answers, seat
handovers, watchable, annul, forfeit) and every rule read from it: who may act, what a
seat may send, what a takeback waits for, what an action appends, when a pause lifts by
itself, when a seat changes hands. Seats and tables are plain values here.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from engine import IllegalEventError, Match, deal_event
from engine.table_commands import available_commands
from server.errors import (
    AlreadyPaused,
    MatchAnnulled,
    MatchForfeited,
    MatchOver,
    NoTakebackRequest,
    NotAVoter,
    NotPaused,
    Paused,
    PermissionDenied,
    SeatNotAway,
    TakebackPending,
)
from server.tables import table_state as ts
from server.tables.table_state import PAUSE_LIMIT, REPLACE_AFTER, Step, TableState
from tests.engine.helpers import HUMANS, random_event, self_play, start

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
ANN, BOB, CAT = 11, 12, 13  # account ids
BOT = 90


@dataclass
class Seat:
    number: int
    kind: str
    player_id: int | None


@dataclass
class Table:
    owner_id: int
    rated: bool = False


def seats(*holders: tuple[str, int | None]) -> list[Seat]:
    return [Seat(n, kind, player) for n, (kind, player) in enumerate(holders, start=1)]


ONE_PERSON = seats(("human", ANN), ("bot", BOT), ("human", ANN), ("bot", BOT))
TWO_PEOPLE = seats(("human", ANN), ("bot", BOT), ("human", BOB), ("bot", BOT))
THREE_PEOPLE = seats(("human", ANN), ("human", BOB), ("human", CAT), ("bot", BOT))
CASUAL = Table(owner_id=ANN)


def fields(state: TableState) -> dict:
    """Everything but the match (compared through its views)."""
    out = {f.name: getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "match"}
    out["views"] = [state.match.seat_view(n) for n in (1, 2, 3, 4)]
    out["undo"] = (state.match.can_undo(), state.match.can_redo(), state.match.phase)
    return out


def folded(*events: dict) -> TableState:
    state = TableState(Match())
    for seq, event in enumerate(events, start=1):
        state.fold(seq, event)
    return state


def in_play(seed: int = 3, moves: int = 8) -> TableState:
    """A casual match a few moves into its first hand (a table command is legal)."""
    rng = random.Random(seed)
    state = folded(start(HUMANS))
    while not state.match.can_undo() or moves > 0:
        event = deal_event(rng) if state.match.needs_deal() else random_event(state.match, rng)
        state.fold(state.version + 1, event)
        moves -= 1
    return state


# -- the fold -------------------------------------------------------------------------------
def test_a_pause_is_its_seats_until_a_resume_or_a_handover():
    at = NOW.isoformat()
    state = folded(start(HUMANS), {"type": "pause", "seat": 1, "at": at})
    assert state.paused and state.paused_by == {1} and state.paused_at == {1: at}
    state.fold(3, {"type": "pause", "seat": 3})  # an old log: no "at"
    assert state.paused_at == {1: at, 3: None}
    state.fold(4, {"type": "resume", "seat": 1})
    assert state.paused_by == {3} and state.paused_at == {3: None}
    state.fold(5, {"type": "seat_handover", "seat": 3, "from": "bob", "to": None, "kind": "human"})
    assert not state.paused and state.paused_at == {}
    assert state.handovers[-1]["seq"] == 5 and state.seat_epoch == 5 and state.version == 5


def test_a_takeback_request_collects_votes_until_a_refusal_the_last_consent_or_a_move():
    state = in_play()
    request = {"type": "takeback_request", "seat": 1, "command": "undo"}
    state.fold(state.version + 1, request)
    assert state.takeback is not None and state.takeback["votes"] == {}
    state.fold(state.version + 1, {"type": "takeback_answer", "seat": 2, "accept": True})
    assert state.takeback["votes"] == {"2": True}
    state.fold(state.version + 1, {"type": "takeback_answer", "seat": 3, "accept": False})
    assert state.takeback is None  # a refusal ends it
    state.fold(state.version + 1, request)
    state.fold(
        state.version + 1, {"type": "takeback_answer", "seat": 3, "accept": True, "final": True}
    )
    assert state.takeback is None  # the last consent ends it
    state.fold(state.version + 1, request)
    state.fold(
        state.version + 1,
        {"type": "seat_handover", "seat": 2, "from": "b", "to": "c", "kind": "human"},
    )
    assert state.takeback is None  # its voters may have changed
    state.fold(state.version + 1, request)
    rng = random.Random(1)
    state.fold(state.version + 1, random_event(state.match, rng))
    assert state.takeback is None  # the table moved on


def test_watchable_annul_and_forfeit_are_folded():
    state = folded(start(HUMANS), {"type": "watchable", "on": True})
    assert state.watchable and not state.stopped
    state.fold(3, {"type": "annul", "reason": "r"})
    assert state.annulled == {"type": "annul", "reason": "r"} and state.stopped
    other = folded(start(HUMANS), {"type": "forfeit", "seat": 2, "team": "B", "reason": ""})
    assert other.forfeited is not None and other.stopped


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_apply_is_fold_all_or_nothing(seed):
    """``apply`` (the action path) ends in the very state ``fold`` (a read of the log)
    gives, every field of it, and leaves the state as it was when the engine refuses."""
    events, _ = self_play(seed, commands=True, max_events=400)
    applied, replayed = TableState(Match()), TableState(Match())
    for seq, event in enumerate(events, start=1):
        applied.apply(seq, event)
        replayed.fold(seq, event)
        assert fields(applied) == fields(replayed), f"after event {seq} {event['type']}"
    before = fields(applied)
    with pytest.raises(IllegalEventError):
        applied.apply(applied.version + 1, {"type": "play", "seat": 1, "tile": "9-9"})
    assert fields(applied) == before


def test_the_next_deal_counts_redeals_of_the_same_hand():
    rng = random.Random(5)
    state = folded(start(HUMANS))
    assert state.next_deal() == (1, 0)
    state.fold(2, deal_event(rng))
    assert state.next_deal() == (1, 1)  # the hand's first deal was dealt: a redeal is its 2nd


# -- the people at the table ------------------------------------------------------------------
def test_the_people_and_their_votes():
    assert not ts.several_people(ONE_PERSON) and ts.several_people(TWO_PEOPLE)
    assert ts.voters(ONE_PERSON, ANN) == []
    assert ts.voters(THREE_PEOPLE, ANN) == [BOB, CAT]
    state = in_play()
    assert ts.request_owner(THREE_PEOPLE, state) is None
    assert ts.accepted_by(THREE_PEOPLE, state) == set()
    assert ts.takeback_waiting_for(THREE_PEOPLE, state) == []
    state.fold(state.version + 1, {"type": "takeback_request", "seat": 1, "command": "undo"})
    assert ts.request_owner(THREE_PEOPLE, state) == ANN
    assert ts.takeback_waiting_for(THREE_PEOPLE, state) == [2, 3]
    state.fold(state.version + 1, {"type": "takeback_answer", "seat": 2, "accept": True})
    assert ts.accepted_by(THREE_PEOPLE, state) == {BOB}
    assert ts.takeback_waiting_for(THREE_PEOPLE, state) == [3]


# -- what a seat may send -----------------------------------------------------------------------
LEGAL = [{"type": "play", "seat": 1, "tile": "1-2"}, {"type": "play", "seat": 1, "tile": "3-4"}]


def test_allowed_actions_one_person_owner_and_others():
    state = in_play()
    commands = available_commands(state.match)
    assert "undo" in commands
    human, bot = ONE_PERSON[0], ONE_PERSON[1]
    assert ts.allowed_actions(CASUAL, human, state, LEGAL, ANN, ONE_PERSON) == [
        "play",
        *commands,
        "pause",
    ]
    # not the owner: no table commands
    assert ts.allowed_actions(Table(owner_id=BOB), human, state, LEGAL, ANN, ONE_PERSON) == [
        "play",
        "pause",
    ]
    assert ts.allowed_actions(CASUAL, bot, state, LEGAL, BOT, ONE_PERSON) == ["play"]
    state.fold(state.version + 1, {"type": "pause", "seat": 1})
    assert ts.allowed_actions(CASUAL, bot, state, LEGAL, BOT, ONE_PERSON) == []  # paused
    assert ts.allowed_actions(CASUAL, human, state, [], ANN, ONE_PERSON)[-1] == "resume"
    state.fold(state.version + 1, {"type": "annul", "reason": ""})
    assert ts.allowed_actions(CASUAL, human, state, LEGAL, ANN, ONE_PERSON) == []


def test_allowed_actions_with_several_people_ask_and_answer():
    state = in_play()
    commands = available_commands(state.match)
    ann, bob = TWO_PEOPLE[0], TWO_PEOPLE[2]
    assert ts.allowed_actions(CASUAL, bob, state, [], BOB, TWO_PEOPLE) == [*commands, "pause"]
    state.fold(state.version + 1, {"type": "takeback_request", "seat": 1, "command": "undo"})
    assert ts.allowed_actions(CASUAL, ann, state, [], ANN, TWO_PEOPLE) == ["pause"]
    assert ts.allowed_actions(CASUAL, bob, state, [], BOB, TWO_PEOPLE) == [
        "accept_takeback",
        "decline_takeback",
        "pause",
    ]
    rated = Table(owner_id=ANN, rated=True)  # a rated table: no commands, no consent
    assert ts.allowed_actions(rated, bob, in_play(), [], BOB, TWO_PEOPLE) == ["pause"]


@pytest.mark.parametrize(
    ("prepare", "seat", "kind", "refusal"),
    [
        ({"type": "annul", "reason": ""}, 1, "play", MatchAnnulled),
        ({"type": "forfeit", "seat": 2, "team": "B", "reason": ""}, 1, "play", MatchForfeited),
        (None, 2, "pause", PermissionDenied),  # a computer seat does not pause
        ({"type": "pause", "seat": 1}, 2, "play", Paused),  # the computer waits
    ],
)
def test_check_may_act(prepare, seat, kind, refusal):
    state = in_play()
    if prepare is not None:
        state.fold(state.version + 1, prepare)
    with pytest.raises(refusal):
        ts.check_may_act(state, ONE_PERSON[seat - 1], kind)


def test_check_may_act_lets_a_person_act_while_paused():
    state = in_play()
    state.fold(state.version + 1, {"type": "pause", "seat": 1})
    ts.check_may_act(state, ONE_PERSON[0], "play")
    ts.check_may_act(state, ONE_PERSON[0], "resume")


def test_check_request():
    state = in_play()
    ann, bot, bob = TWO_PEOPLE[0], TWO_PEOPLE[1], TWO_PEOPLE[2]
    with pytest.raises(PermissionDenied, match="only the table's owner"):
        ts.check_request(CASUAL, ONE_PERSON[0], state, "undo", BOB, ONE_PERSON)
    ts.check_request(CASUAL, ONE_PERSON[0], state, "undo", ANN, ONE_PERSON)
    with pytest.raises(PermissionDenied, match="only the people at the table"):
        ts.check_request(CASUAL, bot, state, "undo", BOT, TWO_PEOPLE)
    ts.check_request(CASUAL, bob, state, "undo", BOB, TWO_PEOPLE)  # anyone asks
    with pytest.raises(NoTakebackRequest):
        ts.check_request(CASUAL, bob, state, "accept_takeback", BOB, TWO_PEOPLE)
    state.fold(state.version + 1, {"type": "takeback_request", "seat": 1, "command": "undo"})
    with pytest.raises(TakebackPending):
        ts.check_request(CASUAL, bob, state, "redo", BOB, TWO_PEOPLE)
    with pytest.raises(NotAVoter):
        ts.check_request(CASUAL, ann, state, "accept_takeback", ANN, TWO_PEOPLE)  # the asker
    with pytest.raises(NotAVoter):
        ts.check_request(CASUAL, bot, state, "accept_takeback", BOT, TWO_PEOPLE)  # a computer
    ts.check_request(CASUAL, bob, state, "decline_takeback", BOB, TWO_PEOPLE)
    with pytest.raises(NotPaused):
        ts.check_request(CASUAL, ann, state, "resume", ANN, TWO_PEOPLE)
    state.fold(state.version + 1, {"type": "pause", "seat": 1})
    with pytest.raises(AlreadyPaused):
        ts.check_request(CASUAL, ann, state, "pause", ANN, TWO_PEOPLE)
    ts.check_request(CASUAL, ann, state, "resume", ANN, TWO_PEOPLE)


def test_an_answer_twice_is_refused():
    state = in_play()
    state.fold(state.version + 1, {"type": "takeback_request", "seat": 1, "command": "undo"})
    state.fold(state.version + 1, {"type": "takeback_answer", "seat": 2, "accept": True})
    with pytest.raises(NotAVoter, match="already answered"):
        ts.check_takeback_answer(THREE_PEOPLE[1], state, BOB, THREE_PEOPLE)


# -- what an action appends -------------------------------------------------------------------
def test_a_move_or_a_command_of_one_person_is_itself_and_the_server_follows():
    state = in_play()
    undo = {"type": "undo", "seat": 1}
    assert ts.action_steps(CASUAL, state, ONE_PERSON, undo, ANN) == ([Step(undo, 1)], True)
    rated = Table(owner_id=ANN, rated=True)
    assert ts.action_steps(rated, state, TWO_PEOPLE, undo, ANN) == ([Step(undo, 1)], True)


def test_a_command_among_several_people_is_a_request_the_last_consent_carries_out():
    state = in_play()
    version = state.version
    steps, then = ts.action_steps(CASUAL, state, THREE_PEOPLE, {"type": "undo", "seat": 2}, BOB)
    request = {"type": "takeback_request", "seat": 2, "command": "undo"}
    assert (steps, then) == ([Step(request, 2)], False) and state.version == version
    state.fold(state.version + 1, request)
    accept = {"type": "accept_takeback", "seat": 1}
    steps, then = ts.action_steps(CASUAL, state, THREE_PEOPLE, accept, ANN)
    answer = {"type": "takeback_answer", "seat": 1, "accept": True}
    assert (steps, then) == ([Step(answer, 1)], False)  # CAT has not answered yet
    state.fold(state.version + 1, answer)
    steps, then = ts.action_steps(
        CASUAL, state, THREE_PEOPLE, {"type": "accept_takeback", "seat": 3}, CAT
    )
    final = {"type": "takeback_answer", "seat": 3, "accept": True, "final": True}
    assert steps == [Step(final, 3), Step({"type": "undo", "seat": 2}, 2, by_server=True)]
    assert then  # the server's consequences follow the command
    decline = {"type": "decline_takeback", "seat": 3}
    steps, then = ts.action_steps(CASUAL, state, THREE_PEOPLE, decline, CAT)
    assert steps == [Step({"type": "takeback_answer", "seat": 3, "accept": False}, 3)]
    assert not then


def test_a_request_for_a_command_the_engine_refuses_now_is_refused():
    state = folded(start(HUMANS))  # nothing to undo yet
    with pytest.raises(IllegalEventError):
        ts.action_steps(CASUAL, state, TWO_PEOPLE, {"type": "undo", "seat": 1}, ANN)


# -- pauses that lift by themselves, seats away -------------------------------------------------
def test_a_pause_lapses_when_its_seat_is_away_or_after_the_limit():
    at = NOW.isoformat()
    state = folded(start(HUMANS), {"type": "pause", "seat": 1, "at": at})
    state.fold(3, {"type": "pause", "seat": 3})  # no start time: only "away" lifts it
    assert ts.lapsed_pauses(state, {1, 3}, NOW) == {}
    assert ts.lapsed_pauses(state, {3}, NOW) == {1: "away"}
    assert ts.lapsed_pauses(state, {1, 3}, NOW + PAUSE_LIMIT - timedelta(seconds=1)) == {}
    assert ts.lapsed_pauses(state, {1, 3}, NOW + PAUSE_LIMIT) == {1: "time"}
    assert ts.lapsed_pauses(state, set(), NOW + PAUSE_LIMIT) == {1: "away", 3: "away"}
    state.fold(4, {"type": "annul", "reason": ""})
    assert ts.lapsed_pauses(state, set(), NOW + PAUSE_LIMIT) == {}  # nothing goes on
    assert ts.lapsed_pauses(folded(start(HUMANS)), set(), NOW) == {}


def test_a_persons_seat_is_handed_on_only_once_away_long_enough():
    with pytest.raises(SeatNotAway):
        ts.check_away_long_enough(2, None, NOW)  # connected
    with pytest.raises(SeatNotAway):
        ts.check_away_long_enough(2, NOW - REPLACE_AFTER + timedelta(seconds=1), NOW)
    ts.check_away_long_enough(2, NOW - REPLACE_AFTER, NOW)


def test_a_stopped_or_finished_match_neither_changes_hands_nor_is_annulled():
    state = in_play()
    ts.check_may_hand_over(state)
    ts.check_may_annul(state)
    annulled = folded(start(HUMANS), {"type": "annul", "reason": ""})
    with pytest.raises(MatchAnnulled):
        ts.check_may_hand_over(annulled)
    with pytest.raises(MatchAnnulled, match="already"):
        ts.check_may_annul(annulled)
    forfeited = folded(start(HUMANS), {"type": "forfeit", "seat": 2, "team": "B", "reason": ""})
    for check in (ts.check_may_hand_over, ts.check_may_annul):
        with pytest.raises(MatchForfeited):
            check(forfeited)
    events, _ = self_play(4)
    over = folded(*events)
    assert over.match.phase == "match_over"
    for check in (ts.check_may_hand_over, ts.check_may_annul):
        with pytest.raises(MatchOver):
            check(over)
