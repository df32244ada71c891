"""What this server's code is: its release (``pyproject.toml``), its git commit when it runs
from a checkout, and the migrations it knows. A backup records all three; a restore and a
verification refuse a backup of another release (docs/server.md, "Backups")."""

from __future__ import annotations

import functools
import subprocess
import tomllib
from pathlib import Path

from django.db import connection
from django.db.migrations.loader import MigrationLoader

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def server_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as stream:
        return str(tomllib.load(stream)["project"]["version"])


@functools.cache
def code_commit() -> str | None:
    """The checkout's commit (None outside a git checkout, or without git)."""
    if not (ROOT / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def code_migrations() -> list[str]:
    """Every migration of this code's installed apps, ``app.name``, sorted."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    return sorted(f"{app}.{name}" for app, name in loader.disk_migrations)


def applied_migrations(cursor=None) -> list[str]:
    """The migrations the database has applied, ``app.name``, sorted."""
    sql = "SELECT app, name FROM django_migrations"
    if cursor is not None:
        return sorted(f"{app}.{name}" for app, name in cursor.execute(sql).fetchall())
    with connection.cursor() as django_cursor:
        django_cursor.execute(sql)
        return sorted(f"{app}.{name}" for app, name in django_cursor.fetchall())
