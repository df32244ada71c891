"""Post-match analysis: per decision, from the seat's own view, deterministic."""

from __future__ import annotations

import json
import random

from engine import dump_record
from engine.analysis import analyse
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
