"""``python -m engine`` as outside checks call it: a real subprocess, JSON on stdout."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

from engine import Match, dump_record
from engine.cli import build_parser, cmd_simulate, plain_simulate, run_simulate
from tests.engine.helpers import accept_all, self_play, start
from tests.engine.test_rules import DEAL_A

ROOT = Path(__file__).resolve().parents[2]


def engine_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def lines(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_replay_prints_one_summary_per_file_and_errors_with_their_index(tmp_path):
    events, m = self_play(21, max_events=5000, commands=True)
    good = tmp_path / "good.jsonl"
    good.write_text(dump_record(events))
    bad = tmp_path / "bad.jsonl"
    # A blank line does not count in "at": the bad play is event 6.
    bad.write_text(
        dump_record([start(), DEAL_A])
        + "\n  \n"
        + dump_record(
            [*accept_all(), {"type": "play", "seat": 1, "tile": "0-1"}, {"type": "nonsense"}]
        )
    )
    result = engine_cli("replay", str(good), str(bad))
    assert result.returncode == 1
    first, second = lines(result)
    assert first == json.loads(json.dumps(m.summary()))
    assert set(first) >= {
        "phase",
        "hand_no",
        "to_act",
        "scores",
        "base",
        "winner",
        "ends",
        "hands_left",
        "results",
    }
    assert second == {"error": "must_open_double_six", "at": 6}


def test_replay_of_good_files_exits_zero(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(dump_record([start(), DEAL_A, *accept_all()]))
    result = engine_cli("replay", str(path))
    assert result.returncode == 0
    (summary,) = lines(result)
    assert summary["phase"] == "play" and summary["to_act"] == 1 and summary["hand_no"] == 1
    assert summary["hands_left"]["1"] == ["0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "6-6"]


def test_empty_unreadable_and_missing_files_are_bad_event(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text(json.dumps(start()) + "\n{not json\n")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    result = engine_cli("replay", str(empty), str(garbled), str(binary), str(tmp_path / "nope"))
    assert result.returncode == 1
    assert lines(result) == [
        {"error": "bad_event", "at": 0},
        {"error": "bad_event", "at": 1},
        {"error": "bad_event", "at": 0},
        {"error": "bad_event", "at": 0},
    ]


def test_a_record_must_begin_with_match_started(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(dump_record([DEAL_A]))
    assert lines(engine_cli("replay", str(path))) == [{"error": "wrong_phase", "at": 0}]


def test_view_prints_the_seat_view_of_the_final_state(tmp_path):
    events = [start(), DEAL_A, *accept_all(), {"type": "play", "seat": 1, "tile": "6-6"}]
    path = tmp_path / "r.jsonl"
    path.write_text(dump_record(events))
    result = engine_cli("view", str(path), "--seat", "2")
    assert result.returncode == 0
    view = json.loads(result.stdout)
    assert view == json.loads(json.dumps(Match.from_events(events).seat_view(2)))
    assert view["hand"] == DEAL_A["hands"]["2"] and "0-1" not in result.stdout


def test_simulate_prints_totals_credited_to_the_named_bots():
    result = engine_cli(
        "simulate",
        "--hands",
        "60",
        "--bots",
        "greedy,random,greedy,random",
        "--seed",
        "3",
        "--swap",
        "--workers",
        "2",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["hands"] == 60
    assert report["hand_wins"]["A"] + report["hand_wins"]["B"] + report["ties"] == 60
    low, high = report["hand_win_rate_A_ci95"]
    assert 0 <= low <= report["hand_win_rate_A"] <= high <= 1
    for key in ("matches", "match_wins", "dekabes", "seconds"):
        assert key in report
    again = json.loads(
        engine_cli(
            "simulate",
            "--hands",
            "60",
            "--bots",
            "greedy,random,greedy,random",
            "--seed",
            "3",
            "--swap",
        ).stdout
    )
    assert again["hand_wins"] == report["hand_wins"]  # same seed, any worker count


def test_simulate_rejects_unknown_bots():
    result = engine_cli("simulate", "--hands", "5", "--bots", "random,greedy,wizard,greedy")
    assert result.returncode == 2 and "wizard" not in result.stdout


# simulate lines written plainly: read without argparse (start-up), to the same values
PLAIN_SIMULATE_LINES = [
    ["simulate", "--hands", "20000", "--bots", "random,random,random,random"],
    ["simulate", "--matches", "3", "--swap", "--seed", "7", "--workers", "2"],
    ["simulate", "--bots", "strong,greedy,strong,greedy", "--hands", "5"],
    ["simulate", "--expert-iterations", "9", "--hands", " 12 ", "--bots", ""],
    ["simulate", "--swap", "--hands", "1_000", "--seed", "0"],
]
# anything else is argparse's: abbreviations, "=", repeats, "-" values, errors, help
OTHER_LINES = [
    [],
    ["replay", "simulate"],
    ["simulate"],
    ["simulate", "--bots", "random,random,random,random"],
    ["simulate", "--hand", "5"],
    ["simulate", "--hands=5"],
    ["simulate", "--hands", "5", "--hands", "6"],
    ["simulate", "--hands", "5", "--swap", "--swap"],
    ["simulate", "--hands", "-5"],
    ["simulate", "--hands", "5", "--matches", "2"],
    ["simulate", "--hands", "x"],
    ["simulate", "--hands"],
    ["simulate", "--hands", "5", "extra"],
    ["simulate", "--hands", "5", "-h"],
    ["simulate", "--bots", "--hands", "5"],
]


def test_a_plain_simulate_line_means_what_argparse_reads():
    for argv in PLAIN_SIMULATE_LINES:
        plain = plain_simulate(argv)
        assert plain is not None, argv
        args = build_parser().parse_args(argv)
        defaults = inspect.signature(run_simulate).parameters
        read = {name: plain.get(name, defaults[name].default) for name in defaults}
        assert read == {name: getattr(args, name) for name in defaults}, argv
        assert args.run is cmd_simulate


def test_any_other_line_is_left_to_argparse():
    for argv in OTHER_LINES:
        assert plain_simulate(argv) is None, argv


def test_bench_prints_its_figures():
    # Small counts: every figure is printed (the defaults' 5000 simulated hands and 100
    # expert decisions cost 17 s of CPU, the printing path is the same).
    result = engine_cli(
        "bench", "--seconds", "0.2", "--decisions", "4", "--hands", "200", "--expert-decisions", "2"
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["random_hands_per_second"] > 0 and figures["fold_1000_events_ms"] > 0
    assert figures["strong_decision"]["decisions"] == 4
    assert figures["simulate_random"]["hands"] == 200
    assert figures["simulate_random"]["hands_per_second_cpu"] > 0
    assert figures["expert_decision"]["decisions"] == 2
    assert figures["expert_worlds"]["worlds_per_second_cpu"] > 0
