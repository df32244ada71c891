"""The one-file desktop app, built and started as a member would (issue 34). Slow (a
PyInstaller build: minutes), so only when asked: ``make app-test`` (or
``DEKABES_APP_TEST=1``). It builds the Linux app (``make app``), starts it under a real
X server (Xvfb) from a ``dekabes://`` link of a table on a test server, with the account
remembered in a fresh settings folder, and waits until the table is on screen; then
again (warm), and once more through ``xdg-open`` (the link handler the first start
installed). It prints the figures: size on disk, time to the window and to the table,
idle CPU and memory (``/proc`` of the app's processes: the one-file launcher and the
app it unpacks)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from clients.sdk import DekabesClient

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "var" / "downloads" / f"dekabes-linux-{os.uname().machine}"
PASSWORD = "a long enough password 42"

pytestmark = pytest.mark.skipif(
    os.environ.get("DEKABES_APP_TEST") != "1",
    reason="builds the one-file app (minutes): make app-test, or DEKABES_APP_TEST=1",
)


def _xvfb():
    """A private X server; returns (process, DISPLAY)."""
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    read, write = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as stream:
        number = stream.readline().strip()
    return process, f":{number}"


def _process_tree(pid: int) -> list[int]:
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found += _process_tree(int(entry.name))
    return found


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total


def _rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024, 1)


def _wait_for(log: Path, event: str, timeout: float = 90.0) -> dict[str, float]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists():
            events = {}
            for line in log.read_text().splitlines():
                entry = json.loads(line)
                events.setdefault(entry["event"], entry["t"])
            if event in events:
                return events
        time.sleep(0.05)
    raise AssertionError(
        f"the app never logged {event!r}: {log.read_text() if log.exists() else ''}"
    )


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def test_the_built_app_opens_a_table_from_a_link(live_server_url, tmp_path):
    started = time.monotonic()
    if os.environ.get("DEKABES_APP_REUSE") != "1" or not APP.exists():
        subprocess.run(["make", "app"], cwd=ROOT, check=True, timeout=1800)
    build_s = round(time.monotonic() - started, 1)
    assert APP.is_file() and os.access(APP, os.X_OK)

    owner = DekabesClient(live_server_url)
    name = f"app{uuid.uuid4().hex[:8]}"
    account = owner.register(name, PASSWORD)
    code = owner.create_table({n: "human" for n in (1, 2, 3, 4)}, join=[1]).code
    link = f"dekabes://{live_server_url.split('://', 1)[1]}/table/{code}"

    # The account remembered as the app keeps it: the settings file names it, the token
    # is in the token store (no keyring on this machine: the owner-only file).
    folder = tmp_path / "config"
    env = dict(os.environ, DEKABES_CONFIG_DIR=str(folder), DEKABES_TOKEN_STORE="file")
    script = (
        "from clients.table import config\n"
        f"s = config.Settings(server={live_server_url!r})\n"
        f"s.accounts[{live_server_url!r}] = {{'username': {name!r}, 'token': {account.token!r}}}\n"
        "config.save(s)\n"
    )
    subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-c", script], cwd=ROOT, env=env, check=True
    )
    assert account.token not in (folder / "table.json").read_text()

    xvfb, display = _xvfb()
    home = Path(tempfile.mkdtemp(prefix="dekabes-app-home-"))
    runs: list[dict] = []
    processes: list[subprocess.Popen] = []
    try:
        base = dict(
            env,
            DISPLAY=display,
            HOME=str(home),
            XDG_DATA_HOME=str(home / "data"),
            XDG_CONFIG_HOME=str(home / "xdg-config"),
            SDL_AUDIODRIVER="dummy",
        )
        for run in ("cold", "warm", "xdg-open"):
            log = home / f"{run}.log"
            launched = time.time()
            command = ["xdg-open", link] if run == "xdg-open" else [str(APP), link]
            run_env = dict(base, DEKABES_STARTUP_LOG=str(log))
            process = subprocess.Popen(
                command, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            processes.append(process)
            events = _wait_for(log, "deal")
            figures = {
                "run": run,
                "window_s": round(events["window"] - launched, 2),
                "table_s": round(events["deal"] - launched, 2),
            }
            if run == "warm":
                pids = _process_tree(process.pid)
                time.sleep(3)  # settled on the table (the accept screen)
                before, at = _cpu_ticks(pids), time.monotonic()
                time.sleep(10)
                ticks, seconds = _cpu_ticks(pids) - before, time.monotonic() - at
                hertz = os.sysconf("SC_CLK_TCK")
                figures["idle_cpu_pct"] = round(100 * ticks / hertz / seconds, 2)
                figures["rss_mb"] = _rss_mb(pids)
                figures["processes"] = len(pids)
            runs.append(figures)
            if run == "xdg-open":  # the app started by the handler: find and stop it
                for line in subprocess.run(
                    ["pgrep", "-f", str(APP)], capture_output=True, text=True
                ).stdout.split():
                    if int(line) not in {p.pid for p in processes}:
                        os.kill(int(line), 15)
            _stop(process)
            seat = owner.seat_view(code, 1).raw["presence"]["1"]
            assert seat["connected"], "the app reached the server as the remembered account"
        entry = (home / "data" / "applications" / "dekabes.desktop").read_text()
        assert f"Exec={APP} %u" in entry and "MimeType=x-scheme-handler/dekabes;" in entry
        default = subprocess.run(
            ["xdg-mime", "query", "default", "x-scheme-handler/dekabes"],
            env=base,
            capture_output=True,
            text=True,
        ).stdout.strip()
        assert default == "dekabes.desktop"
        size_mb = round(APP.stat().st_size / 1_000_000, 1)
        print(json.dumps({"build_s": build_s, "size_mb": size_mb, "runs": runs}))
    finally:
        for process in processes:
            _stop(process)
        _stop(xvfb)
        shutil.rmtree(home, ignore_errors=True)
