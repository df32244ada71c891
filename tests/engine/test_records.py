"""The record contract: rejection codes and their order, table commands, JSON Lines."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import REJECTION_CODES, IllegalEventError, Match, dump_record, load_record
from engine.tiles import mask_texts
from tests.engine.helpers import BOTS, HUMANS, accept_all, self_play, start
from tests.engine.test_rules import DEAL_A, DEAL_B, fold, playing_a, rejected

SPEC_CODES = {
    "bad_event",
    "bad_deal",
    "wrong_phase",
    "not_your_turn",
    "tile_not_in_hand",
    "tile_does_not_fit",
    "end_required",
    "must_play",
    "must_open_double_six",
    "not_entitled",
    "already_accepted",
    "not_representative",
    "opener_not_on_team",
    "nothing_to_undo",
    "nothing_to_redo",
    "not_allowed_in_rated",
}


def test_the_rejection_codes_are_exactly_the_contract():
    assert set(REJECTION_CODES) == SPEC_CODES


@pytest.mark.parametrize(
    "event",
    [
        "play",
        None,
        [],
        {"type": "shout", "seat": 1},
        {"seat": 1},
        {"type": "play", "tile": "6-6"},
        {"type": "play", "seat": "1", "tile": "6-6"},
        {"type": "play", "seat": 1.0, "tile": "6-6"},
        {"type": "play", "seat": True, "tile": "6-6"},
        {"type": "play", "seat": 5, "tile": "6-6"},
        {"type": "play", "seat": 0, "tile": "6-6"},
        {"type": "play", "seat": 1, "tile": "6-7"},
        {"type": "play", "seat": 1},
        {"type": "play", "seat": 1, "tile": "66"},
        {"type": "play", "seat": 1, "tile": "6-6", "end": "top"},
        {"type": "choose_opener", "seat": 1, "opener": 9},
        {"type": "undo"},
        {"type": "redo", "seat": 7},
        {"type": "accept", "seat": None},
    ],
)
def test_malformed_events_are_bad_event(event):
    assert rejected(playing_a(), event) == "bad_event"


def test_malformed_beats_wrong_phase_and_wrong_phase_beats_turn_and_content():
    m = fold(start(), DEAL_A)  # accept phase
    assert rejected(m, {"type": "play", "seat": 2, "tile": "9-9"}) == "bad_event"
    assert rejected(m, {"type": "play", "seat": 2, "tile": "5-5"}) == "wrong_phase"
    assert rejected(m, {"type": "pass", "seat": 3}) == "wrong_phase"
    assert rejected(m, {"type": "choose_opener", "seat": 2, "opener": 1}) == "wrong_phase"
    assert rejected(m, DEAL_A) == "wrong_phase"
    assert rejected(m, start()) == "wrong_phase"
    playing = playing_a()
    assert rejected(playing, {"type": "accept", "seat": 1}) == "wrong_phase"
    assert rejected(playing, {"type": "play", "seat": 3, "tile": "0-1"}) == "not_your_turn"
    assert rejected(fold(), {"type": "accept", "seat": 1}) == "wrong_phase"
    assert rejected(fold(), {"type": "undo", "seat": 1}) == "wrong_phase"


@pytest.mark.parametrize(
    "hands",
    [
        {"1": ["6-6"]},
        {"1": [], "2": [], "3": [], "4": []},
        "all of them",
        # seat 4 repeats a tile of seat 1 and 0-0 is missing
        {**DEAL_A["hands"], "4": ["6-6", "3-6", "4-4", "4-5", "4-6", "5-5", "5-6"]},
        # a hand of eight and one of six
        {**DEAL_A["hands"], "1": DEAL_A["hands"]["1"] + ["0-0"], "4": DEAL_A["hands"]["4"][1:]},
        {**DEAL_A["hands"], "1": ["6-6"] * 7},
        {
            "0": DEAL_A["hands"]["1"],
            "2": DEAL_A["hands"]["2"],
            "3": DEAL_A["hands"]["3"],
            "4": DEAL_A["hands"]["4"],
        },
    ],
)
def test_deals_that_are_not_a_full_double_six_set_are_bad_deal(hands):
    assert rejected(fold(start()), {"type": "deal", "hands": hands}) == "bad_deal"


def test_a_deal_with_a_malformed_tile_is_bad_event():
    hands = {**DEAL_A["hands"], "1": ["6-6", "0-1", "0-2", "0-3", "0-4", "0-5", "0-7"]}
    assert rejected(fold(start()), {"type": "deal", "hands": hands}) == "bad_event"


def test_match_started_must_name_every_seat_kind():
    for bad in (
        {"type": "match_started", "seats": {"1": "human"}},
        {"type": "match_started", "seats": {"1": "human", "2": "bot", "3": "bot", "4": "cat"}},
        {"type": "match_started", "seats": dict(HUMANS), "rated": "yes"},
    ):
        assert rejected(Match(), bad) == "bad_event"


def test_unknown_extra_fields_are_ignored():
    m = fold(
        {**start(), "table": "X1"},
        {**DEAL_A, "shuffle": 42},
        *[{**a, "by": "me"} for a in accept_all()],
    )
    m.apply({"type": "play", "seat": 1, "tile": "6-6", "comment": "opening"})
    assert m.summary()["ends"] == [6, 6]


def choosing() -> Match:
    """After a first hand: the winning team's representative must choose the opener."""
    for seed in range(100):
        events, _ = self_play(seed, seats=BOTS, max_events=5000)
        m = Match()
        for event in events:
            m.apply(event)
            if m.phase == "choose_opener":
                return m
    raise AssertionError("no opener choice reached")


