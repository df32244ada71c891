"""``manage.py upgrade [--to REF]``: backup → (new code) → migrate → health check, and
back to the backup when a step fails.

1. A backup labelled ``pre-upgrade`` (kept out of rotation), made by the code running now.
2. With ``--to REF``: ``git checkout REF`` (the working tree must be clean) and
   ``pip install -r requirements.txt`` (``--no-install`` skips it).
3. ``manage.py migrate`` with the new code (a child process: this one still runs the old).
4. ``manage.py health --serve`` with the new code: every migration applied, Django's
   system checks, the database answering, and a Daphne started on a spare loopback port
   answering ``/healthz``, the home page and the API schema.
5. On a failure in 3 or 4: the previous commit checked out again (``--to``), its
   requirements installed, ``manage.py restore --replace`` of the pre-upgrade backup with
   that code (the release that made it), and the health check again. The server is then
   what it was before the upgrade; the output says which step failed and why.

Run it with the server stopped (docs/server.md, "Upgrading"): a migration must not meet
a running server, and the rollback replaces the database.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from server.ops.archive import BackupError
from server.ops.backup import do_backup
from server.ops.version import ROOT


@dataclass
class UpgradeResult:
    ok: bool
    steps: list[str] = field(default_factory=list)
    backup: Path | None = None
    rolled_back: bool = False


class StepFailed(Exception):
    pass


def run(command: list[str], what: str, say: Callable[[str], None]) -> str:
    say(f"… {what}: {' '.join(command[1:] if command[0] == sys.executable else command)}")
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        raise StepFailed(f"{what} failed (exit {done.returncode}): {output[-1500:]}")
    return output


def git(*args: str) -> list[str]:
    return ["git", *args]


def manage(*args: str) -> list[str]:
    return [sys.executable, "manage.py", *args]


def do_upgrade(
    *, to: str | None, install: bool, backup_dir: Path | None, say: Callable[[str], None]
) -> UpgradeResult:
    result = UpgradeResult(ok=False)
    previous = None
    if to is not None:
        if run(git("status", "--porcelain", "--untracked-files=no"), "git status", say):
            raise BackupError(
                "the checkout has local changes: commit or stash them first (git status)"
            )
        previous = run(git("rev-parse", "HEAD"), "the current commit", say)
        run(git("rev-parse", "--verify", f"{to}^{{commit}}"), f"find {to}", say)
    started = time.monotonic()
    backup = do_backup(folder=backup_dir, label="pre-upgrade")
    result.backup = backup.path
    say(f"1. backup: {backup.path} ({backup.size / 1e6:.1f} MB)")
    try:
        if to is not None:
            run(git("checkout", "--quiet", to), f"check out {to}", say)
            say(f"2. code: {to} checked out")
            if install:
                run(
                    [sys.executable, "-m", "pip", "install", "-q", "-r", "requirements.txt"],
                    "install the requirements",
                    say,
                )
        run(manage("migrate", "--noinput"), "migrate", say)
        say("3. migrate: done")
        run(manage("health", "--serve"), "health check", say)
        say("4. health check: the new version serves")
        result.ok = True
        say(
            f"upgraded in {time.monotonic() - started:.0f} s; the backup from before: {backup.path}"
        )
        return result
    except StepFailed as failure:
        say(f"FAILED: {failure}")
    say("rolling back to the backup…")
    result.rolled_back = True
    try:
        if previous is not None:
            run(git("checkout", "--quiet", previous), "check out the previous commit", say)
            if install:
                run(
                    [sys.executable, "-m", "pip", "install", "-q", "-r", "requirements.txt"],
                    "install the previous requirements",
                    say,
                )
        run(manage("restore", "--replace", str(backup.path)), "restore the backup", say)
        run(manage("health", "--serve"), "health check", say)
    except StepFailed as failure:
        say(
            f"THE ROLLBACK FAILED: {failure}\nThe backup is intact: {backup.path}. "
            "docs/server.md, 'When an upgrade fails', says what to do by hand."
        )
        return result
    say(
        "rolled back: the database and the code are as before the upgrade, and it serves. "
        "Start the server again; report the failure above to the developers."
        if previous is not None
        else "rolled back: the database is as before the upgrade. The code is still the new "
        "one: check out the version you had before starting the server."
    )
    return result
