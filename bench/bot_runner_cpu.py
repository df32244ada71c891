"""``python -m bench.bot_runner_cpu``: what the bot runner (``clients.bots.runner``, the
house bots' and any owner's) costs its own machine per action.

Starts the embedded server (a temporary SQLite file) and two bot accounts holding the
four seats of ``--tables`` new tables, the runners in this process (``delay`` 0, level
``random``: the decision costs next to nothing, so what is measured is the client's
HTTP, sockets and JSON); plays every match to its end and prints this process's CPU per
accepted action. ``--compare-utf8-check``: also the same with websocket-client's own
byte-by-byte UTF-8 check of every push switched back on (the SDK switches it off:
docs/api.md, "WebSocket"), alternated twice, in the same run. The server is stopped in a
``finally``.

    .venv/bin/python -m bench.bot_runner_cpu --tables 6 --compare-utf8-check
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path

import websocket

from bench import server_actions
from clients.sdk import DekabesClient
from server.run import bot_runner_threads

PASSWORD = "a long enough password 42"


def play(url: str, tables: int, utf8_check: bool) -> dict:
    """Runners for two bot accounts over ``tables`` new four-bot tables, to the end."""
    original = websocket.create_connection

    def connect(*args, **kwargs):
        kwargs["skip_utf8_validation"] = False
        return original(*args, **kwargs)

    websocket.create_connection = connect if utf8_check else original
    try:
        owner = DekabesClient(url)
        owner.register(f"own{uuid.uuid4().hex[:8]}", PASSWORD)
        bots = [owner.register_bot(f"bot{uuid.uuid4().hex[:8]}") for _ in range(2)]
        seats = {n: bots[n % 2].username for n in (1, 2, 3, 4)}
        tokens = [bot.token for bot in bots if bot.token]
        options = {"delay": 0.0, "level": "random", "discover_every": 0.5}
        with bot_runner_threads(url, tokens, **options) as runners:
            cpu, wall = time.process_time(), time.monotonic()
            codes = [
                owner.create_table(dict.fromkeys(seats, "bot"), bots=seats).code
                for _ in range(tables)
            ]
            deadline = time.monotonic() + 600
            while any(owner.table(code).phase != "match_over" for code in codes):
                if time.monotonic() > deadline:
                    raise RuntimeError("the matches did not end in 10 minutes")
                time.sleep(0.5)
            actions = sum(runner.stats.actions for runner in runners)
            cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    finally:
        websocket.create_connection = original
    return {
        "utf8_check": utf8_check,
        "actions": actions,
        "client_cpu_ms_per_action": round(cpu / actions * 1000, 2),
        "actions_per_second": round(actions / wall, 1),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--compare-utf8-check", action="store_true")
    args = parser.parse_args(argv)
    checks = (True, False, True, False) if args.compare_utf8_check else (False,)
    with tempfile.TemporaryDirectory(prefix="dekabes-bots-") as tmp:
        processes, urls = server_actions.start_server(Path(tmp))
        try:
            runs = [play(urls[0], args.tables, check) for check in checks]
        finally:
            server_actions.stop(processes)
    print(json.dumps({"runs": runs, "load_average": server_actions.load_average()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
