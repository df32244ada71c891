"""`make serve` and the files it leaves (issue 11.4, 11.8, 11.11): owner-only var/,
no hard-coded secret, ALLOWED_HOSTS off loopback, and Ctrl-C stopping every child."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import requests

from server import run
from tests.conftest import IGNORING_SIGINT, ROOT, free_port


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_var_the_database_and_the_generated_secret_are_owner_only(tmp_path):
    var = tmp_path / "var"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY", "DEKABES_SQLITE_PATH")
    }
    env.update({"DEKABES_VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "server.settings"})
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=300
    )
    assert mode(var) == 0o700
    assert mode(var / "dekabes.sqlite3") == 0o600
    assert mode(var / "secret_key") == 0o600
    for extra in var.glob("dekabes.sqlite3-*"):
        assert mode(extra) == 0o600, extra
    secret = (var / "secret_key").read_text().strip()
    assert len(secret) >= 50
    printed = subprocess.run(
        [
            sys.executable,
            "-c",
            "from django.conf import settings; import django; "
            "django.setup(); print(settings.SECRET_KEY)",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.strip()
    assert printed == secret  # the same key on the next start
    assert "dev-only" not in printed


def test_binding_beyond_loopback_sets_allowed_hosts_and_warns_about_open_registration(capsys):
    env = run.public_environment("0.0.0.0", {})
    hosts = env["DJANGO_ALLOWED_HOSTS"].split(",")
    assert "*" not in hosts and "127.0.0.1" in hosts
    assert "WARNING" in capsys.readouterr().out
    kept = run.public_environment(
        "0.0.0.0", {"DJANGO_ALLOWED_HOSTS": "club.example", "DEKABES_REGISTRATION": "invite"}
    )
    assert kept["DJANGO_ALLOWED_HOSTS"] == "club.example"
    assert "WARNING" not in capsys.readouterr().out
    assert (
        run.is_loopback("127.0.0.1") and run.is_loopback("::1") and not run.is_loopback("0.0.0.0")
    )


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").glob("*"))
        except OSError:  # it exited meanwhile
            continue
        for task in tasks:
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "X"  # a zombie ("Z") counts as left behind


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def hosts_among(pids: set[int]) -> set[int]:
    return {p for p in pids if alive(p) and b"clients.bots.host" in command_line(p)}


def start_serve(tmp_path: Path, port: int, log, sigint_ignored: bool = False) -> subprocess.Popen:
    """``python -m server.run`` in a session of its own, with the runner's signal
    dispositions (``sigint_ignored``: SIGINT ignored whatever they are, as a script's
    background job starts; server.run must stop on Ctrl-C either way)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"DEKABES_VAR_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"})
    command = [sys.executable, "-m", "server.run", "--port", str(port), "--delay", "0"]
    if sigint_ignored:
        command = [sys.executable, "-c", IGNORING_SIGINT, *command[1:]]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )


def wait_for_children(
    serve: subprocess.Popen, port: int, tmp_path: Path, seen: set[int], kill_first=None
) -> None:
    """Daphne and a host (other than ``kill_first``) among the descendants."""
    deadline = time.monotonic() + (120 if kill_first is None else 60)
    while time.monotonic() < deadline:
        try:
            requests.get(f"http://127.0.0.1:{port}/api/me", timeout=5)
            seen |= descendants(serve.pid)
            if len(seen) >= 2 and hosts_among(seen) - {kill_first}:
                return
        except requests.RequestException:
            pass
        assert serve.poll() is None, (tmp_path / "serve.log").read_text()
        time.sleep(0.2)
    raise AssertionError((tmp_path / "serve.log").read_text())


def wait_for_sign_ins(tmp_path: Path, count: int) -> None:
    host_log = tmp_path / "house-bots.log"
    deadline = time.monotonic() + 60
    while not host_log.exists() or host_log.read_text().count("playing as house") < count:
        assert time.monotonic() < deadline, host_log.read_text() if host_log.exists() else ""
        time.sleep(0.2)


