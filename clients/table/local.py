"""``--local``: the embedded server and the house bots on this machine, then a new table.

The table client stays a thin client even here: it starts the real server (Daphne, in
a child process, on a free loopback port) and the bot runner (another child process,
an API client like any third-party bot), and talks to them over HTTP and WebSocket.
``stop()`` ends both; the window's quit calls it.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from clients.sdk import DekabesClient

ROOT = Path(__file__).resolve().parents[2]
HOUSE_BOT = "house"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def local_player_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:
        name = ""
    name = re.sub(r"[^A-Za-z0-9_.-]", "", name)[:40]
    return name if len(name) >= 3 and name != HOUSE_BOT else "player"


@dataclass
class LocalTable:
    """What ``start_local`` started: the server URL, the player's token, the table code."""

    url: str
    token: str
    code: str
    humans: list[int]
    server: subprocess.Popen | None = None
    runner: subprocess.Popen | None = None
    log_dir: Path = field(default_factory=lambda: ROOT / "var")

    def stop(self) -> None:
        if self.runner is not None:
            from clients.bots.launch import stop_runner  # the bots' package loads the engine

            stop_runner(self.runner)
            self.runner = None
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(5)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait(5)
        self.server = None


def _manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {args[0]} failed: {done.stderr.strip()[-800:]}")
    return done.stdout.strip()


def _wait_until_up(url: str, process: subprocess.Popen, log: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped: {log.read_text(errors='replace')[-1500:]}")
        try:
            requests.get(url + "/api/me", timeout=5)
            return
        except requests.RequestException:  # refused, or slow to answer on a busy machine
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer within {seconds:.0f} s")


def start_local(
    humans: list[int],
    level: str = "strong",
    delay: float = 0.7,
    var_dir: Path | None = None,
    player: str | None = None,
) -> LocalTable:
    """Start server + bots, create a casual table: ``humans`` seats for this player,
    the other seats for the house bots. ``var_dir`` holds the database and the logs."""
    var = Path(var_dir or os.environ.get("DEKABES_VAR_DIR") or ROOT / "var")
    var.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    for name in ("DATABASE_URL", "REDIS_URL"):  # the embedded default, always
        env.pop(name, None)
    env.update(
        {
            "DEKABES_VAR_DIR": str(var),
            "DEKABES_SQLITE_PATH": str(var / "dekabes.sqlite3"),
            "DJANGO_SETTINGS_MODULE": "server.settings",
            "PYTHONUNBUFFERED": "1",
        }
    )
    _manage(env, "migrate", "-v0")
    bot_token = _manage(env, "createbot", HOUSE_BOT)
    token = _manage(env, "playertoken", player or local_player_name())
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = var / "table-server.log"
    with open(log, "ab") as stream:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "server.asgi:application",
            ],
            cwd=ROOT,
            env=env,
            stdout=stream,
            stderr=stream,
            stdin=subprocess.DEVNULL,
        )
    local = LocalTable(url, token, "", sorted(humans), server=server, log_dir=var)
    try:
        _wait_until_up(url, server, log)
        bots = [n for n in (1, 2, 3, 4) if n not in humans]
        if bots:
            # a separate process; imported here because the bots' package loads the engine
            from clients.bots.launch import start_runner

            local.runner = start_runner(
                url, bot_token, level=level, delay=delay, log=str(var / "table-bots.log")
            )
        with DekabesClient(url, token) as client:
            table = client.create_table(
                {n: ("human" if n in humans else "bot") for n in (1, 2, 3, 4)},
                join=sorted(humans),
                bots={n: HOUSE_BOT for n in bots},
            )
        local.code = table.code
        return local
    except BaseException:
        local.stop()
        raise
