"""An SDK bot process that seeks and gets seated (issue #35): ``python -m clients.bots
--seek --accept-challenges`` against a real server in another process. It long-polls
the open seats and its challenges, takes the open seat a member's seek offers bots,
accepts the challenge the server let through its published terms, and plays."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from clients.sdk import ApiError, DekabesClient
from tests.clients.test_bot_runner_live import REPO, bot_of, member, runner_subprocess
from tests.conftest import LiveServer


def wait_for(what: str, check: Callable[[], Any], process: subprocess.Popen, log, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        if process.poll() is not None:
            pytest.fail(f"the bot process exited: {log.read_text()[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"{what}: not within {timeout} s\n{log.read_text()[-3000:]}")


def test_a_bot_process_takes_an_open_seat_and_accepts_a_challenge(live_server_url, tmp_path):
    author = member(live_server_url)
    bot = bot_of(author)
    author.publish_terms(bot.username, opponents="people", partners="people", games_per_day=5)
    ann = member(live_server_url)
    ann_bot = bot_of(ann)
    process = runner_subprocess(
        live_server_url,
        bot.token,
        tmp_path / "bot",
        "--seek",
        "--accept-challenges",
        "--max-games",
        "2",
    )
    log = tmp_path / "bot" / "runner.log"
    try:
        # the process is long-polling before the seek exists: the seek wakes it
        wait_for("the runner starts", lambda: log.exists() and "playing as" in log.read_text(),
                 process, log)  # fmt: skip
        made = ann.seek(wanted="bots", join=[1], bots={3: ann_bot.username, 4: ann_bot.username})
        code = made["table"]
        seated = wait_for(
            "the bot takes the open seat",
            lambda: ann.table(code).seats[2].player == bot.username,
            process,
            log,
        )
        assert seated
        assert ann.seek_info(made["id"])["status"] == "filled"
        # the table is full: the match starts, the bot's runner plays its seat
        wait_for(
            "the bot accepts its deal",
            lambda: ann.seat_view(code, 1).view["accepted"]["2"],
            process,
            log,
        )
        # a challenge inside its terms: the others accept, the bot process too
        bob, cid = member(live_server_url), member(live_server_url)
        challenge = ann.challenge(bob.me().username, [bot.username, cid.me().username])
        bob.accept(challenge["id"])
        cid.accept(challenge["id"])
        started = wait_for(
            "the bot accepts the challenge",
            lambda: (c := ann.challenges()["challenges"][0])["status"] == "started" and c,
            process,
            log,
        )
        assert started["table"]
        # outside its terms (a bot partner): refused before it is made, nothing to decline
        refused = None
        try:
            ann.challenge(ann_bot.username, [bot.username, bob.me().username])
        except Exception as problem:  # noqa: BLE001 - the SDK's ApiError, checked below
            refused = problem
        assert getattr(refused, "code", None) == "outside_terms"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_the_sdk_reads_a_daily_limit_with_its_retry_after(tmp_path):
    server = LiveServer(tmp_path, env={"DEKABES_OWNER_GAMES_PER_DAY": "1"}).start()
    try:
        client: DekabesClient = member(server.url)
        client.seek(wanted="people")
        with pytest.raises(ApiError) as refused:
            client.seek(wanted="people")
        assert refused.value.code == "daily_limit" and refused.value.status == 429
        assert refused.value.retry_after is not None and refused.value.retry_after > 3600
        assert len(client.open_seats()["seeks"]) == 1  # the refused seek made nothing
    finally:
        server.stop()


def test_the_guides_seeking_bot_takes_an_open_seat_and_plays_it(live_server_url, tmp_path):
    bot = bot_of(member(live_server_url))
    ann = member(live_server_url)
    ann_bot = bot_of(ann)
    log = tmp_path / "example.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(REPO / "examples" / "seeking_bot.py"),
             "--server", live_server_url, "--token", bot.token],
            cwd=tmp_path,
            env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO),
                 "PYTHONUNBUFFERED": "1"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        made = ann.seek(wanted="bots", bots={3: ann_bot.username, 4: ann_bot.username})
        code = made["table"]
        wait_for("the example is seated", lambda: f"seated at {code}" in log.read_text(),
                 process, log)  # fmt: skip
        assert ann.table(code).seats[2].player == bot.username
        wait_for("it accepts its deal", lambda: ann.seat_view(code, 1).view["accepted"]["2"],
                 process, log)  # fmt: skip
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_a_bot_with_nothing_to_take_seeks_players_itself_and_three_others_join(
    live_server_url, tmp_path
):
    bot = bot_of(member(live_server_url))
    process = runner_subprocess(
        live_server_url, bot.token, tmp_path / "bot", "--seek", "--make-seeks",
        "--patience", "0.5",
    )  # fmt: skip
    log = tmp_path / "bot" / "runner.log"
    try:
        watcher = member(live_server_url)

        def its_seek():
            seeks = watcher.open_seats()["seeks"]
            return next((s for s in seeks if s["owner"] == bot.username), None)

        made = wait_for("the bot's own seek", its_seek, process, log)
        assert made["wanted"] == "any" and made["open_seats"] == [2, 3, 4]
        for _ in range(3):  # three other members' bots, each seated by the SDK
            other = DekabesClient(live_server_url, bot_of(member(live_server_url)).token)
            taken = other.take_open_seat()
            assert isinstance(taken, tuple) and taken[0] == made["table"], taken
        assert watcher.seek_info(made["id"])["status"] == "filled"
        owner_view = DekabesClient(live_server_url, bot.token)
        wait_for(
            "the seeking bot accepts its deal",
            lambda: owner_view.seat_view(made["table"], 1).view["accepted"]["1"],
            process,
            log,
        )
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
