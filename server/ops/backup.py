"""``manage.py backup``: a dated, self-describing, owner-only copy of the database.

SQLite: SQLite's online backup API copies the live file from one read snapshot held
for the whole copy, in flushed steps; in WAL mode the server's writers go on meanwhile,
so play never waits for it.
PostgreSQL: ``pg_dump --format=custom`` from a snapshot exported by a read-only
``REPEATABLE READ`` transaction, in which the migrations, the counts and the event
digests are read too: all of the file describes one instant. pg_dump takes only
``ACCESS SHARE`` locks (it blocks a migration, never a game action). Its major version
must be the server's (docs/server.md, "Backups").

The backup lowers its own CPU priority (``nice`` 10, as the analyser does), so on a
small machine the server's request threads go first.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import gzip
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from server.accounts.models import User
from server.league.models import Club, LeagueMatch
from server.ops import archive
from server.ops.archive import BackupError, Manifest
from server.ops.version import code_commit, server_version
from server.tables.models import Event, Table

LAST_BACKUP = "last-backup.json"  # in the backup folder: what /healthz reads
LOCK = ".backup.lock"
EVENT_COLUMNS = "table_id, seq, type, {payload}, seat, actor_id, actor_kind, command_id"
COPY_STEP_PAGES = 2048  # SQLite pages per step of the copy (8 MB of 4 KB pages)


@dataclass(frozen=True)
class BackupResult:
    path: Path
    manifest: Manifest
    size: int
    deleted: list[Path]


def backup_folder() -> Path:
    return Path(settings.DEKABES_BACKUP_DIR)


def do_backup(
    *, folder: Path | None = None, label: str = "", keep_daily: int = 0, keep_weekly: int = 0
) -> BackupResult:
    """Write a backup into ``folder`` (created owner-only), then rotate the scheduled
    ones when ``keep_daily`` or ``keep_weekly`` is set. One backup at a time per folder."""
    folder = folder or backup_folder()
    if label and not archive.LABEL.match(label):
        raise BackupError("a label is lower-case letters, digits and '-', at most 40")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    # The work files beside the backups: the same disk (not /tmp, which may be memory).
    with _only_one(folder), tempfile.TemporaryDirectory(prefix=".work-", dir=folder) as tmp:
        started = time.monotonic()
        when = dt.datetime.now(dt.UTC).replace(microsecond=0)
        work = Path(tmp)
        if connection.vendor == "sqlite":
            member, database, facts = archive.SQLITE_MEMBER, *_sqlite_copy(work)
        elif connection.vendor == "postgresql":
            member, database, facts = archive.PGDUMP_MEMBER, *_postgresql_dump(work)
        else:
            raise BackupError(f"no backup for a {connection.vendor} database")
        manifest = Manifest(
            created_at=when.isoformat(),
            server_version=server_version(),
            commit=code_commit(),
            vendor=connection.vendor,
            database_version=facts["database_version"],
            migrations=facts["migrations"],
            counts=facts["counts"],
            settings=settings_that_matter(),
            secret_key=secret_key_facts(),
            label=label,
        )
        manifest.seconds = round(time.monotonic() - started, 2)
        path = folder / archive.backup_name(when, manifest.server_version, label)
        archive.write(path, manifest, database, member, facts["events"])
        size = path.stat().st_size
        _write_last(folder, path, manifest, size)
        deleted = rotate(folder, keep_daily, keep_weekly) if keep_daily or keep_weekly else []
    return BackupResult(path, manifest, size, deleted)


@contextlib.contextmanager
def _only_one(folder: Path) -> Iterator[None]:
    descriptor = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BackupError(f"another backup into {folder} is running") from None
        yield
    finally:
        os.close(descriptor)


# -- SQLite -------------------------------------------------------------------------------
def _sqlite_copy(work: Path) -> tuple[Path, dict]:
    """The live file copied by SQLite's backup API, the facts read from the copy, and
    the copy gzipped.

    The source connection holds one read transaction for the whole copy: every step of
    the backup then reads the same snapshot (in WAL mode the server's writers go on, and
    the copy does not start over when they commit). The copy goes in steps of
    ``COPY_STEP_PAGES``, each flushed to the disk before the next: hundreds of MB
    written at once would fill the page cache, and the kernel's flush of it in one burst
    is what the server's own commits (an fsync each) would wait behind."""
    source_path = connection.settings_dict["NAME"]
    copy = work / "database.sqlite3"
    source = sqlite3.connect(source_path, timeout=30, isolation_level=None)
    target = sqlite3.connect(copy)
    copied = os.open(copy, os.O_RDONLY)
    try:
        source.execute("BEGIN")
        source.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the snapshot, pinned
        source.backup(target, pages=COPY_STEP_PAGES, progress=lambda *_: os.fdatasync(copied))
        source.execute("COMMIT")
    finally:
        os.close(copied)
        target.close()
        source.close()
    reader = sqlite3.connect(copy)
    try:
        facts = {
            "database_version": sqlite3.sqlite_version,
            "migrations": _migrations(reader.execute("SELECT app, name FROM django_migrations")),
            "counts": _counts(lambda sql: reader.execute(sql).fetchone()[0]),
            "events": event_digests(reader.execute(events_sql("payload"))),
        }
        # A restored copy starts as a plain file: no WAL to carry along.
        reader.execute("PRAGMA journal_mode=DELETE")
    finally:
        reader.close()
    zipped = work / "database.sqlite3.gz"
    # Level 1: a third of level 6's CPU for a file ~15 % larger.
    with open(copy, "rb") as raw, open(zipped, "wb") as file, archive.SyncedWrites(file) as out:
        with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1) as packed:
            shutil.copyfileobj(raw, packed, 1 << 20)
    copy.unlink()
    return zipped, facts