def test_opener_choice_codes():
    m = choosing()
    rep = m.to_act
    other_team = rep % 4 + 1
    partner = (rep + 1) % 4 + 1
    assert (
        rejected(m, {"type": "choose_opener", "seat": other_team, "opener": other_team})
        == "not_representative"
    )
    assert (
        rejected(m, {"type": "choose_opener", "seat": partner, "opener": partner})
        == "not_representative"
    )
    assert (
        rejected(m, {"type": "choose_opener", "seat": rep, "opener": other_team})
        == "opener_not_on_team"
    )
    m.apply({"type": "choose_opener", "seat": rep, "opener": partner})
    assert m.phase == "play" and m.to_act == partner
    assert len(m.legal_events(partner)) == 7  # any tile opens a later hand


# -- table commands ----------------------------------------------------------------------
def test_nothing_to_undo_and_nothing_to_redo():
    m = playing_a()
    assert rejected(m, {"type": "undo", "seat": 1}) == "nothing_to_undo"
    assert rejected(m, {"type": "redo", "seat": 1}) == "nothing_to_redo"


def test_a_bot_play_alone_is_not_undoable():
    m = fold(start(BOTS), DEAL_A, *accept_all(), {"type": "play", "seat": 1, "tile": "6-6"})
    assert not m.can_undo()
    assert rejected(m, {"type": "undo", "seat": 1}) == "nothing_to_undo"


@pytest.mark.parametrize("command", ["undo", "redo", "restart_hand", "new_match"])
def test_rated_records_refuse_the_table_commands_in_every_phase(command):
    rated = start(rated=True)
    for m in (
        fold(rated),
        fold(rated, DEAL_A),
        fold(rated, DEAL_A, *accept_all()),
        fold(rated, DEAL_A, *accept_all(), {"type": "play", "seat": 1, "tile": "6-6"}),
    ):
        assert rejected(m, {"type": command, "seat": 1}) == "not_allowed_in_rated"
        assert rejected(m, {"type": command, "seat": 9}) == "bad_event"
    assert not m.can_undo() and not m.seat_view(1)["can_undo"]


