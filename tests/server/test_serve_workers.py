"""`make serve WORKERS=N`: N Daphne processes on one socket (issue 10.4), every one of them
answering, and Ctrl-C stopping them all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from server import run
from tests.conftest import ROOT, free_port
from tests.server.test_hardening_serve import alive, descendants


def test_several_workers_need_redis(monkeypatch, capsys):
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit):
        run.main(["--workers", "2", "--no-bots"])
    assert "REDIS_URL" in capsys.readouterr().err


def test_workers_must_be_at_least_one(capsys):
    with pytest.raises(SystemExit):
        run.main(["--workers", "0", "--no-bots"])
    assert "--workers" in capsys.readouterr().err


def daphne_pids(pid: int) -> set[int]:
    out = set()
    for child in descendants(pid):
        try:
            command = open(f"/proc/{child}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if b"daphne" in command:
            out.add(child)
    return out


@pytest.mark.backend
@pytest.mark.skipif(
    not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")),
    reason="several workers run on PostgreSQL + Redis (DATABASE_URL, REDIS_URL)",
)
def test_two_workers_share_one_port_and_ctrl_c_stops_both(tmp_path):
    port = free_port()
    env = dict(os.environ, DEKABES_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1")
    log = open(tmp_path / "serve.log", "wb")
    serve = subprocess.Popen(
        [sys.executable, "-m", "server.run", "--port", str(port), "--no-bots", "--workers", "2"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and len(workers) < 2:
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()
            workers = daphne_pids(serve.pid)
            time.sleep(0.2)
        assert len(workers) == 2, (tmp_path / "serve.log").read_text()
        wait_for_answer(port)
        before = {pid: writes(pid) for pid in workers}
        # Fresh connections, until each worker has answered one: the kernel hands them to
        # either worker once both accept, and on a busy machine the second may start
        # accepting late (the deadline is generous, the usual case is a few connections).
        grew: list[int] = []
        deadline = time.monotonic() + 180
        while len(grew) < 2 and time.monotonic() < deadline:
            response = requests.get(
                f"http://127.0.0.1:{port}/api/me", timeout=30, headers={"Connection": "close"}
            )
            assert response.status_code == 401  # answered by Django
            grew = [pid for pid in workers if writes(pid) > before[pid]]
        assert len(grew) == 2, "one of the two workers answered nothing in 180 s"
        os.killpg(serve.pid, signal.SIGINT)
        serve.wait(240)  # a busy machine: the workers finish their requests first
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(alive(pid) for pid in workers):
            time.sleep(0.2)
        assert not [pid for pid in workers if alive(pid)]
    finally:
        if serve.poll() is None:
            serve.kill()
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def wait_for_answer(port: int) -> None:
    deadline = time.monotonic() + 300
    while True:
        try:
            requests.get(f"http://127.0.0.1:{port}/api/me", timeout=10)
            return
        except requests.RequestException:
            assert time.monotonic() < deadline, "the workers never answered"
            time.sleep(0.2)


def writes(pid: int) -> int:
    """The process's write system calls so far: an idle worker makes none."""
    for line in open(f"/proc/{pid}/io"):
        if line.startswith("syscw:"):
            return int(line.split()[1])
    raise AssertionError("no syscw in /proc/<pid>/io")
