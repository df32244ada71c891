"""Start the bot runner, or the host of computer players, as a separate process.

    from clients.bots.launch import start_runner
    runner = start_runner("http://127.0.0.1:8000", token, level="strong", delay=0.7)
    ...
    stop_runner(runner)

The runner (``make play``) serves every table that seats the bot account, now and
later, so one call covers all bot seats of all tables. ``start_host`` (``make serve``)
starts ``python -m clients.bots.host``: the house account's seats and every
server-hosted computer player. The token travels in the child's environment
(DEKABES_TOKEN), not on its command line, so ``ps`` does not show it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from clients.bots.policy import DEFAULT_LEVEL
from clients.bots.runner import DEFAULT_DELAY

REPO_ROOT = Path(__file__).resolve().parents[2]


def runner_command(
    server_url: str,
    level: str = DEFAULT_LEVEL,
    delay: float = DEFAULT_DELAY,
    tables: Sequence[str] = (),
    seats: Sequence[int] = (),
    extra_args: Sequence[str] = (),
    python: str | None = None,
) -> list[str]:
    command = [
        python or sys.executable,
        "-m",
        "clients.bots",
        "--server",
        server_url,
        "--level",
        level,
        "--delay",
        f"{delay:g}",
    ]
    for code in tables:
        command += ["--table", code]
    if seats:
        command += ["--seat", *map(str, seats)]
    return command + list(extra_args)


def start_runner(
    server_url: str,
    token: str,
    level: str = DEFAULT_LEVEL,
    delay: float = DEFAULT_DELAY,
    *,
    tables: Sequence[str] = (),
    seats: Sequence[int] = (),
    extra_args: Sequence[str] = (),
    log: IO | str | os.PathLike | None = None,
    python: str | None = None,
) -> subprocess.Popen:
    """Start ``python -m clients.bots`` for the account of ``token``; returns the process.

    ``log``: a file (or path) for the runner's log; default: inherit stderr.
    """
    command = runner_command(server_url, level, delay, tables, seats, extra_args, python)
    return _spawn(command, token, log)


def host_command(
    server_url: str,
    level: str | None = DEFAULT_LEVEL,
    delay: float = DEFAULT_DELAY,
    extra_args: Sequence[str] = (),
    python: str | None = None,
) -> list[str]:
    own = ["--level", level] if level is not None else ["--hosted-only"]
    return [
        python or sys.executable,
        "-m",
        "clients.bots.host",
        "--server",
        server_url,
        *own,
        "--delay",
        f"{delay:g}",
        *extra_args,
    ]


def start_host(
    server_url: str,
    token: str,
    level: str | None = DEFAULT_LEVEL,
    delay: float = DEFAULT_DELAY,
    *,
    extra_args: Sequence[str] = (),
    log: IO | str | os.PathLike | None = None,
    python: str | None = None,
) -> subprocess.Popen:
    """Start ``python -m clients.bots.host`` with the host account's ``token``: it plays
    that account's own seats at ``level`` (None: not at all) and every server-hosted
    computer player at its own level. Stop it with ``stop_runner``."""
    return _spawn(host_command(server_url, level, delay, extra_args, python), token, log)


def _spawn(command: list[str], token: str, log: IO | str | os.PathLike | None) -> subprocess.Popen:
    env = dict(os.environ)
    env["DEKABES_TOKEN"] = token
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env.setdefault("PYTHONUNBUFFERED", "1")
    stream = open(log, "ab") if isinstance(log, (str, os.PathLike)) else log
    try:
        return subprocess.Popen(
            command,
            cwd=str(REPO_ROOT),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stream if stream is not None else None,
            stderr=subprocess.STDOUT if stream is not None else None,
        )
    finally:
        if stream is not None and stream is not log:
            stream.close()  # the child holds its own copy of the descriptor


def stop_runner(process: subprocess.Popen, timeout: float = 5.0) -> int | None:
    """Ask the runner (or the host) to finish (SIGTERM), then kill it if it does not."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout)
    return process.returncode