# -- PostgreSQL ---------------------------------------------------------------------------
def _postgresql_dump(work: Path) -> tuple[Path, dict]:
    dump = work / "database.pgdump"
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SHOW server_version_num")
        server_number = int(cursor.fetchone()[0])
        check_pg_dump_version(server_number // 10000)
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
        _pg_dump(snapshot, dump)
        cursor.execute("SHOW server_version")
        version = cursor.fetchone()[0]
        cursor.execute("SELECT app, name FROM django_migrations")
        migrations = _migrations(cursor.fetchall())

        def scalar(sql: str) -> int:
            cursor.execute(sql)
            return int(cursor.fetchone()[0])

        counts = _counts(scalar)
        events = _postgresql_digests()  # the same transaction: the dump's snapshot
    return dump, {
        "database_version": version,
        "migrations": migrations,
        "counts": counts,
        "events": events,
    }


def _pg_dump(snapshot: str, dump: Path) -> None:
    """pg_dump's output written here in flushed steps (``archive.SyncedWrites``), not
    by pg_dump in one burst: the same reason as the SQLite copy's steps."""
    with tempfile.TemporaryFile() as errors, open(dump, "wb") as file:
        dumping = subprocess.Popen(
            [
                pg_tool("pg_dump"),
                "--format=custom",
                "--no-owner",
                "--no-privileges",
                f"--snapshot={snapshot}",
            ],
            env=pg_environment(connection.settings_dict),
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        assert dumping.stdout is not None
        with archive.SyncedWrites(file) as out:
            shutil.copyfileobj(dumping.stdout, out, 1 << 20)
        if dumping.wait() != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip()[-500:]
            raise BackupError(f"pg_dump failed: {message}")


def _postgresql_digests() -> dict:
    with connection.chunked_cursor() as cursor:  # a server-side cursor: rows in chunks
        cursor.execute(events_sql("payload::text"))
        return event_digests(fetch_in_chunks(cursor))


def fetch_in_chunks(cursor) -> Iterator[tuple]:
    while True:
        rows = cursor.fetchmany(5000)
        if not rows:
            return
        yield from rows


def pg_tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise BackupError(
            f"{name} is not installed: install the PostgreSQL client of the server's major "
            "version (Debian: apt install postgresql-client-15)"
        )
    return found


def pg_tool_major(name: str) -> int:
    done = subprocess.run([pg_tool(name), "--version"], capture_output=True, text=True)
    found = re.search(r"\) (\d+)", done.stdout) or re.search(r"(\d+)\.\d+", done.stdout)
    if found is None:
        raise BackupError(f"cannot read {name}'s version from {done.stdout.strip()!r}")
    return int(found.group(1))


def check_pg_dump_version(server_major: int, tool: str = "pg_dump") -> None:
    """pg_dump and pg_restore of another major version than the server's are refused:
    an older one cannot read the server, and a dump is best restored by its own."""
    major = pg_tool_major(tool)
    if major != server_major:
        raise BackupError(
            f"{tool} is version {major} but the PostgreSQL server is version {server_major}: "
            f"install postgresql-client-{server_major} (docs/server.md, 'Backups')"
        )


def pg_environment(database: dict) -> dict:
    """libpq's variables for ``database`` (a Django settings dict): no password on a
    command line, where other users of the machine could read it."""
    env = dict(os.environ)
    for variable, key in (
        ("PGHOST", "HOST"),
        ("PGPORT", "PORT"),
        ("PGUSER", "USER"),
        ("PGPASSWORD", "PASSWORD"),
        ("PGDATABASE", "NAME"),
    ):
        value = database.get(key)
        if value:
            env[variable] = str(value)
        else:
            env.pop(variable, None)
    return env


# -- facts --------------------------------------------------------------------------------
def _migrations(rows: Iterable[tuple[str, str]]) -> list[str]:
    return sorted(f"{app}.{name}" for app, name in rows)


def _counts(scalar) -> dict[str, int]:
    def table(model) -> str:
        return model._meta.db_table

    return {
        "accounts": scalar(f"SELECT COUNT(*) FROM {table(User)}"),
        "clubs": scalar(f"SELECT COUNT(*) FROM {table(Club)}"),
        "tables": scalar(f"SELECT COUNT(*) FROM {table(Table)}"),
        "events": scalar(f"SELECT COUNT(*) FROM {table(Event)}"),
        "matches": scalar(f"SELECT COUNT(*) FROM {table(LeagueMatch)}"),
        "finished_matches": scalar(
            f"SELECT COUNT(*) FROM {table(LeagueMatch)} WHERE status <> 'playing'"
        ),
    }


def events_sql(payload: str) -> str:
    columns = EVENT_COLUMNS.format(payload=payload)
    return f"SELECT {columns} FROM {Event._meta.db_table} ORDER BY table_id, seq"


def event_digests(rows: Iterable[tuple]) -> dict[str, list]:
    """Per table id: [events, SHA-256 of its rows] (the columns ``EVENT_COLUMNS``, in
    seq order; the payload as the database stores its text)."""
    digests: dict[str, list] = {}
    current, digest, count = None, hashlib.sha256(), 0
    for row in rows:
        if row[0] != current:
            if current is not None:
                digests[str(current)] = [count, digest.hexdigest()]
            current, digest, count = row[0], hashlib.sha256(), 0
        digest.update("\x1f".join(map(str, row[1:])).encode() + b"\n")
        count += 1
    if current is not None:
        digests[str(current)] = [count, digest.hexdigest()]
    return digests


def settings_that_matter() -> dict[str, object]:
    """What a new machine needs set the same way to serve this data as before (no
    secret: no password, no key, no URL)."""
    names = [
        "DEKABES_REGISTRATION",
        "DEKABES_HOST_ACCOUNT",
        "DEKABES_MAX_TABLES",
        "DEKABES_MAX_BOTS",
        "DEKABES_MAX_HOSTED_PLAYERS",
        "DEKABES_MAX_CLUBS",
        "DEKABES_MAX_SEASONS",
        "DEKABES_MAX_INVITES",
        "DEKABES_MAX_ROUNDS",
        "SQLITE_SYNCHRONOUS",
        "ALLOWED_HOSTS",
        "TIME_ZONE",
        "LANGUAGE_CODE",
        "SESSION_COOKIE_SECURE",
    ]
    facts: dict[str, object] = {name: getattr(settings, name, None) for name in names}
    facts["DEKABES_PROXIES"] = settings.REST_FRAMEWORK.get("NUM_PROXIES")
    facts["channel_layer"] = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]
    return facts


def secret_key_facts() -> dict[str, str]:
    """Where the secret key comes from and a fingerprint to tell two keys apart. The key
    itself is never in a backup (docs/server.md, "The secret key")."""
    source = "DJANGO_SECRET_KEY" if os.environ.get("DJANGO_SECRET_KEY") else "var/secret_key"
    fingerprint = hashlib.sha256(b"dekabes-key-fingerprint:" + settings.SECRET_KEY.encode())
    return {"source": source, "fingerprint": fingerprint.hexdigest()[:16]}


# -- the folder ---------------------------------------------------------------------------
def _write_last(folder: Path, path: Path, manifest: Manifest, size: int) -> None:
    last = {
        "file": path.name,
        "at": manifest.created_at,
        "bytes": size,
        "seconds": manifest.seconds,
        "server_version": manifest.server_version,
        "label": manifest.label,
    }
    partial = folder / (LAST_BACKUP + ".partial")
    partial.write_text(json.dumps(last, indent=2))
    os.chmod(partial, 0o600)
    os.replace(partial, folder / LAST_BACKUP)


def last_backup(folder: Path | None = None) -> dict | None:
    """What the newest backup into ``folder`` wrote about itself (None: none yet)."""
    path = (folder or backup_folder()) / LAST_BACKUP
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def backups_in(folder: Path) -> list[tuple[dt.datetime, Path]]:
    """Every backup file in ``folder``, newest first."""
    found = []
    for path in folder.glob("dekabes-*.tar"):
        when = archive.stamp_of(path.name)
        if when is not None:
            found.append((when, path))
    return sorted(found, reverse=True)


def rotate(folder: Path, keep_daily: int, keep_weekly: int) -> list[Path]:
    """Delete the scheduled backups that are neither the newest of one of the last
    ``keep_daily`` days that have one nor of the last ``keep_weekly`` ISO weeks. The
    newest backup is always kept; labelled ones (pre-upgrade, by hand) are never touched."""
    scheduled = [
        (when, path) for when, path in backups_in(folder) if archive.SCHEDULED_NAME.match(path.name)
    ]
    keep: set[Path] = {scheduled[0][1]} if scheduled else set()
    days: dict[dt.date, Path] = {}
    weeks: dict[tuple[int, int], Path] = {}
    for when, path in scheduled:  # newest first: the first of each day/week is its newest
        day, week = when.date(), when.isocalendar()[:2]
        if day not in days and len(days) < keep_daily:
            days[day] = path
        if week not in weeks and len(weeks) < keep_weekly:
            weeks[week] = path
    keep |= set(days.values()) | set(weeks.values())
    deleted = []
    for _, path in scheduled:
        if path not in keep:
            path.unlink(missing_ok=True)
            deleted.append(path)
    return deleted


def backup_due(hours: float, folder: Path | None = None, now: dt.datetime | None = None) -> bool:
    """A scheduled backup is due: none yet, or the newest is ``hours`` old."""
    last = last_backup(folder)
    if last is None:
        return True
    try:
        at = dt.datetime.fromisoformat(last["at"])
    except (KeyError, TypeError, ValueError):
        return True
    return (now or dt.datetime.now(dt.UTC)) - at >= dt.timedelta(hours=hours)
