"""The bot runner against a real Daphne server in another process.

The runner only gets a URL and a token: it runs as ``python -m clients.bots`` in its
own temporary folder with no database settings, or in-process with nothing but a
``DekabesClient``.
"""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient, StaleVersion
from engine import Match, load_record
from tests.records import replay_summary

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "a long enough password 42"


def member(url: str) -> DekabesClient:
    client = DekabesClient(url)
    client.register(f"ann{uuid.uuid4().hex[:10]}", PASSWORD)
    return client


def bot_of(owner: DekabesClient):
    return owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")


def all_bot_table(owner: DekabesClient, bot_name: str):
    return owner.create_table(
        {n: "bot" for n in (1, 2, 3, 4)}, bots={n: bot_name for n in (1, 2, 3, 4)}
    )


def human_table(owner: DekabesClient, bot_name: str):
    return owner.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"}, join=[1], bots={n: bot_name for n in (2, 3, 4)}
    )


def runner_subprocess(url: str, token: str, workdir: Path, *args: str) -> subprocess.Popen:
    """``python -m clients.bots`` with nothing of the server's: own folder, bare environment."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(REPO),
        "DEKABES_TOKEN": token,
        "PYTHONUNBUFFERED": "1",
    }
    log = open(workdir / "runner.log", "wb")
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "clients.bots",
            "--server",
            url,
            "--delay",
            "0",
            "--poll-wait",
            "5",
            *args,
        ],
        cwd=workdir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def finish(process: subprocess.Popen, workdir: Path, timeout: float = 150) -> str:
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        pytest.fail("runner did not finish:\n" + (workdir / "runner.log").read_text()[-3000:])
    log = (workdir / "runner.log").read_text()
    assert process.returncode == 0, log[-3000:]
    return log


def test_runner_module_does_not_load_the_server():
    probe = (
        "import sys, clients.bots.__main__, clients.bots.runner, clients.bots.launch; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'server', "
        "'rest_framework', 'channels')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_one_runner_process_plays_two_full_matches_and_the_records_replay(
    live_server_url, tmp_path
):
    owner = member(live_server_url)
    bot = bot_of(owner)
    first = all_bot_table(owner, bot.username)
    process = runner_subprocess(
        live_server_url,
        bot.token,
        tmp_path / "runner",
        "--level",
        "greedy",
        "--exit-when-over",
        "--discover-every",
        "0.5",
        "--seed",
        "11",
    )
    second = all_bot_table(owner, bot.username)  # created while the runner is up
    log = finish(process, tmp_path / "runner")
    bots = DekabesClient(live_server_url, bot.token)
    for table in (first, second):
        final = bots.seat_view(table.code, 1)
        assert final.phase == "match_over", log[-2000:]
        assert final.view["winner"] in ("A", "B")
        assert final.view["scores"][final.view["winner"]] >= 4
        record = owner.record(table.code)
        summary = replay_summary(record, tmp_path)
        assert summary == Match.from_events(load_record(record)).summary()
        assert summary["scores"] == final.view["scores"]
        assert summary["winner"] == final.view["winner"]
        assert len(summary["results"]) == len(final.view["results"])
    assert "Traceback" not in log


def _human_turn(state) -> bool:
    return state.match_over or (bool(state.legal) and not state.paused)


def _human_plays_until_bots_answer(owner: DekabesClient, code: str):
    """Drive seat 1 until one of its plays is answered by all three bots within the hand.
    Returns (state just before that play, state once it is seat 1's turn again)."""
    for _ in range(200):
        state = owner.wait_until(code, 1, _human_turn, timeout=60)
        assert not state.match_over
        plays = [e for e in state.legal if e["type"] == "play"]
        if state.phase != "play" or not plays:
            try:
                owner.send_event(code, state.legal[0], expected_version=state.version)
            except StaleVersion:  # a bot accepted the deal meanwhile: look again
                pass
            continue
        owner.send_event(code, plays[0], expected_version=state.version)
        answered = owner.wait_until(code, 1, _human_turn, timeout=60)
        same_hand = answered.phase == "play" and answered.view["hand_no"] == state.view["hand_no"]
        if same_hand and len(answered.view["turns"]) >= len(state.view["turns"]) + 4:
            return state, answered
    pytest.fail("no human play was answered by the bots within a hand")


def test_undo_takes_back_the_human_play_and_the_bot_answers_redo_restores_them(live_server_url):
    owner = member(live_server_url)
    bot = bot_of(owner)
    table = human_table(owner, bot.username)
    runner = Runner(
        DekabesClient(live_server_url, bot.token),
        RunnerOptions(level="greedy", delay=0, tables=(table.code,), poll_wait=5, seed=3),
    ).start()
    try:
        before, answered = _human_plays_until_bots_answer(owner, table.code)
        undone = owner.act(table.code, 1, "undo", expected_version=answered.version)
        assert undone.view["turns"] == before.view["turns"]
        assert undone.view["hand"] == before.view["hand"]
        assert undone.view["tile_counts"] == before.view["tile_counts"]
        assert undone.to_act == 1 and undone.view["can_redo"]
        # The bots follow the new state: it is seat 1's turn, so they send nothing.
        idle = owner.seat_view(table.code, 1, wait=1.5, after=undone.version)
        assert idle.version == undone.version
        redone = owner.act(table.code, 1, "redo", expected_version=undone.version)
        assert redone.view["turns"] == answered.view["turns"]  # same tiles, same order
        assert redone.view["hand"] == answered.view["hand"]
        assert redone.view["line"] == answered.view["line"]
        events = owner.events(table.code, 1)["events"]
        assert [e["type"] for e in events[-2:]] == ["undo", "redo"]
        assert runner.stats.rejected == 0
    finally:
        runner.stop()


def test_no_bot_action_while_paused_and_no_spinning(live_server_url):
    owner = member(live_server_url)
    bot = bot_of(owner)
    table = human_table(owner, bot.username)
    start = owner.seat_view(table.code, 1)
    paused = owner.act(table.code, 1, "pause", expected_version=start.version)
    assert paused.paused
    runner = Runner(
        DekabesClient(live_server_url, bot.token),
        RunnerOptions(level="greedy", delay=0, tables=(table.code,), poll_wait=25, seed=5),
    ).start()
    try:
        owner.seat_view(table.code, 1, wait=0.5, after=paused.version)  # let it settle
        requests_before = runner.request_count()
        quiet = owner.seat_view(table.code, 1, wait=2.5, after=paused.version)
        assert quiet.version == paused.version  # nothing appended while paused
        assert quiet.view["accepted"] == paused.view["accepted"]
        # Waiting is a long-poll: at most a request or two in the whole window.
        assert runner.request_count() - requests_before <= 2
        resumed = owner.act(table.code, 1, "resume", expected_version=quiet.version)
        assert not resumed.paused
        accepted = owner.wait_until(
            table.code, 1, lambda s: all(s.view["accepted"][k] for k in ("2", "3", "4")), timeout=30
        )
        assert not accepted.view["accepted"]["1"]
        # The runner counts an action once its answer is back: the table may show the
        # third accept a moment before that.
        deadline = time.monotonic() + 30
        while runner.stats.actions < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert runner.stats.actions >= 3
    finally:
        runner.stop()


def test_a_house_bot_leaves_a_finished_table_and_comes_back_for_a_new_match(live_server_url):
    owner = member(live_server_url)
    bot = bot_of(owner)
    table = human_table(owner, bot.username)
    runner = Runner(
        DekabesClient(live_server_url, bot.token),
        RunnerOptions(level="greedy", delay=0, discover_every=0.5, poll_wait=5, seed=9),
    ).start()
    try:
        state = owner.wait_until(table.code, 1, _human_turn, timeout=60)
        while not state.match_over:  # seat 1 plays its first legal event to the end
            try:
                owner.send_event(table.code, state.legal[0], expected_version=state.version)
            except StaleVersion:  # a bot moved first (both accept a deal at once): look again
                pass
            state = owner.wait_until(table.code, 1, _human_turn, timeout=60)
        # The bot does not hold the finished table: its worker ends, no long-poll waits.
        deadline = time.monotonic() + 60
        while table.code in runner.workers and time.monotonic() < deadline:
            time.sleep(0.2)
        assert table.code not in runner.workers
        left = owner.seat_view(table.code, 1)
        assert left.match_over
        assert "new_match" in left.allowed
        fresh = owner.act(table.code, 1, "new_match", expected_version=left.version)
        assert fresh.phase == "accept"
        # Discovery sees the table playing again and the bots accept the new deal.
        accepted = owner.wait_until(
            table.code, 1, lambda s: all(s.view["accepted"][k] for k in ("2", "3", "4")), timeout=30
        )
        assert not accepted.view["accepted"]["1"]
        assert runner.stats.rejected == 0
    finally:
        runner.stop()