def test_undo_takes_back_the_human_play_with_every_computer_answer_and_redo_restores_them():
    m = playing_a()
    m.apply({"type": "play", "seat": 1, "tile": "6-6"})  # human
    m.apply({"type": "play", "seat": 2, "tile": "1-6", "end": "left"})  # bot
    before_human = m.copy()
    m.apply({"type": "play", "seat": 3, "tile": "2-6"})  # human
    m.apply({"type": "pass", "seat": 4})  # bot
    after = m.summary()
    m.apply({"type": "undo", "seat": 1})
    assert m.summary() == before_human.summary() and m.to_act == 3
    assert m.can_redo() and m.seat_view(3)["can_redo"]
    m.apply({"type": "undo", "seat": 3})  # nests: back before 6-6
    assert m.summary()["ends"] is None and m.to_act == 1
    m.apply({"type": "redo", "seat": 1})
    assert m.summary() == before_human.summary()
    m.apply({"type": "redo", "seat": 1})
    assert m.summary() == after and not m.can_redo()


def test_a_new_event_after_undo_drops_the_redo_stack():
    m = playing_a()
    m.apply({"type": "play", "seat": 1, "tile": "6-6"})
    m.apply({"type": "undo", "seat": 1})
    m.apply({"type": "play", "seat": 1, "tile": "6-6"})
    assert rejected(m, {"type": "redo", "seat": 1}) == "nothing_to_redo"


def test_undo_reaches_back_over_a_hand_end_the_next_deal_and_its_acceptances():
    for seed in range(200):
        events, _ = self_play(seed, max_events=5000)
        m = Match()
        for index, event in enumerate(events):
            human_finisher = (
                event["type"] == "play"
                and m.phase == "play"
                and HUMANS[str(event["seat"])] == "human"
                and len(m.seat_view(event["seat"])["hand"]) == 1
            )
            if human_finisher and index + 6 < len(events):
                before = m.summary()
                m.apply(event)
                for later in events[index + 1 : index + 6]:  # deal and acceptances
                    m.apply(later)
                after = m.summary()
                m.apply({"type": "undo", "seat": 1})
                assert m.summary() == before and m.phase == "play"
                m.apply({"type": "redo", "seat": 1})
                assert m.summary() == after
                return
            m.apply(event)
    raise AssertionError("no hand finished by a human seat")


def test_restart_hand_returns_to_the_accepted_deal_with_the_scores_of_its_start():
    m = choosing()
    scores, base, hand_no = m.summary()["scores"], m.summary()["base"], m.hand_no
    rep = m.to_act
    hand = m.seat_view(rep)["hand"]
    m.apply({"type": "choose_opener", "seat": rep, "opener": rep})
    m.apply(m.legal_events(rep)[0])
    m.apply({"type": "restart_hand", "seat": 1})
    assert m.phase == "choose_opener" and m.to_act == rep and m.hand_no == hand_no
    assert m.seat_view(rep)["hand"] == hand and m.seat_view(rep)["line"] == []
    assert m.summary()["scores"] == scores and m.summary()["base"] == base
    assert not m.can_undo() and not m.can_redo()


def test_restart_hand_again_and_again_returns_to_the_same_start():
    m = choosing()
    rep = m.to_act
    at_start = [m.seat_view(seat) for seat in (1, 2, 3, 4)], m.summary()
    for _ in range(3):
        m.apply({"type": "choose_opener", "seat": rep, "opener": rep})
        m.apply(m.legal_events(rep)[0])
        m.apply({"type": "restart_hand", "seat": 1})
        assert ([m.seat_view(seat) for seat in (1, 2, 3, 4)], m.summary()) == at_start


def test_restart_in_the_accept_phase_accepts_the_latest_deal_for_all_four():
    m = fold(start(), DEAL_B, {"type": "accept", "seat": 3})
    m.apply({"type": "restart_hand", "seat": 1})
    assert (
        m.phase == "play"
        and m.to_act == 2
        and m.seat_view(1)["accepted"] == {str(s): True for s in range(1, 5)}
    )
    m.apply({"type": "play", "seat": 2, "tile": "6-6"})
    m.apply({"type": "restart_hand", "seat": 1})
    assert m.summary()["ends"] is None and m.to_act == 2


