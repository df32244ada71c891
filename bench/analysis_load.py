"""``python -m bench.analysis_load``: a seat action's latency while the background
analyser of finished matches (``manage.py analyse_matches --watch``) is busy.

Starts its own Daphne (temporary SQLite, loopback only, as ``bench.abuse``), finishes
``--matches`` casual matches through the API (one member holding all four seats, each
playing its first legal move) so the analyser has work, then measures a bystander's game
action (GET the seat view + POST a legal action, open loop at ``--rate`` per second):
1. with no analyser running;
2. with the analyser working (at its default low priority, ``nice`` 10; ``--no-nice``
   runs it at the server's priority, to see what the priority buys), re-analysing
   every finished match with ``--iterations`` worlds per move so it stays busy.
Prints p50/p90/max of each phase and the analyser's CPU seconds during the second.
Wall-clock figures on a shared machine: compare the phases of one run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.abuse import Bystander, open_loop, start, summary

ROOT = Path(__file__).resolve().parents[1]


def finish_matches(bystander: Bystander, count: int) -> None:
    done, first = 0, bystander.code
    codes = {first}
    while done < count:
        bystander.action()
        if bystander.code not in codes:  # the previous match ended: a new table
            codes.add(bystander.code)
            done += 1


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rate", type=float, default=5.0, help="bystander actions per second")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--matches", type=int, default=6, help="finished matches to analyse")
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--no-nice", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dekabes-analysis-load-") as tmp:
        workdir = Path(tmp)
        server, url = start(ROOT, workdir, {})
        analyser = None
        try:
            worker = Bystander(url)
            print(f"finishing {args.matches} matches for the analyser...", flush=True)
            finish_matches(worker, args.matches)
            bystander = Bystander(url)
            print(
                "without the analyser:  " + summary(open_loop(bystander, args.rate, args.seconds))
            )
            env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
            env.update(DEKABES_VAR_DIR=str(workdir), DEKABES_SQLITE_PATH=str(workdir / "b.sqlite3"))
            command = [sys.executable, "manage.py", "analyse_matches", "--watch"]
            command += ["--iterations", str(args.iterations), "--every", "0.2"]
            if args.no_nice:
                command += ["--nice", "0"]
            analyser = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while cpu_seconds(analyser.pid) < 1.0 and time.monotonic() < deadline:
                time.sleep(0.2)  # started and working (Django loaded, a match claimed)
            before = cpu_seconds(analyser.pid)
            busy = open_loop(bystander, args.rate, args.seconds)
            used = cpu_seconds(analyser.pid) - before
            label = "analyser busy (nice 0):" if args.no_nice else "analyser busy (nice 10):"
            print(f"{label} {summary(busy)}  analyser CPU {used:.1f} s in the window")
        finally:
            if analyser is not None:
                analyser.terminate()
                try:
                    analyser.wait(10)
                except subprocess.TimeoutExpired:
                    analyser.kill()
                    analyser.wait()
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
