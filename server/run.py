"""``make serve``: migrate, start the house bots, run Daphne in the foreground.

The house bot account (``house`` unless ``--bot`` says otherwise) plays every bot seat
it is given: create a table with ``"bots": {"2": "house", ...}``. The bot runner is a
separate process talking to this server over HTTP, as any third-party bot would.
Ctrl-C (or SIGTERM) stops both, and this process waits for them before it exits.

Binding an address other than loopback (``HOST=0.0.0.0``, the LAN setup) needs the
settings a reachable server needs: a secret key (generated on first start in
``var/secret_key``, owner-only, unless ``DJANGO_SECRET_KEY`` is set), ``ALLOWED_HOSTS``
(this machine's names and addresses unless ``DJANGO_ALLOWED_HOSTS`` lists them), and a
warning while registration is open to anyone who can reach it.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def machine_hosts(bound: str) -> list[str]:
    """Names a LAN client may use to reach this machine, for ALLOWED_HOSTS."""
    names = {*LOOPBACK_NAMES, socket.gethostname(), socket.getfqdn()}
    if bound not in ("0.0.0.0", "::"):
        names.add(bound)
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            address = info[4][0]
            names.add(f"[{address}]" if ":" in address else address)
    except OSError:
        pass
    try:  # the address of the default route: what the LAN sees
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            names.add(probe.getsockname()[0])
    except OSError:
        pass
    return sorted(n for n in names if n)


def public_environment(host: str, env: dict) -> dict:
    env = dict(env)
    if not env.get("DJANGO_ALLOWED_HOSTS"):
        env["DJANGO_ALLOWED_HOSTS"] = ",".join(machine_hosts(host))
    print(
        f"server: reachable beyond this machine; ALLOWED_HOSTS={env['DJANGO_ALLOWED_HOSTS']}",
        flush=True,
    )
    if not env.get("DJANGO_SECRET_KEY"):
        print(
            "server: secret key from var/secret_key (generated on first start, owner-only)",
            flush=True,
        )
    if env.get("DEKABES_REGISTRATION", "open") == "open":
        print(
            "WARNING: anyone who can reach this server may register. Close it with "
            "DEKABES_REGISTRATION=invite (codes from `manage.py invite`) or =closed; "
            "see docs/server.md, production checklist.",
            flush=True,
        )
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--bot", default="house", help="house bot account name")
    parser.add_argument("--level", default="strong")
    parser.add_argument(
        "--delay", type=float, default=0.7, help="seconds before each computer action"
    )
    parser.add_argument("--no-bots", action="store_true")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if not is_loopback(args.host):
        env = public_environment(args.host, env)
    # SIGTERM (from `make play`, a service manager) stops the runner and Daphne too.
    signal.signal(signal.SIGTERM, _interrupt)
    python = sys.executable
    runner = server = None
    try:
        subprocess.run([python, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
        if not args.no_bots:
            token = subprocess.run(
                [python, "manage.py", "createbot", args.bot, "--device", "make serve"],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            from clients.bots.launch import start_runner

            url = (
                f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
            )
            var = Path(env.get("DEKABES_VAR_DIR") or ROOT / "var")
            runner = start_runner(
                url, token, level=args.level, delay=args.delay, log=str(var / "house-bots.log")
            )
            print(
                f"house bots: account {args.bot!r}, level {args.level}, log var/house-bots.log",
                flush=True,
            )
        print(f"server: http://{args.host}:{args.port}/  (API docs at /api/docs/)", flush=True)
        server = subprocess.Popen(
            [
                python,
                "-m",
                "daphne",
                "-b",
                args.host,
                "-p",
                str(args.port),
                "server.asgi:application",
            ],
            cwd=ROOT,
            env=env,
        )
        return server.wait()
    except KeyboardInterrupt:
        return 130
    finally:
        # A second Ctrl-C must not cut the clean-up short and leave a child behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _stop(server)
        if runner is not None:
            from clients.bots.launch import stop_runner

            stop_runner(runner)


def _stop(process: subprocess.Popen | None, timeout: float = 10.0) -> None:
    if process is None:
        return
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
    process.wait()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
