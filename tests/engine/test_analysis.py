"""Post-match analysis: per decision, from the seat's own view, deterministic."""

from __future__ import annotations

import json
import random

from engine import dump_record
from engine.analysis import analyse, mark
from engine.bots import decide
from engine.bots.knowledge import read_view, tiles_mask
from engine.bots.sampler import WorldSampler
from engine.tiles import mask_texts
from tests.engine.test_bots import decision_points
from tests.engine.test_cli import engine_cli

ITERATIONS = 6


def with_other_hidden_hands(events: list[dict], view: dict, rng) -> list[dict]:
    """The same record with the current hand's deal replaced by another consistent one."""
    hidden = WorldSampler(read_view(view)).sample(rng)
    played_by = [0, 0, 0, 0]
    for item in view["line"]:
        played_by[item["seat"] - 1] |= tiles_mask([item["tile"]])
    last_deal = max(i for i, e in enumerate(events) if e["type"] == "deal")
    new_deal = {
        "type": "deal",
        "hands": {str(s + 1): mask_texts(hidden[s] | played_by[s]) for s in range(4)},
    }
    return events[:last_deal] + [new_deal] + events[last_deal + 1 :]


def a_decision(seed: int, after: int):
    """(record ending with a play by a seat that had a choice, that seat, its view)."""
    for m, events, seat in decision_points(seed, 200):
        if (
            m.phase == "play"
            and len(events) > after
            and WorldSampler(read_view(m.seat_view(seat))).count() > 1
        ):
            view = m.seat_view(seat)
            return events + [decide(view, "random", random.Random(seed))], seat, view
    raise AssertionError("no decision found")


def test_the_analysis_of_a_position_never_reads_a_hidden_tile():
    for seed in (1, 2, 3):
        events, seat, view = a_decision(seed, 20)
        rng = random.Random(seed)
        other = with_other_hidden_hands(events[:-1], view, rng)
        while other == events[:-1]:
            other = with_other_hidden_hands(events[:-1], view, rng)
        other.append(events[-1])
        mine = [d for d in analyse(events, ITERATIONS)["decisions"] if d["seat"] == seat]
        theirs = [d for d in analyse(other, ITERATIONS)["decisions"] if d["seat"] == seat]
        hand_no = mine[-1]["hand_no"]
        assert [d for d in mine if d["hand_no"] == hand_no] == [
            d for d in theirs if d["hand_no"] == hand_no
        ]
        assert mine[-1]["at"] == len(events) - 1


def test_every_decision_names_the_move_played_the_best_and_the_loss():
    events, _, _ = a_decision(7, 60)
    report = analyse(events, ITERATIONS, seed=3)
    assert report == analyse(events, ITERATIONS, seed=3)  # deterministic
    assert json.loads(json.dumps(report)) == report
    assert report["decisions"]
    for d in report["decisions"]:
        assert d["played"] in [m["event"] for m in d["moves"]]
        assert d["win_best"] == max(m["win"] for m in d["moves"])
        assert abs(d["loss"] - max(0.0, d["win_best"] - d["win_played"])) <= 2e-4
        assert 0.0 <= d["win_played"] <= 1.0
    for seat, summary in report["seats"].items():
        mine = [d for d in report["decisions"] if d["seat"] == int(seat)]
        assert summary["decisions"] == len(mine)
        if mine:
            assert 0.0 <= summary["accuracy"] <= 1.0
            assert all(m["loss"] > 0 for m in summary["biggest_mistakes"])


def test_the_command_line_prints_the_analysis(tmp_path):
    events, _, _ = a_decision(4, 10)
    path = tmp_path / "r.jsonl"
    path.write_text(dump_record(events))
    result = engine_cli("analyse", str(path), "--iterations", "4")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == analyse(events, 4)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(dump_record(events[:3] + [{"type": "pass", "seat": 9}]))
    result = engine_cli("analyse", str(bad))
    assert result.returncode == 1 and json.loads(result.stdout) == {"error": "bad_event", "at": 3}


def test_seat_3s_analysis_never_reveals_seat_1s_hand():
    """Deal seat 1 another hand consistent with what seat 3 saw: seat 3's decisions of
    that hand are valued exactly alike, so nothing of seat 1's hidden tiles reaches them."""
    for seed in range(40):
        try:
            events, seat, view = a_decision(seed, 20)
        except AssertionError:
            continue
        if seat != 3:
            continue
        rng = random.Random(seed)
        last_deal = max(i for i, e in enumerate(events) if e["type"] == "deal")
        for _ in range(20):
            other = with_other_hidden_hands(events[:-1], view, rng)
            if other[last_deal]["hands"]["1"] != events[last_deal]["hands"]["1"]:
                break
        else:
            continue
        other.append(events[-1])
        hand_no = view["hand_no"]
        mine = [
            d
            for d in analyse(events, ITERATIONS)["decisions"]
            if d["seat"] == 3 and d["hand_no"] == hand_no
        ]
        theirs = [
            d
            for d in analyse(other, ITERATIONS)["decisions"]
            if d["seat"] == 3 and d["hand_no"] == hand_no
        ]
        assert mine and mine == theirs
        return
    raise AssertionError("no decision of seat 3 found")


def test_marks_follow_the_documented_thresholds():
    assert [mark(x) for x in (0.0, 0.0199, 0.02, 0.0499, 0.05, 0.0999, 0.1, 0.6)] == [
        "good",
        "good",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_a_planted_blunder_is_marked_a_blunder():
    """Replace a decision by its worst legal move, where that costs at least 0.10: the
    analysis of the changed record marks it a blunder."""
    for seed in range(30):
        events, _, _ = a_decision(seed, 60)
        report = analyse(events, ITERATIONS, seed=5)
        for d in report["decisions"]:
            worst = min(d["moves"], key=lambda m: m["win"])
            if d["win_best"] - worst["win"] >= 0.12:
                planted = events[: d["at"]] + [worst["event"]]
                again = analyse(planted, ITERATIONS, seed=5)["decisions"][-1]
                assert again["at"] == d["at"] and again["played"] == worst["event"]
                assert again["mark"] == "blunder"
                assert again["loss"] >= 0.1
                return
    raise AssertionError("no decision with a move losing 0.12 found")
