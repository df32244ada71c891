"""``--local`` (what ``make play`` runs): server and bots start, a table is made for
the player, and quitting stops everything that was started."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pygame
import pytest
import requests

from clients.sdk import DekabesClient
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import Connection
from clients.table.local import HOUSE_BOT, start_local
from tests.conftest import IGNORING_SIGINT

ROOT = Path(__file__).resolve().parents[2]


def _answers(url: str) -> bool:
    try:
        requests.get(url + "/api/me", timeout=1)
        return True
    except requests.ConnectionError:
        return False


def test_start_local_seats_the_player_and_quitting_the_window_stops_it(tmp_path):
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    local = start_local([1, 3], level="random", delay=0, var_dir=tmp_path, player="tester")
    try:
        with DekabesClient(local.url, local.token) as client:
            table = client.table(local.code)
            assert client.me().username == "tester"
        assert table.seats[1].player == "tester" and table.seats[3].player == "tester"
        assert table.seats[2].player == HOUSE_BOT and table.seats[4].player == HOUSE_BOT
        assert local.runner.poll() is None and local.server.poll() is None
        pygame.init()
        connection = Connection(local.url, local.token, local.code).start()
        app = TableApp(
            connection,
            Settings(lang="en"),
            size=(800, 600),
            save_settings=False,
            on_quit=local.stop,
        )
        app.open_window()
        deadline = time.monotonic() + 20
        while app.decide().kind == "connecting" and time.monotonic() < deadline:
            app.tick([])
            time.sleep(0.02)
        assert app.seating.seats == [1, 3]
        server, runner = local.server, local.runner
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        app.tick()
        assert not app.running
        assert server.poll() is not None and runner.poll() is not None
        assert not _answers(local.url)
        connection.close()
    finally:
        local.stop()
        pygame.quit()


@pytest.mark.parametrize(
    ("stop", "start"),
    [(signal.SIGTERM, ["-m"]), (signal.SIGINT, ["-c", IGNORING_SIGINT, "-m"])],
    ids=["sigterm", "sigint-after-starting-with-it-ignored"],
)
def test_the_command_line_starts_the_local_table_and_a_signal_stops_it(tmp_path, stop, start):
    env = dict(
        os.environ,
        SDL_VIDEODRIVER="dummy",
        SDL_AUDIODRIVER="dummy",
        DEKABES_VAR_DIR=str(tmp_path),
        DEKABES_CONFIG_DIR=str(tmp_path / "config"),
        DEKABES_STARTUP_LOG=str(tmp_path / "startup.jsonl"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("DATABASE_URL", None)
    process = subprocess.Popen(
        [
            sys.executable,
            *start,
            "clients.table",
            "--local",
            "--humans",
            "1",
            "--level",
            "random",
            "--delay",
            "0",
            "--lang",
            "es",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group, the server and bots in it
    )
    url = None
    try:
        deadline = time.monotonic() + 90
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            match = re.search(r"table (\w+) at (http://\S+)", line)
            if match:
                url = match.group(2)
        assert url, "the client did not report its table"
        assert _answers(url)
        # The window showed (the start screen) before the server was there; the deal
        # is drawn once the table answers.
        moments = [json.loads(line) for line in (tmp_path / "startup.jsonl").open()]
        assert moments[0]["event"] == "window"
        deadline = time.monotonic() + 60
        while not any(m["event"] == "deal" for m in moments) and time.monotonic() < deadline:
            time.sleep(0.2)
            moments = [json.loads(line) for line in (tmp_path / "startup.jsonl").open()]
        deal = next(m for m in moments if m["event"] == "deal")
        assert moments[0]["t"] < deal["t"]
        time.sleep(1.0)  # the window is up and the loop runs
        assert process.poll() is None
        if stop == signal.SIGINT:
            os.killpg(process.pid, stop)  # Ctrl-C: the terminal signals the whole group
        else:
            process.send_signal(stop)  # a service manager signals the process
        assert process.wait(30) == 0
        assert not _answers(url), "the embedded server outlived the client"
        saved = (tmp_path / "config" / "table.json").read_text()
        assert '"lang": "es"' in saved, "settings are remembered"
    finally:
        with contextlib.suppress(ProcessLookupError):  # whatever of the group is left
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
        process.stdout.close()


def test_bad_command_lines_are_refused_with_a_message():
    env = {k: v for k, v in os.environ.items() if k != "DEKABES_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "clients.table", "--server", "http://x", "--table", "ABCDEF"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2 and "--token" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "clients.table", "--local", "--humans", "0,5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "seats are numbers 1-4" in done.stderr
