"""The server's health: the facts ``GET /healthz`` answers monitors with (JSON, 200 or
503) and the operators' status page shows, with more detail.

Each check answers ``ok``, ``warn`` (worth a look, not an outage), ``fail`` or ``not
configured`` (a part this server does not run: not a failure). The answer is 503 when
any check fails. Nothing here reads a table's state or names an account: the answer is
the same for everyone and holds no hidden information.

The host of computer players, the analyser and the scheduled backups run beside Daphne,
started and watched by ``server.run`` (``make serve``), which writes what it sees to
``var/supervisor.json`` every few seconds; a server started otherwise (a unit per
process) has no such file, and those checks say "not configured".
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from server.league.models import MatchAnalysis
from server.mail.selectors import queue_figures
from server.notices import notify
from server.ops.backup import last_backup
from server.ops.version import code_commit, server_version
from server.run import ROOT, daphne_command  # the one way server processes start

SUPERVISOR_FILE = "supervisor.json"  # written by server.run (server/run.py)
SUPERVISOR_STALE = 60.0  # seconds without a report: the supervisor is gone
ANSWER_KEPT = 5.0  # seconds a process keeps its answer (a monitor polling hard costs nothing)
OK, WARN, FAIL, NOT_CONFIGURED = "ok", "warn", "fail", "not configured"


@dataclass
class Fact:
    name: str
    status: str
    detail: str = ""
    data: dict = field(default_factory=dict)


@dataclass
class Health:
    status: str  # ok | fail
    checked_at: str
    checks: list[Fact]

    @property
    def http_status(self) -> int:
        return 503 if self.status == FAIL else 200

    def as_json(self) -> dict:
        return {
            "status": self.status,
            "checked_at": self.checked_at,
            "checks": {f.name: {"status": f.status, "detail": f.detail} for f in self.checks},
        }


def _timed(check) -> Fact:
    try:
        return check()
    except Exception as err:  # a check that breaks is a failed check, named
        return Fact(check.__name__.removeprefix("check_"), FAIL, type(err).__name__)


def check_database() -> Fact:
    started = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    ms = (time.monotonic() - started) * 1000
    kind = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(connection.vendor, "?")
    pending = unapplied_migrations()
    if pending:
        return Fact("database", FAIL, f"{kind}: {pending} migration(s) not applied", {"ms": ms})
    return Fact("database", OK, f"{kind}, answered in {ms:.1f} ms", {"ms": round(ms, 1)})


@functools.cache
def _unapplied_at_start() -> int:
    return unapplied_migrations_now()


def unapplied_migrations() -> int:
    """Migrations of this code not applied in the database (read once per process: they
    change only with a deploy, which restarts the server)."""
    return _unapplied_at_start()


def unapplied_migrations_now() -> int:
    executor = MigrationExecutor(connection)
    return len(executor.migration_plan(executor.loader.graph.leaf_nodes()))


def check_channel_layer() -> Fact:
    layer = get_channel_layer()
    if layer is None:
        return Fact("channel_layer", FAIL, "none configured")
    if type(layer).__name__ == "InMemoryChannelLayer":
        return Fact("channel_layer", OK, "in-memory (one server process)")
    started = time.monotonic()
    token = uuid.uuid4().hex

    async def round_trip() -> bool:
        # A channel of its own, not one of the process's ("name!suffix", which every
        # hub's receive shares: channels_redis pops the process's one queue for all of
        # them, and this receive, cancelled after 3 s on a slow Redis, could take a
        # table's change with it). A plain name is read from its own key in Redis.
        channel = f"dekabes.healthz.{token}"
        await layer.send(channel, {"type": "healthz", "token": token})
        message = await asyncio.wait_for(layer.receive(channel), timeout=3)
        return message.get("token") == token

    loop = notify.server_loop()
    if loop is not None and not notify.on_server_loop():
        # on the server's loop, whose Redis connections channels_redis keeps: a loop
        # of its own per check would open a pool per check (and on a process's channel
        # it was refused: "Two event loops are trying to receive()", a 503)
        ok = asyncio.run_coroutine_threadsafe(round_trip(), loop).result(timeout=10)
    else:  # manage.py health, outside a server
        ok = async_to_sync(round_trip)()
    ms = (time.monotonic() - started) * 1000
    if not ok:
        return Fact("channel_layer", FAIL, "Redis answered another message")
    return Fact("channel_layer", OK, f"Redis, a message there and back in {ms:.1f} ms")


def supervisor_report() -> dict | None:
    path = Path(settings.VAR_DIR) / SUPERVISOR_FILE
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return report if isinstance(report, dict) else None


def _supervised(name: str, key: str, what: str) -> Fact:
    report = supervisor_report()
    if report is None:
        return Fact(name, NOT_CONFIGURED, f"{what}: not started by server.run")
    age = time.time() - float(report.get("at", 0))
    if age > SUPERVISOR_STALE:
        return Fact(name, FAIL, f"server.run has not reported for {age:.0f} s")
    child = report.get("children", {}).get(key)
    if child is None:
        return Fact(name, NOT_CONFIGURED, f"{what}: left out (server.run --no-…)")
    data = {k: child.get(k) for k in ("restarts", "running_for")}
    if not child.get("running"):
        return Fact(name, FAIL, f"{what}: not running ({child.get('last_exit', '?')})", data)
    restarts = int(child.get("restarts") or 0)
    detail = f"{what}: running for {int(child.get('running_for') or 0)} s"
    if restarts:
        detail += f", restarted {restarts} time(s) since the server started"
    return Fact(name, OK, detail, data)


def check_computer_players() -> Fact:
    return _supervised("computer_players", "host", "the host of computer players")


def check_analyser() -> Fact:
    fact = _supervised("analyser", "analyser", "the analyser of finished matches")
    if fact.status in (OK, NOT_CONFIGURED):
        pending = MatchAnalysis.objects.filter(status__in=("pending", "running")).count()
        fact.data["queued"] = pending
        if fact.status == OK:
            fact.detail += f"; {pending} match(es) waiting"
    return fact


MAIL_LATE_MINUTES = 60  # a mail waiting longer: warn (the mail server refuses or is down)


def check_mail() -> Fact:
    """The members' mail queue (server.run's child), how many mails wait, how long the
    oldest has waited, and how many failed for good in the last day."""
    fact = _supervised("mail_queue", "mail", "the members' mail queue")
    figures = queue_figures()
    fact.data.update(figures)
    if fact.status == OK:
        fact.detail += (
            f"; {figures['waiting']} waiting, {figures['failed_last_day']} failed in the last day"
        )
        if figures["oldest_waiting_minutes"] > MAIL_LATE_MINUTES:
            fact.status = WARN
            fact.detail += (
                f"; the oldest has waited {figures['oldest_waiting_minutes']} min "
                "(is the mail server reachable? var/mail.log)"
            )
    return fact


def check_disk() -> Fact:
    folders = {Path(settings.VAR_DIR), Path(settings.DEKABES_BACKUP_DIR)}
    worst: tuple[int, Path, int] | None = None
    for folder in folders:
        probe = folder if folder.exists() else folder.parent
        usage = shutil.disk_usage(probe)
        if worst is None or usage.free < worst[0]:
            worst = (usage.free, folder, usage.total)
    assert worst is not None
    free, _, total = worst
    percent = 100 * free / total if total else 0
    data = {"free_bytes": free, "free_percent": round(percent, 1)}
    detail = f"{free / 1e9:.1f} GB free ({percent:.0f} %)"
    if free < settings.DEKABES_HEALTH_MIN_FREE:
        return Fact("disk", FAIL, detail + " : below DEKABES_HEALTH_MIN_FREE", data)
    if percent < 10:
        return Fact("disk", WARN, detail, data)
    return Fact("disk", OK, detail, data)


def check_last_backup() -> Fact:
    hours = settings.DEKABES_BACKUP_HOURS
    last = last_backup()
    if last is None:
        if hours <= 0:
            return Fact("last_backup", NOT_CONFIGURED, "no backup yet, none scheduled")
        return Fact("last_backup", FAIL, "no backup yet (DEKABES_BACKUP_HOURS is set)")
    try:
        at = dt.datetime.fromisoformat(last["at"])
    except (KeyError, TypeError, ValueError):
        return Fact("last_backup", FAIL, "last-backup.json is unreadable")
    age = (dt.datetime.now(dt.UTC) - at).total_seconds() / 3600
    data = {"at": last["at"], "age_hours": round(age, 1), "bytes": last.get("bytes")}
    detail = f"{at:%Y-%m-%d %H:%M} UTC, {age:.1f} h ago"
    if hours > 0 and age > 2 * hours + 1:
        return Fact("last_backup", FAIL, detail + f" (scheduled every {hours:g} h)", data)
    return Fact("last_backup", OK, detail, data)


CHECKS = (
    check_database,
    check_channel_layer,
    check_computer_players,
    check_analyser,
    check_mail,
    check_disk,
    check_last_backup,
)

_kept: tuple[float, Health] | None = None
_kept_lock = threading.Lock()


def health(*, fresh: bool = False) -> Health:
    """Every check, kept ``ANSWER_KEPT`` seconds per process unless ``fresh``."""
    global _kept
    with _kept_lock:
        if not fresh and _kept is not None and time.monotonic() - _kept[0] < ANSWER_KEPT:
            return _kept[1]
    facts = [_timed(check) for check in CHECKS]
    answer = Health(
        FAIL if any(f.status == FAIL for f in facts) else OK,
        dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        facts,
    )
    with _kept_lock:
        _kept = (time.monotonic(), answer)
    return answer


# -- the operators' page ---------------------------------------------------------------------
@dataclass
class OperatorStatus:
    health: Health
    version: str
    commit: str | None
    errors_last_day: int
    errors_by_source: list[tuple[str, int]]
    supervisor: dict | None
    analyses_failed_last_day: int
    facts: list[tuple[str, str]] = field(default_factory=list)


def operator_status() -> OperatorStatus:
    errors, by_source = errors_last_day(Path(settings.ERRORS_LOG))
    since = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    failed = MatchAnalysis.objects.filter(status="failed", claimed_at__gte=since).count()
    return OperatorStatus(
        health=health(fresh=True),
        version=server_version(),
        commit=code_commit(),
        errors_last_day=errors,
        errors_by_source=by_source,
        supervisor=supervisor_report(),
        analyses_failed_last_day=failed,
    )


def errors_last_day(path: Path, now: dt.datetime | None = None) -> tuple[int, list]:
    """Errors logged in the last 24 hours (``var/errors.log``, every server process's
    ERROR lines), in all and by logger, most first. Reads the file's last 2 MB."""
    now = now or dt.datetime.now()
    since = now - dt.timedelta(days=1)
    counts: dict[str, int] = {}
    try:
        with open(path, "rb") as stream:
            stream.seek(0, 2)
            size = stream.tell()
            stream.seek(max(0, size - (2 << 20)))
            text = stream.read().decode("utf-8", "replace")
    except OSError:
        return 0, []
    for line in text.splitlines():
        parts = line.split(" ", 4)
        if len(parts) < 4 or parts[2] not in ("ERROR", "CRITICAL"):
            continue
        try:
            at = dt.datetime.strptime(f"{parts[0]} {parts[1]}", "%Y-%m-%d %H:%M:%S,%f")
        except ValueError:
            continue  # a traceback's line
        if at >= since:
            counts[parts[3]] = counts.get(parts[3], 0) + 1
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return sum(counts.values()), ordered


