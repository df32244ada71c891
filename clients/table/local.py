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
import threading
import time
from collections.abc import Callable
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
    bot_token: str = field(default="", repr=False)
    level: str = "strong"

    def start_runner(self, delay: float) -> None:
        """The house bots' runner (a separate process: the bots' package loads the
        engine, so it is imported only here)."""
        from clients.bots.launch import start_runner

        self.runner = start_runner(
            self.url,
            self.bot_token,
            level=self.level,
            delay=delay,
            log=str(self.log_dir / "table-bots.log"),
        )

    def set_delay(self, delay: float) -> None:
        """The computer players' speed changed: restart their runner with it."""
        if self.runner is None or not self.bot_token:
            return
        from clients.bots.launch import stop_runner

        stop_runner(self.runner)
        self.start_runner(delay)

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


# One child process prepares the database and both tokens (instead of three
# ``manage.py`` runs: each pays for Python and Django again, ~3 s on a busy machine).
SETUP = """
import io, sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
tokens = []
for command, name in (("createbot", sys.argv[1]), ("playertoken", sys.argv[2])):
    out = io.StringIO()
    call_command(command, name, stdout=out)
    tokens.append(out.getvalue().strip())
print("\\n".join(tokens))
"""


class Cancelled(Exception):
    """The window was closed while the table was still starting."""


def _setup(env: dict, bot: str, player: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", SETUP, bot, player],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def _tokens(setup: subprocess.Popen, cancelled: threading.Event | None) -> tuple[str, str]:
    while True:
        try:
            out, err = setup.communicate(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            if cancelled is not None and cancelled.is_set():
                setup.kill()
                setup.communicate()
                raise Cancelled() from None
    lines = out.strip().splitlines()
    if setup.returncode != 0 or len(lines) < 2:
        raise RuntimeError(f"preparing the database failed: {err.strip()[-800:]}")
    return lines[-2].strip(), lines[-1].strip()


def _wait_until_up(
    url: str,
    process: subprocess.Popen,
    log: Path,
    seconds: float = 30,
    cancelled: threading.Event | None = None,
) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cancelled is not None and cancelled.is_set():
            raise Cancelled()
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
    progress: Callable[[str], None] | None = None,
    cancelled: threading.Event | None = None,
) -> LocalTable:
    """Start server + bots, create a casual table: ``humans`` seats for this player,
    the other seats for the house bots. ``var_dir`` holds the database and the logs.

    The database is prepared while Daphne loads (the server touches no table before
    its first request), so the table is ready after the slower of the two, not both.
    ``progress(step)`` is told "server", "computers", "table" as they begin;
    ``cancelled`` set (the window closed) stops everything started so far."""
    tell = progress or (lambda step: None)
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
    tell("server")
    setup = _setup(env, HOUSE_BOT, player or local_player_name())
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
    local = LocalTable(url, "", "", sorted(humans), server=server, log_dir=var)
    try:
        bot_token, local.token = _tokens(setup, cancelled)
        _wait_until_up(url, server, log, cancelled=cancelled)
        bots = [n for n in (1, 2, 3, 4) if n not in humans]
        if bots:
            tell("computers")
            local.bot_token, local.level = bot_token, level
            local.start_runner(delay)
        tell("table")
        with DekabesClient(url, local.token) as client:
            table = client.create_table(
                {n: ("human" if n in humans else "bot") for n in (1, 2, 3, 4)},
                join=sorted(humans),
                bots={n: HOUSE_BOT for n in bots},
            )
        local.code = table.code
        if cancelled is not None and cancelled.is_set():
            raise Cancelled()
        return local
    except BaseException:
        if setup.poll() is None:
            setup.kill()
            setup.communicate()
        local.stop()
        raise
