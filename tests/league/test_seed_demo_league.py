"""``manage.py seed_demo_league`` on a fresh database, the way the README runs it.

The command starts Daphne and eight bot runners of its own, so it runs here as a
process of its own against a file database (random bots: ~15 s); everything it leaves
behind is read back through the league's selectors and the engine's ``replay``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import migrated_sqlite
from tests.records import replay_summary

ROOT = Path(__file__).resolve().parents[2]

# What the seeded league looks like, through the league's own reads.
READ_BACK = """
import json
from server.league import selectors
from server.league.models import LeagueMatch, Season
from server.league.serializers import StandingSerializer
season = Season.objects.get(club__slug="demo")
matches = LeagueMatch.objects.filter(season=season).order_by("id")
print(json.dumps({
    "rounds": list(season.rounds.order_by("number").values_list("number", "status")),
    "matches": [m.status for m in matches],
    "records": [selectors.record_text(m) for m in matches if m.status == "finished"],
    "standings": StandingSerializer(selectors.standing_rows(season), many=True).data,
    "ratings": selectors.club_ratings(season.club).count(),
}))
"""


def manage(db: Path, *args: str, timeout: float) -> str:
    """Run ``manage.py`` on ``db``; its whole process group is stopped whatever happens."""
    env = {**os.environ, "DEKABES_SQLITE_PATH": str(db)}
    env.pop("DATABASE_URL", None)
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # Daphne, started by the command, is in its group
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    assert process.returncode == 0, out
    return out


def test_seeding_a_fresh_database_plays_two_rounds_that_standings_and_replay_agree_on(tmp_path):
    db = tmp_path / "demo.sqlite3"
    # ``manage.py migrate -v0`` on a new file, as the README's first step: the test
    # process's copy of one (``migrated_sqlite``, the same command, run once per process)
    shutil.copyfile(migrated_sqlite(), db)
    out = manage(db, "seed_demo_league", "--level", "random", "--timeout", "200", timeout=240)
    assert "round 1: finished" in out and "round 2: finished" in out, out
    assert "4 matches" in out, out

    league = json.loads(manage(db, "shell", "-c", READ_BACK, timeout=120).splitlines()[-1])
    assert league["rounds"] == [[1, "finished"], [2, "finished"]]
    assert league["matches"] == ["finished"] * 4  # eight players: two tables a round

    standings = league["standings"]
    assert sorted(row["player"]["username"] for row in standings) == [
        f"demo-bot-{n}" for n in range(1, 9)
    ]
    assert [row["position"] for row in standings] == list(range(1, 9))
    assert all(row["played"] == 2 and row["byes"] == 0 for row in standings)
    assert sum(row["wins"] for row in standings) == 4 * 2  # a match has two winners
    assert league["ratings"] == 8

    decided = 0
    for text in league["records"]:
        summary = replay_summary(text, tmp_path)
        assert summary["phase"] == "match_over" and summary["winner"] in ("A", "B")
        decided += sum(1 for hand in summary["results"] if hand["team"] is not None)
    # Each hand a team wins counts for both of its players.
    assert sum(row["hands_won"] for row in standings) == 2 * decided

    again = manage(db, "seed_demo_league", "--level", "random", timeout=120)
    assert "already seeded" in again, again


def test_a_server_on_another_database_is_refused_at_once_with_what_to_do(tmp_path):
    from tests.conftest import LiveServer

    (tmp_path / "server").mkdir()
    server = LiveServer(tmp_path / "server")  # its own database, not the command's
    server.start()
    try:
        db = tmp_path / "demo.sqlite3"
        shutil.copyfile(migrated_sqlite(), db)
        env = {**os.environ, "DEKABES_SQLITE_PATH": str(db)}
        env.pop("DATABASE_URL", None)
        done = subprocess.run(
            [sys.executable, "manage.py", "seed_demo_league", "--server", server.url],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,  # before: the runners died in their threads, the rounds waited 900 s
        )
    finally:
        server.stop()
    assert done.returncode != 0
    assert "does not use this command's database" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "round 1: playing" not in done.stdout  # nothing started on the wrong server
