"""``make serve``: migrate, start the house bots, run Daphne in the foreground.

The house bot account (``house`` unless ``--bot`` says otherwise) plays every bot seat
it is given: create a table with ``"bots": {"2": "house", ...}``. The bot runner is a
separate process talking to this server over HTTP, as any third-party bot would.
Ctrl-C stops both.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--bot", default="house", help="house bot account name")
    parser.add_argument("--level", default="strong")
    parser.add_argument("--delay", type=float, default=0.7, help="seconds before each computer action")
    parser.add_argument("--no-bots", action="store_true")
    args = parser.parse_args(argv)
    # SIGTERM (from `make play`, a service manager) stops the runner and Daphne too.
    signal.signal(signal.SIGTERM, _interrupt)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True)
    runner = None
    if not args.no_bots:
        token = subprocess.run([python, "manage.py", "createbot", args.bot], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
        from clients.bots.launch import start_runner, stop_runner

        url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
        runner = start_runner(url, token, level=args.level, delay=args.delay,
                              log=str(ROOT / "var" / "house-bots.log"))
        print(f"house bots: account {args.bot!r}, level {args.level}, log var/house-bots.log", flush=True)
    print(f"server: http://{args.host}:{args.port}/  (API docs at /api/docs/)", flush=True)
    server = subprocess.Popen([python, "-m", "daphne", "-b", args.host, "-p", str(args.port),
                               "server.asgi:application"], cwd=ROOT, env=dict(os.environ))
    try:
        return server.wait()
    except KeyboardInterrupt:
        server.terminate()
        return server.wait()
    finally:
        if runner is not None:
            stop_runner(runner)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
