"""``engine.replay``: the one fold that notices each hand's end, and the engine's one
statement of seats, teams, phases and bot levels."""

from __future__ import annotations

import pytest

from engine import IllegalEventError, Match, dump_record, load_record
from engine.core import team_of as core_team_of
from engine.events import deal_hands
from engine.phases import BETWEEN_HANDS, PHASES
from engine.replay import HandResult, Outcome, PerTeam, Replay, Step, outcome, steps
from engine.seats import SEATS, TEAM_SEATS, TEAMS, other_team, partner_of, team_of
from tests.engine.helpers import HUMANS, self_play


def hand_ends(events) -> list[tuple[int, HandResult]]:
    return [(s.index, r) for s in steps(events) for r in s.hand_results]


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_each_hand_end_is_one_step_with_the_result_the_summary_lists(seed):
    events, m = self_play(seed)
    ended = hand_ends(events)
    assert [r.as_dict() for _, r in ended] == m.results
    assert len(ended) == len(m.results) >= 2
    for index, result in ended:
        prefix = Match.from_events(events[: index + 1])
        assert prefix.phase in BETWEEN_HANDS
        assert (result.scores.as_dict(), result.base) == (
            prefix.summary()["scores"],
            prefix.summary()["base"],
        )
        # the four hands revealed are the view's last hand, dealt and left
        last = prefix.seat_view(1)["last_hand"]
        assert [list(h) for h in result.dealt] == [last["dealt"][k] for k in "1234"]
        assert [list(h) for h in result.hands] == [last["hands"][k] for k in "1234"]
        assert result.pips == tuple(last["pips"][k] for k in "1234")


def test_a_hand_s_dealt_hands_are_its_deal_event_s():
    events, _ = self_play(6)
    deals = [deal_hands(e) for e in events if e["type"] == "deal"]
    for _, result in hand_ends(events):
        assert result.dealt in deals


def test_the_outcome_sums_up_the_finished_hands():
    events, m = self_play(7)
    replay = Replay()
    for _ in steps(events, replay):
        pass
    results = m.results
    won = {t: [r for r in results if r["team"] == t] for t in TEAMS}
    assert replay.outcome() == outcome(m)
    assert replay.outcome() == Outcome(
        winner=m.winner,
        scores=PerTeam(**m.summary()["scores"]),
        hands_played=len(results),
        hands_won=PerTeam(len(won["A"]), len(won["B"])),
        hands_tied=sum(r["result"] == "tie" for r in results),
        points=PerTeam(*(sum(r["points"] for r in won[t]) for t in TEAMS)),
        dekabes=PerTeam(*(sum(r["dekabes"] for r in won[t]) for t in TEAMS)),
    )
    assert replay.outcome().winner in TEAMS and replay.index == len(events)


def test_reprs_read_as_constructors():
    events, _ = self_play(8)
    steps_taken = list(steps(events))
    names = {"HandResult": HandResult, "PerTeam": PerTeam, "Outcome": Outcome, "Step": Step}
    ending = next(s for s in steps_taken if s.hand_result is not None)
    for value in (ending, ending.hand_result, Outcome.of(Match.from_events(events))):
        assert eval(repr(value), names) == value  # noqa: S307 — our own reprs


def test_a_refused_event_raises_with_its_index_and_changes_nothing():
    events, _ = self_play(9)
    replay = Replay()
    for _ in steps(events[:10], replay):
        pass
    before = replay.match.summary()
    with pytest.raises(IllegalEventError) as refused:
        replay.apply({"type": "play", "seat": 5, "tile": "6-6"})
    assert refused.value.code == "bad_event" and refused.value.index == 10
    assert replay.match.summary() == before and replay.index == 10
    with pytest.raises(IllegalEventError) as unreadable:
        list(steps(load_record(dump_record(events[:3]) + "{not json\n")))
    assert unreadable.value.index == 3


def test_a_redo_that_brings_back_a_hand_end_reports_it_again():
    # seat 1 human: find its last play before a hand's end, undo it, redo it
    events, _ = self_play(10, seats=HUMANS)
    ended = [i for i, _ in hand_ends(events)]
    m = Match.from_events(events[: ended[0] + 1])
    assert m.can_undo()
    replayed = list(steps([*events[: ended[0] + 1], {"type": "undo", "seat": 1}]))
    assert replayed[-1].hand_results == () and replayed[-1].phase not in BETWEEN_HANDS
    redo = list(
        steps([*events[: ended[0] + 1], *({"type": t, "seat": 1} for t in ("undo", "redo"))])
    )
    assert redo[-1].hand_result == replayed[ended[0]].hand_result
    assert redo[-1].hand_results == replayed[ended[0]].hand_results


def test_one_statement_of_seats_and_teams():
    assert TEAM_SEATS == {"A": (1, 3), "B": (2, 4)}  # RULES §1
    for seat in SEATS:
        view = Match.from_events(self_play(11, max_events=8)[0]).seat_view(seat)
        assert (team_of(seat), partner_of(seat)) == (view["team"], view["partner"])
        assert team_of(partner_of(seat)) == team_of(seat) != team_of(seat % 4 + 1)
        # the fast core's index arithmetic agrees (0: team A)
        assert TEAMS[core_team_of(seat - 1)] == team_of(seat)
    assert [other_team(t) for t in TEAMS] == ["B", "A"]


def test_phase_names_and_bot_levels_are_the_engine_s():
    from engine.bots import LEVELS

    events, m = self_play(12)
    seen = {s.phase for s in steps(events)}
    assert seen <= set(PHASES) and {"deal", "accept", "play", "match_over"} <= seen
    assert LEVELS == ("random", "greedy", "medium", "strong", "expert")