def test_restart_is_refused_between_hands_and_undo_stops_at_it():
    m = fold(start())
    assert rejected(m, {"type": "restart_hand", "seat": 1}) == "wrong_phase"
    m = playing_a()
    m.apply({"type": "play", "seat": 1, "tile": "6-6"})
    m.apply({"type": "restart_hand", "seat": 1})
    assert rejected(m, {"type": "undo", "seat": 1}) == "nothing_to_undo"


def test_new_match_goes_back_to_just_after_match_started():
    events, m = self_play(11, max_events=5000)
    assert m.phase == "match_over" and m.results
    m.apply({"type": "new_match", "seat": 2})
    summary = m.summary()
    assert summary == Match.from_events([start()]).summary()
    assert summary["results"] == [] and summary["hand_no"] == 0 and m.needs_deal()
    assert rejected(m, {"type": "undo", "seat": 1}) == "nothing_to_undo"
    m.apply(DEAL_B)
    for event in accept_all():
        m.apply(event)
    assert m.to_act == 2 and m.legal_events(2) == [{"type": "play", "seat": 2, "tile": "6-6"}]


# -- properties over random records ----------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), commands=st.booleans())
def test_random_records_fold_conserve_the_tiles_and_replay_to_the_same_state(seed, commands):
    events, m = self_play(seed, max_events=600, commands=commands)
    text = dump_record(events)
    assert load_record(text) == events
    replayed = Match.from_events(load_record(text))
    assert replayed.summary() == m.summary()
    assert all(replayed.seat_view(s) == m.seat_view(s) for s in (1, 2, 3, 4))
    if m.phase in ("accept", "choose_opener", "play"):
        held = [t for tiles in m.summary()["hands_left"].values() for t in tiles]
        laid = [item["tile"] for item in m.seat_view(1)["line"]]
        assert sorted(held + laid) == mask_texts((1 << 28) - 1) and len(set(held + laid)) == 28
        counts = m.seat_view(2)["tile_counts"]
        assert sum(counts.values()) + len(laid) == 28


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), cut=st.integers(5, 400))
def test_undo_then_redo_gives_back_the_same_summary(seed, cut):
    events, m = self_play(seed, max_events=cut)
    if not m.can_undo():
        return
    before = m.summary()
    views = [m.seat_view(s) for s in (1, 2, 3, 4)]
    m.apply({"type": "undo", "seat": 1})
    assert m.summary() != before or m.can_redo()
    m.apply({"type": "redo", "seat": 1})
    assert m.summary() == before
    assert [m.seat_view(s) for s in (1, 2, 3, 4)] == views


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    cut=st.integers(2, 400),
    junk=st.sampled_from(
        [
            {"type": "play", "seat": 1, "tile": "0-0"},
            {"type": "pass", "seat": 2},
            {"type": "accept", "seat": 3},
            {"type": "claim_redeal", "seat": 4},
            {"type": "choose_opener", "seat": 1, "opener": 2},
            {"type": "redo", "seat": 1},
        ]
    ),
)
def test_a_rejected_event_changes_nothing_anywhere(seed, cut, junk):
    _, m = self_play(seed, max_events=cut)
    snapshot = json.dumps([m.summary(), *[m.seat_view(s) for s in (1, 2, 3, 4)]])
    try:
        m.apply(junk)
    except IllegalEventError as err:
        assert err.code in SPEC_CODES and err.message
        assert json.dumps([m.summary(), *[m.seat_view(s) for s in (1, 2, 3, 4)]]) == snapshot


def test_from_events_reports_the_index_of_the_first_rejected_event():
    events = [
        start(),
        DEAL_A,
        *accept_all(),
        {"type": "play", "seat": 1, "tile": "0-1"},
        {"type": "pass", "seat": 2},
    ]
    with pytest.raises(IllegalEventError) as err:
        Match.from_events(events)
    assert err.value.code == "must_open_double_six" and err.value.index == 6
