"""``python -m bench.server_instructions``: a keyed game action against a trivial GET in
instructions, not seconds.

``make bench-server``'s CPU ratio is read from the clock, and on a shared 2-core machine
it moves by ±8 % from one run to the next. This runs the same server (Daphne, the
embedded default on a temporary SQLite file) under valgrind's callgrind, which counts the
instructions the process executes whatever else the machine does, and drives it the way
``bench.server_actions`` does: ``--actions`` game actions (GET the seat view, POST one
random legal action with an ``Idempotency-Key``), then twice as many trivial
authenticated GETs (``/api/me``), then ``--actions`` moves over the seats' WebSockets
(``SocketTableDriver``: four sockets per table, every push read). Counting is switched on only for those two phases
(``callgrind_control``), one dump each, so start-up and warm-up are left out.

What it counts is user-space work: the kernel's share (an fsync per commit, the socket
writes) is not in it, so the ratio is a floor of the CPU one, and the tool for telling
two versions of the code apart (``--baseline-dir``: another checkout, measured in the
same run). Python's hash seed is fixed; table codes and keys still vary, so two runs of
one checkout differ by about 1-2 %.

    .venv/bin/python -m bench.server_instructions --actions 300
    .venv/bin/python -m bench.server_instructions --baseline-dir /tmp/older-checkout

Needs valgrind (Debian's package; ``apt-get install valgrind``). About a minute per
side for 300 actions. Every server it starts is stopped in a ``finally``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

DRIVER = r"""
import json, os, subprocess, sys, tempfile, time
from pathlib import Path
import requests
import bench.server_actions as bench
from server.run import daphne_command

actions = int(sys.argv[1])
with tempfile.TemporaryDirectory(prefix="dekabes-instructions-") as tmp:
    env = bench.server_env(Path(tmp), scale_out=False)
    env["PYTHONHASHSEED"] = "0"
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], env=env, check=True)
    listener = bench._listener()
    out = Path(tmp) / "callgrind.out"
    command = [
        "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
        *daphne_command(fd=listener.fileno(), application="server.asgi:application", access_log=False),
    ]
    server = subprocess.Popen(command, env=env, pass_fds=(listener.fileno(),),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    try:
        deadline = time.monotonic() + 600  # start-up under valgrind is slow on a busy machine
        while True:
            try:
                requests.get(url + "/api/me", timeout=60)
                break
            except requests.RequestException:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server under valgrind did not start")
                time.sleep(1)
        token = bench.register(url)
        drivers = [bench.TableDriver([url], token, i, 1, keys=True) for i in range(2)]
        bench.run_split([[d] for d in drivers], 60, bench.TableDriver.act)  # warm
        for _ in range(20):
            drivers[0].trivial_get()
        # moves over the seats' sockets (a checkout without them: none)
        socket_driver = getattr(bench, "SocketTableDriver", None)
        socketed = [socket_driver([url], token, 100 + i, 1) for i in range(2)] if socket_driver else []
        for driver in socketed * 30:  # warm
            driver.act()

        def control(*args):
            subprocess.run(["callgrind_control", *args, str(server.pid)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        control("--instr=on")
        control("--zero")
        bench.run_split([[d] for d in drivers], actions, bench.TableDriver.act)
        control("--dump=actions")
        bench.run_split([[d] for d in drivers], 2 * actions, bench.TableDriver.trivial_get)
        control("--dump=gets")
        if socketed:
            bench.run_split([[d] for d in socketed], actions, lambda d: d.act())
            control("--dump=socket_moves")
        totals = {}
        for dump in Path(tmp).glob("callgrind.out*"):
            text = dump.read_text(errors="replace")
            trigger = [line for line in text.splitlines() if line.startswith("desc: Trigger:")]
            total = [line for line in text.splitlines() if line.startswith(("summary:", "totals:"))]
            if trigger and total:
                totals[trigger[0].split()[-1]] = int(total[0].split()[1])
        errors = sum(d.errors for d in drivers + socketed)
        for driver in socketed:
            driver.close_sockets()
    finally:
        bench.stop([server])
    print(json.dumps({"actions": actions, "gets": 2 * actions, "totals": totals, "non_200": errors}))
"""


def measure(checkout: Path, actions: int) -> dict:
    """Instructions per action and per trivial GET for the code in ``checkout``."""
    python = checkout / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python if python.exists() else sys.executable), "-c", DRIVER, str(actions)],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        check=True,
        capture_output=True,
        text=True,
    )
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    per_action = raw["totals"]["actions"] / raw["actions"]
    per_get = raw["totals"]["gets"] / raw["gets"]
    out = {
        "checkout": str(checkout),
        "instructions_per_action": round(per_action),
        "instructions_per_trivial_get": round(per_get),
        "action_vs_trivial_get": round(per_action / per_get, 3),
        "non_200_answers": raw["non_200"],
    }
    if "socket_moves" in raw["totals"]:
        per_move = raw["totals"]["socket_moves"] / raw["actions"]
        out["instructions_per_socket_move"] = round(per_move)
        out["socket_move_vs_trivial_get"] = round(per_move / per_get, 3)
        out["socket_move_vs_rest_action"] = round(per_move / per_action, 3)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--actions", type=int, default=300, help="keyed actions counted")
    parser.add_argument("--baseline-dir", help="another checkout, measured in the same run")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    started = time.monotonic()
    report: dict[str, Any] = {"this": measure(ROOT, args.actions)}
    if args.baseline_dir:
        report["baseline"] = measure(Path(args.baseline_dir).resolve(), args.actions)
        report["action_instructions_this_vs_baseline"] = round(
            report["this"]["instructions_per_action"]
            / report["baseline"]["instructions_per_action"],
            3,
        )
    report["seconds"] = round(time.monotonic() - started)
    report["note"] = "user-space instructions (callgrind): the kernel's work is not counted"
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
