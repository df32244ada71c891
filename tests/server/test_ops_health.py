"""/healthz and the scheduled backups (issue #36): every check answered, 503 only on a
failure, "not configured" for what this server does not run; backup rotation; make serve
running the scheduled backup and reporting its children."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.test import Client, override_settings

from server.ops import health
from server.ops.backup import rotate
from tests.conftest import ROOT, free_port

CHECKS = {
    "database",
    "channel_layer",
    "computer_players",
    "analyser",
    "mail_queue",
    "disk",
    "last_backup",
}


def healthz() -> tuple[int, dict]:
    health._kept = None  # each call of the test sees the files as they are now
    answer = Client().get("/healthz")
    return answer.status_code, json.loads(answer.content)


def supervisor(var: Path, age: float = 0.0, host_running: bool = True) -> None:
    child = {"running": host_running, "running_for": 30, "restarts": 1, "last_exit": None}
    report = {"at": time.time() - age, "pid": 1, "children": {"host": child}}
    (var / "supervisor.json").write_text(json.dumps(report))


@pytest.mark.django_db
def test_healthz_answers_every_check_and_fails_only_on_a_failure(tmp_path):
    backups = tmp_path / "backups"
    with override_settings(VAR_DIR=tmp_path, DEKABES_BACKUP_DIR=backups, DEKABES_BACKUP_HOURS=0.0):
        status, body = healthz()
        assert status == 200 and body["status"] == "ok", body
        assert set(body["checks"]) == CHECKS
        checks = body["checks"]
        assert checks["database"]["status"] == "ok"
        assert checks["mail_queue"]["status"] == "not configured"  # no server.run here
        assert checks["computer_players"]["status"] == "not configured"  # no server.run here
        assert checks["last_backup"]["status"] == "not configured"
        supervisor(tmp_path)
        status, body = healthz()
        assert body["checks"]["computer_players"]["status"] == "ok"
        assert body["checks"]["analyser"]["status"] == "not configured"  # left out
        supervisor(tmp_path, host_running=False)
        status, body = healthz()
        assert status == 503 and body["checks"]["computer_players"]["status"] == "fail"
        supervisor(tmp_path, age=120)
        status, body = healthz()
        assert status == 503 and "not reported for" in body["checks"]["computer_players"]["detail"]
        supervisor(tmp_path)
    with override_settings(VAR_DIR=tmp_path, DEKABES_BACKUP_DIR=backups, DEKABES_BACKUP_HOURS=24.0):
        status, body = healthz()
        assert status == 503 and body["checks"]["last_backup"]["status"] == "fail"
        backups.mkdir()
        at = dt.datetime.now(dt.UTC) - dt.timedelta(hours=3)
        (backups / "last-backup.json").write_text(json.dumps({"at": at.isoformat()}))
        status, body = healthz()
        assert status == 200 and body["checks"]["last_backup"]["status"] == "ok", body
        old = dt.datetime.now(dt.UTC) - dt.timedelta(hours=60)
        (backups / "last-backup.json").write_text(json.dumps({"at": old.isoformat()}))
        status, body = healthz()
        assert status == 503 and body["checks"]["last_backup"]["status"] == "fail"
    with override_settings(VAR_DIR=tmp_path, DEKABES_HEALTH_MIN_FREE=10**18):
        status, body = healthz()
        assert status == 503 and body["checks"]["disk"]["status"] == "fail"
    # anyone may ask, and nothing but GET
    assert Client().post("/healthz").status_code == 405


def test_rotation_keeps_the_newest_of_each_day_and_week_and_never_a_labelled_backup(tmp_path):
    start = dt.datetime(2026, 3, 2, 3, 0, tzinfo=dt.UTC)  # a Monday
    names = []
    for hours in range(0, 24 * 40, 12):  # two a day for 40 days
        when = start + dt.timedelta(hours=hours)
        names.append(f"dekabes-{when:%Y%m%dT%H%M%SZ}-v0.9.0.tar")
    names.append(f"dekabes-{start:%Y%m%dT%H%M%SZ}-v0.9.0-pre-upgrade.tar")
    for name in names:
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "notes.txt").write_text("mine")
    deleted = rotate(tmp_path, keep_daily=7, keep_weekly=4)
    kept = sorted(p.name for p in tmp_path.glob("*.tar"))
    assert "notes.txt" in os.listdir(tmp_path)
    assert f"dekabes-{start:%Y%m%dT%H%M%SZ}-v0.9.0-pre-upgrade.tar" in kept
    scheduled = [n for n in kept if "pre-upgrade" not in n]
    last = start + dt.timedelta(hours=24 * 40 - 12)
    days = {(last - dt.timedelta(days=d)).strftime("%Y%m%d") for d in range(7)}
    assert {n[8:16] for n in scheduled} >= days  # the last seven days
    # four weeks' newest: 04-10 and 04-05 are kept days already, then 03-29 and 03-22
    assert len(scheduled) == 7 + 2
    assert {n[8:16] for n in scheduled} - days == {"20260329", "20260322"}
    assert all(n.endswith("T150000Z-v0.9.0.tar") for n in scheduled)  # each day's newest
    assert len(deleted) + len(scheduled) == len(names) - 1


def test_errors_of_the_last_day_are_counted_by_source(tmp_path):
    now = dt.datetime(2026, 12, 5, 12, 0, 0)
    log = tmp_path / "errors.log"
    log.write_text(
        "2026-12-04 11:00:00,000 ERROR django.request Internal Server Error: /old\n"
        "2026-12-05 10:00:00,000 ERROR django.request Internal Server Error: /api/x\n"
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in <module>\n'
        "2026-12-05 11:00:00,000 ERROR django.request Internal Server Error: /api/y\n"
        "2026-12-05 11:30:00,000 CRITICAL server.tables.projection boom\n"
    )
    assert health.errors_last_day(log, now) == (
        3,
        [("django.request", 2), ("server.tables.projection", 1)],
    )
    assert health.errors_last_day(tmp_path / "none.log", now) == (0, [])


def test_make_serve_runs_the_scheduled_backup_and_reports_its_children(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "DEKABES_VAR_DIR": str(tmp_path),
            "DEKABES_BACKUP_HOURS": "24",
            "PYTHONUNBUFFERED": "1",
        }
    )
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 -- closed in the finally
    serve = subprocess.Popen(
        [sys.executable, "-m", "server.run", "--port", str(port), "--no-bots", "--no-analyser"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    try:
        last = tmp_path / "backups" / "last-backup.json"
        deadline = time.monotonic() + 180
        body: dict = {}
        while time.monotonic() < deadline:
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()
            if last.exists() and (tmp_path / "supervisor.json").exists():
                try:
                    body = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()
                except requests.RequestException:
                    body = {}
                if body.get("checks", {}).get("last_backup", {}).get("status") == "ok":
                    break
            time.sleep(0.5)
        assert body["checks"]["last_backup"]["status"] == "ok", body
        assert body["checks"]["computer_players"]["status"] == "not configured"
        (backup,) = (tmp_path / "backups").glob("dekabes-*.tar")
        assert json.loads(last.read_text())["file"] == backup.name
        report = json.loads((tmp_path / "supervisor.json").read_text())
        assert report["children"]["backup"]["runs"] >= 1
        assert "backup:" in (tmp_path / "backup.log").read_text()
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGINT)
            try:
                serve.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait(30)
        log.close()
