"""``manage.py restore FILE``: a backup into an empty database, or (``--replace``, the
upgrade's rollback) in place of the current one.

A backup restores only onto the release that made it (as Zulip's do): the same code
reads the rows and their snapshots the same way, so a restored server is the server
that was backed up. Onto another release, or another kind of database, the restore
refuses and says what to run instead; nothing is written then.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from django.db import connections

from server.ops import archive
from server.ops.archive import BackupError, Manifest
from server.ops.backup import check_pg_dump_version, pg_environment, pg_tool, secret_key_facts
from server.ops.version import code_migrations, server_version


@dataclass
class RestoreResult:
    manifest: Manifest
    seconds: float
    notes: list[str] = field(default_factory=list)
    set_aside: str | None = None  # where the replaced database went (SQLite)


def check_restorable(manifest: Manifest, vendor: str) -> list[str]:
    """Raise ``BackupError`` with the reason when this code may not restore the backup;
    otherwise the notes to show (e.g. migrations to run after it)."""
    if manifest.vendor != vendor:
        raise BackupError(
            f"this backup is of a {_kind(manifest.vendor)} database and this server uses "
            f"{_kind(vendor)}: a backup restores onto the same kind of database"
        )
    if manifest.server_version != server_version():
        made_by = f"Dékabès {manifest.server_version}" + (
            f" (commit {manifest.commit[:12]})" if manifest.commit else ""
        )
        raise BackupError(
            f"this backup was made by {made_by} and this server is Dékabès "
            f"{server_version()}: restore it with the code that made it (git checkout of "
            "that version), then upgrade to this one with `manage.py upgrade` "
            "(docs/server.md, 'Restoring')"
        )
    unknown = sorted(set(manifest.migrations) - set(code_migrations()))
    if unknown:
        raise BackupError(
            "this backup's database has migrations this code does not have "
            f"({', '.join(unknown[:5])}{' …' if len(unknown) > 5 else ''}): it was made by "
            "other code of the same version; restore it with that code"
        )
    notes = []
    behind = sorted(set(code_migrations()) - set(manifest.migrations))
    if behind:
        notes.append(
            f"{len(behind)} migration(s) of this code are not applied in the backup: "
            "run `manage.py migrate` (or `manage.py upgrade`) before serving"
        )
    if manifest.secret_key.get("fingerprint") != secret_key_facts()["fingerprint"]:
        notes.append(
            "this server's secret key is not the backup's: web sign-ins start again "
            "(members sign in once more); API tokens and passwords are unaffected"
        )
    return notes


def _kind(vendor: str) -> str:
    return {"sqlite": "SQLite", "postgresql": "PostgreSQL"}.get(vendor, vendor)


def do_restore(*, path: Path, database: dict, replace: bool = False) -> RestoreResult:
    """Restore the backup at ``path`` into ``database`` (a Django settings dict). The
    database must be empty unless ``replace``; the server must not be running on it."""
    started = time.monotonic()
    vendor = _vendor(database)
    manifest = archive.read_manifest(path)
    notes = check_restorable(manifest, vendor)
    set_aside = None
    with tempfile.TemporaryDirectory(prefix="dekabes-restore-") as tmp:
        if vendor == "sqlite":
            if not replace:
                check_sqlite_empty(Path(database["NAME"]))
            _, copy = archive.extract_database(path, Path(tmp))
            set_aside = _sqlite_into_place(copy, Path(database["NAME"]), replace)
        else:
            if not replace:
                check_postgresql_empty(database)
            _, dump = archive.extract_database(path, Path(tmp))
            _postgresql_restore(dump, database, replace)
    return RestoreResult(manifest, round(time.monotonic() - started, 2), notes, set_aside)


def _vendor(database: dict) -> str:
    engine = database["ENGINE"]
    if engine.endswith("sqlite3"):
        return "sqlite"
    if engine.endswith("postgresql"):
        return "postgresql"
    raise BackupError(f"no restore into {engine}")


# -- SQLite -------------------------------------------------------------------------------
def sqlite_tables(path: Path) -> int:
    if not path.exists() or path.stat().st_size == 0:
        return 0
    reader = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = reader.execute("SELECT COUNT(*) FROM sqlite_master WHERE type='table'").fetchone()
        return int(row[0])
    finally:
        reader.close()


def check_sqlite_empty(path: Path) -> None:
    if sqlite_tables(path):
        raise BackupError(
            f"the database {path} is not empty: a restore goes into an empty database "
            "(move the file away first, with the server stopped; or `manage.py upgrade` "
            "rolls back by itself)"
        )


def _sqlite_into_place(copy: Path, target: Path, replace: bool) -> str | None:
    """Move the restored file to ``target`` (its -wal and -shm, an empty database's or
    the replaced one's, go first: they would be read as the new file's)."""
    connections.close_all()
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    set_aside = None
    stamp = dt.datetime.now(dt.UTC).strftime(archive.STAMP)
    if replace and sqlite_tables(target):
        set_aside = target.with_name(f"{target.name}.before-restore-{stamp}")
        os.replace(target, set_aside)
        for suffix in ("-wal", "-shm"):
            side = Path(str(target) + suffix)
            if side.exists():
                os.replace(side, Path(str(set_aside) + suffix))
    for suffix in ("-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    os.chmod(copy, 0o600)
    staged = target.with_name(target.name + ".restoring")
    with open(copy, "rb") as source, open(staged, "wb") as out:
        while chunk := source.read(1 << 20):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(staged, 0o600)
    os.replace(staged, target)
    return None if set_aside is None else str(set_aside)


# -- PostgreSQL ---------------------------------------------------------------------------
def pg_connect(database: dict, name: str | None = None) -> psycopg.Connection:
    return psycopg.connect(
        host=database.get("HOST") or None,
        port=database.get("PORT") or None,
        user=database.get("USER") or None,
        password=database.get("PASSWORD") or None,
        dbname=name or database["NAME"],
        autocommit=True,
    )


def postgresql_tables(database: dict) -> int:
    with pg_connect(database) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    return int(row[0]) if row else 0


def check_postgresql_empty(database: dict) -> None:
    if postgresql_tables(database):
        raise BackupError(
            f"the database {database['NAME']} is not empty: a restore goes into an empty "
            "database (createdb a new one and point DATABASE_URL at it; or "
            "`manage.py upgrade` rolls back by itself)"
        )


def _postgresql_restore(dump: Path, database: dict, replace: bool) -> None:
    """pg_restore in one transaction. ``replace``: the current tables are moved to a
    schema of their own first, and back if the restore fails."""
    with pg_connect(database) as conn:
        row = conn.execute("SHOW server_version_num").fetchone()
        major = int(row[0] if row else 0) // 10000
        check_pg_dump_version(major, "pg_restore")
        kept = None
        if replace:
            kept = f"public_before_restore_{int(time.time())}"
            conn.execute(f'ALTER SCHEMA public RENAME TO "{kept}"')
            conn.execute("CREATE SCHEMA public")
        done = subprocess.run(
            [
                pg_tool("pg_restore"),
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                "--single-transaction",
                f"--dbname={database['NAME']}",
                str(dump),
            ],
            env=pg_environment(database),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            if kept is not None:
                conn.execute("DROP SCHEMA public CASCADE")
                conn.execute(f'ALTER SCHEMA "{kept}" RENAME TO public')
            raise BackupError(f"pg_restore failed: {done.stderr.strip()[-500:]}")
        if kept is not None:
            conn.execute(f'DROP SCHEMA "{kept}" CASCADE')
    connections.close_all()  # this process's connections saw the old tables
