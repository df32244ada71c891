"""The third-party example bot (examples/simple_bot.py, plain requests) finishes a
match against a live server, playing all four seats of one bot account."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

from clients.sdk import DekabesClient

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "simple_bot.py"


def test_example_bot_is_short_and_uses_plain_requests():
    source = EXAMPLE.read_text()
    assert len(source.splitlines()) < 80
    assert "import requests" in source
    for project_import in ("from clients", "import clients", "from engine", "import engine"):
        assert project_import not in source


def test_example_bot_plays_a_whole_match(live_server_url, tmp_path):
    owner = DekabesClient(live_server_url)
    owner.register(f"ann{uuid.uuid4().hex[:10]}", "a long enough password 42")
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")
    table = owner.create_table(
        {n: "bot" for n in (1, 2, 3, 4)}, bots={n: bot.username for n in (1, 2, 3, 4)}
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE),
            "--server",
            live_server_url,
            "--token",
            bot.token,
            "--table",
            table.code,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "match over" in done.stdout
    final = DekabesClient(live_server_url, bot.token).seat_view(table.code, 1)
    assert final.match_over and final.view["winner"] in ("A", "B")
    assert final.view["scores"][final.view["winner"]] >= 4
    types = [
        e["type"] for e in DekabesClient(live_server_url, bot.token).events(table.code, 1)["events"]
    ]
    assert types.count("match_started") == 1 and "play" in types