def ctrl_c_stops_everything(serve: subprocess.Popen, port: int, tmp_path, children) -> None:
    os.killpg(serve.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    try:
        serve.wait(90)
    except subprocess.TimeoutExpired:
        os.kill(serve.pid, signal.SIGUSR1)  # server.run prints its threads' stacks
        time.sleep(2)
        raise AssertionError((tmp_path / "serve.log").read_text()[-6000:]) from None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(alive(c) for c in children):
        time.sleep(0.2)
    assert not [c for c in children if alive(c)]  # Daphne and the host(s)
    try:
        requests.get(f"http://127.0.0.1:{port}/api/me", timeout=5)
        serving = True
    except requests.RequestException:
        serving = False
    assert not serving


def clean_up(serve: subprocess.Popen, tmp_path: Path, children: set[int]) -> None:
    # every child at the end too (a host or an analyser restarted after the test last
    # looked): once server.run is killed they are no longer found under it
    children |= descendants(serve.pid)
    if serve.poll() is None:
        serve.kill()
    for pid in children:  # only if still ours: a pid may have been reused
        if alive(pid) and str(tmp_path).encode() in _environ(pid):
            os.kill(pid, signal.SIGKILL)
    serve.wait(30)


def test_make_serve_restarts_a_killed_host_and_ctrl_c_stops_daphne_and_the_host(tmp_path):
    port = free_port()
    log = open(tmp_path / "serve.log", "wb")
    serve = start_serve(tmp_path, port, log)
    children: set[int] = set()
    try:
        wait_for_children(serve, port, tmp_path, children)
        wait_for_sign_ins(tmp_path, 1)
        daphnes = [c for c in children if b"daphne" in command_line(c)]
        assert [b"DEKABES_TICK_SECONDS=60.0" in _environ(c).split(b"\0") for c in daphnes] == [
            True
        ]  # the server ticks in its own process (server/league/tick.py)
        (first_host,) = hosts_among(children)
        os.kill(first_host, signal.SIGKILL)  # the host dies: make serve starts another
        wait_for_children(serve, port, tmp_path, children, kill_first=first_host)
        (second_host,) = hosts_among(children)
        assert second_host != first_host
        host_log = (tmp_path / "house-bots.log").read_text()
        assert "exited with code -9; starting it again in 1 s" in host_log
        wait_for_sign_ins(tmp_path, 2)  # the new host plays
        ctrl_c_stops_everything(serve, port, tmp_path, children)
    finally:
        clean_up(serve, tmp_path, children)
        log.close()


def test_ctrl_c_stops_make_serve_started_with_sigint_ignored(tmp_path):
    """A script's background job (`nohup bash -c '.ci/run' &`) starts with SIGINT ignored,
    and so did server.run, Daphne and the host under it: Ctrl-C stopped nothing. server.run
    takes SIGINT back (a server asked to stop stops), and its children with it."""
    port = free_port()
    log = open(tmp_path / "serve.log", "wb")
    serve = start_serve(tmp_path, port, log, sigint_ignored=True)
    children: set[int] = set()
    try:
        wait_for_children(serve, port, tmp_path, children)
        wait_for_sign_ins(tmp_path, 1)
        ctrl_c_stops_everything(serve, port, tmp_path, children)
    finally:
        clean_up(serve, tmp_path, children)
        log.close()


def _environ(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return b""


def test_the_supervisor_restarts_a_child_after_a_pause_that_doubles(tmp_path):
    """server.run's supervision of the host, with a child that exits at once."""

    class Quick(run.Supervised):
        FIRST_PAUSE, LONGEST_PAUSE, HEALTHY_AFTER = 0.05, 0.2, 600.0

    exits = Quick(
        "a failing child",
        lambda: subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"]),
        tmp_path / "child.log",
    )
    try:
        deadline = time.monotonic() + 60
        while exits.restarts < 4:
            assert time.monotonic() < deadline
            exits.check()
            time.sleep(0.01)
    finally:
        exits.stop()
    lines = (tmp_path / "child.log").read_text().splitlines()
    pauses = [line.rsplit(" in ", 1)[1] for line in lines]
    assert pauses == ["0.05 s", "0.1 s", "0.2 s", "0.2 s"]
    assert all("a failing child exited with code 3" in line for line in lines)
    assert exits.process is None


def test_one_server_process_ticks_and_the_others_never():
    """server.run's tick (server/league/tick.py) runs in a server process, where presence
    is seen: the one Daphne, or the first of ``--workers N``; every minute unless the
    operator set DEKABES_TICK_SECONDS."""
    env = {"PATH": "/bin"}
    assert run.server_environment(env, ticks=True)["DEKABES_TICK_SECONDS"] == "60.0"
    assert run.server_environment(env, ticks=False)["DEKABES_TICK_SECONDS"] == "0"
    mine = {**env, "DEKABES_TICK_SECONDS": "15"}
    assert run.server_environment(mine, ticks=True)["DEKABES_TICK_SECONDS"] == "15"
    assert run.server_environment(mine, ticks=False)["DEKABES_TICK_SECONDS"] == "0"
    assert env == {"PATH": "/bin"}  # the caller's, unchanged (the host's and the analyser's)
