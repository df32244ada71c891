"""``manage.py upgrade --to REF`` (issue #36) in a copy of this checkout: an upgrade whose
migration fails rolls back to the backup and the previous code, and the server serves
again with its data; an upgrade that works migrates and serves. SQLite, and PostgreSQL
in the backend run (a database of its own, dropped at the end)."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.db import connection

from server.ops.restore import pg_connect
from server.run import daphne_command
from tests.conftest import ROOT, free_port, migrated_sqlite

pytestmark = [pytest.mark.backend]

FAILING = """from django.db import migrations


def fail(apps, schema_editor):
    raise RuntimeError("this migration fails on purpose (tests/server/test_ops_upgrade.py)")


class Migration(migrations.Migration):
    dependencies = [("accounts", "{last}")]
    operations = [migrations.RunPython(fail, migrations.RunPython.noop)]
"""
WORKING = """from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "{last}")]
    operations = [
        migrations.RunSQL("CREATE TABLE upgrade_probe (id integer)", "DROP TABLE upgrade_probe")
    ]
"""


def sh(cwd: Path, *command: str, env: dict | None = None, check: bool = True):
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=check, timeout=600
    )


def checkout_copy(target: Path) -> dict[str, str]:
    """This checkout's files (tracked and new, not ignored) in a git repository of their
    own: ``v1`` (as they are), ``broken`` (a failing migration, version 0.9.99) and
    ``good`` (a working one). Returns the commits."""
    files = sh(ROOT, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, files.stdout.split("\0")):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    sh(target, "git", "init", "-q", "-b", "main")
    sh(target, "git", "config", "user.email", "test@example.org")
    sh(target, "git", "config", "user.name", "test")
    sh(target, "git", "add", "-A")
    sh(target, "git", "commit", "-qm", "v1")
    commits = {"v1": sh(target, "git", "rev-parse", "HEAD").stdout.strip()}
    migrations = target / "server" / "accounts" / "migrations"
    last = sorted(p.stem for p in migrations.glob("0*.py"))[-1]
    for branch, text in (("broken", FAILING), ("good", WORKING)):
        sh(target, "git", "checkout", "-q", "-b", branch, commits["v1"])
        (migrations / "0099_upgrade_test.py").write_text(text.replace("{last}", last))
        project = target / "pyproject.toml"
        project.write_text(project.read_text().replace('version = "', 'version = "9', 1))
        sh(target, "git", "add", "-A")
        sh(target, "git", "commit", "-qm", branch)
        commits[branch] = sh(target, "git", "rev-parse", "HEAD").stdout.strip()
    sh(target, "git", "checkout", "-q", commits["v1"])
    return commits


@pytest.fixture
def environment(tmp_path):
    """The copy's server environment: its own var/ and database."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(DEKABES_VAR_DIR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="tests.settings")
    env.pop("DEKABES_TEST_DB_NAME", None)
    scratch = None
    if os.environ.get("DATABASE_URL"):
        database = dict(connection.settings_dict)
        named = os.environ["DATABASE_URL"].rsplit("/", 1)[1].split("?")[0]
        scratch = f"{named}_upgrade_{secrets.token_hex(3)}"[:63]
        with pg_connect(database, name="postgres") as conn:
            conn.execute(f'CREATE DATABASE "{scratch}"')
        base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
        env["DATABASE_URL"] = f"{base}/{scratch}"
    else:
        env.pop("DATABASE_URL", None)
        env["DEKABES_SQLITE_PATH"] = str(tmp_path / "var" / "club.sqlite3")
    yield env
    if scratch is not None:
        with pg_connect(dict(connection.settings_dict), name="postgres") as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')


def serves(repo: Path, env: dict, token: str) -> dict:
    """Start the copy's Daphne, and answer /healthz and the bot's /api/me."""
    port = free_port()
    server = subprocess.Popen(
        daphne_command(port=port, access_log=False),
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                health = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10)
                break
            except requests.RequestException:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.3)
        me = requests.get(
            f"http://127.0.0.1:{port}/api/me",
            headers={"Authorization": f"Token {token}"},
            timeout=10,
        )
        return {"health": health.json(), "me": me.status_code, "name": me.json().get("username")}
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.django_db
def test_a_failing_migration_rolls_back_and_the_server_serves_again(tmp_path, environment):
    repo = tmp_path / "repo"
    repo.mkdir()
    commits = checkout_copy(repo)
    env = environment
    python = sys.executable
    if "DEKABES_SQLITE_PATH" in env:  # v1's database: the copy's code is this checkout's
        database = Path(env["DEKABES_SQLITE_PATH"])
        database.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copyfile(migrated_sqlite(), database)  # what "migrate -v0" made, once a process
    else:
        sh(repo, python, "manage.py", "migrate", "-v0", env=env)
    token = sh(repo, python, "manage.py", "createbot", "keeper", env=env).stdout.strip()

    failed = sh(
        repo, python, "manage.py", "upgrade", "--to", "broken", "--no-install", env=env, check=False
    )
    output = failed.stdout + failed.stderr
    assert failed.returncode == 1, output
    assert "migrate failed" in output and "this migration fails on purpose" in output
    assert "rolled back: the database and the code are as before the upgrade" in output
    assert sh(repo, "git", "rev-parse", "HEAD").stdout.strip() == commits["v1"]
    answer = serves(repo, env, token)
    assert answer["me"] == 200 and answer["name"] == "keeper"
    assert answer["health"]["checks"]["database"]["status"] == "ok", answer
    backups = list((tmp_path / "var" / "backups").glob("dekabes-*-pre-upgrade.tar"))
    assert len(backups) == 1

    done = sh(
        repo, python, "manage.py", "upgrade", "--to", "good", "--no-install", env=env, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4. health check: the new version serves" in done.stdout
    assert sh(repo, "git", "rev-parse", "HEAD").stdout.strip() == commits["good"]
    applied = sh(repo, python, "manage.py", "showmigrations", "accounts", env=env).stdout
    assert "[X] 0099_upgrade_test" in applied
    assert serves(repo, env, token)["me"] == 200
    # a dirty checkout is refused before anything is done
    (repo / "README.md").write_text("changed by hand")
    refused = sh(
        repo, python, "manage.py", "upgrade", "--to", "v1", "--no-install", env=env, check=False
    )
    assert refused.returncode != 0 and "local changes" in refused.stderr