def as_dict(status: OperatorStatus) -> dict:
    return asdict(status)


# -- after an upgrade -------------------------------------------------------------------------
def check_after_upgrade(timeout: float = 90.0) -> list[str]:
    """With the server stopped: what must hold before it starts again. The problems
    found (none: it may start)."""
    problems = []
    pending = unapplied_migrations_now()
    if pending:
        problems.append(f"{pending} migration(s) not applied")
    database = _timed(check_database)
    if database.status != OK:
        problems.append(f"database: {database.detail}")
    if problems:
        return problems
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ)
    env["DJANGO_ALLOWED_HOSTS"] = "127.0.0.1"
    daphne = subprocess.Popen(
        daphne_command(port=port, access_log=False),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + timeout
        answers: dict[str, int] = {}
        for path in ("/healthz", "/", "/api/schema/"):
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
                        answers[path] = r.status
                        if path == "/healthz":
                            body = json.loads(r.read())
                            if body["checks"]["database"]["status"] != OK:
                                problems.append("/healthz: the database check fails")
                    break
                except urllib.error.HTTPError as err:
                    answers[path] = err.code
                    if path == "/healthz" and err.code == 503:
                        body = json.loads(err.read())
                        if body["checks"]["database"]["status"] != OK:
                            problems.append("/healthz: the database check fails")
                        answers[path] = 200  # another part is down: the server itself serves
                    break
                except OSError:
                    if daphne.poll() is not None or time.monotonic() > deadline:
                        error = daphne.stderr.read().decode()[-1500:] if daphne.stderr else ""
                        return [f"Daphne did not serve {path}: {error}"]
                    time.sleep(0.3)
        problems += [
            f"{path} answered {status}" for path, status in answers.items() if status != 200
        ]
        return problems
    finally:
        daphne.terminate()
        try:
            daphne.wait(10)
        except subprocess.TimeoutExpired:
            daphne.kill()
            daphne.wait()
