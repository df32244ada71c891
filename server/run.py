"""``make serve``: migrate, start the house bots, run Daphne in the foreground.

The house bot account (``house`` unless ``--bot`` says otherwise) plays every bot seat
it is given: create a table with ``"bots": {"2": "house", ...}``. The bot runner is a
separate process talking to this server over HTTP, as any third-party bot would.
Ctrl-C (or SIGTERM) stops both, and this process waits for them before it exits.

``--workers N`` (``make serve WORKERS=N``) runs N Daphne processes accepting on one
listening socket (opened here, handed to each with ``daphne --fd``): the kernel spreads
connections among them. Several processes need ``REDIS_URL`` (pushes and rate limits
cross processes only through Redis) and should use PostgreSQL (``DATABASE_URL``): SQLite
has one writer, and its in-process writer lock does not span processes.

Binding an address other than loopback (``HOST=0.0.0.0``, the LAN setup) needs the
settings a reachable server needs: a secret key (generated on first start in
``var/secret_key``, owner-only, unless ``DJANGO_SECRET_KEY`` is set), ``ALLOWED_HOSTS``
(this machine's names and addresses unless ``DJANGO_ALLOWED_HOSTS`` lists them), and a
warning while registration is open to anyone who can reach it.

This module is the server's process launcher, the one module of ``server`` that starts
the clients' code (the bot runner: a child process here, threads of the caller in
``bot_runner_threads`` for ``manage.py seed_demo_league``); tests/server/test_layering.py
holds every other server module to never importing ``clients``.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.bots import LEVELS

ROOT = Path(__file__).resolve().parents[1]
APP = "server.asgi:application"
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
            address = str(info[4][0])
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
    parser.add_argument("--level", default="strong", choices=LEVELS)
    parser.add_argument(
        "--delay", type=float, default=0.7, help="seconds before each computer action"
    )
    parser.add_argument("--no-bots", action="store_true")
    parser.add_argument("--workers", type=int, default=1, help="Daphne processes on one socket")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers is 1 or more")
    if args.workers > 1 and not os.environ.get("REDIS_URL"):
        parser.error(
            "several workers need REDIS_URL: pushes and rate limits cross processes only "
            "through Redis (and DATABASE_URL for PostgreSQL; see docs/server.md)"
        )
    if args.workers > 1 and not os.environ.get("DATABASE_URL"):
        print(
            "WARNING: several workers on SQLite: one writer at a time; use PostgreSQL", flush=True
        )
    env = dict(os.environ)
    if not is_loopback(args.host):
        env = public_environment(args.host, env)
    # SIGTERM (from `make play`, a service manager) stops the runner and Daphne too.
    signal.signal(signal.SIGTERM, _interrupt)
    python = sys.executable
    runner = None
    servers: list[subprocess.Popen] = []
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
            # Imported here, as below: the bot runner loads the SDK and the engine's
            # players (~0.4 s), which --no-bots and the callers of daphne_command (the
            # tests' servers, the benchmarks) never need.
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
        if args.workers == 1:
            servers.append(
                subprocess.Popen(
                    daphne_command(host=args.host, port=args.port),
                    cwd=ROOT,
                    env=env,
                )
            )
        else:
            servers = start_workers(args.host, args.port, args.workers, env)
            print(f"server: {args.workers} Daphne processes on one socket", flush=True)
        return wait_any(servers)
    except KeyboardInterrupt:
        return 130
    finally:
        # A second Ctrl-C must not cut the clean-up short and leave a child behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for server in servers:
            _stop(server)
        if runner is not None:
            from clients.bots.launch import stop_runner

            stop_runner(runner)


def daphne_command(
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    fd: int | None = None,
    application: str = APP,
    access_log: bool = True,
) -> list[str]:
    """The command line of one Daphne process serving ``application``: on ``host``
    and ``port``, or on the inherited listening socket ``fd`` (workers sharing one
    socket). ``access_log=False`` sends the access log nowhere. The one place the
    project's servers are started from: this runner, the benchmarks, the demo seed
    and the tests' live servers."""
    where = ["--fd", str(fd)] if fd is not None else ["-b", host, "-p", str(port)]
    quiet = [] if access_log else ["--access-log", os.devnull]
    return [sys.executable, "-m", "daphne", *where, *quiet, application]


@contextmanager
def bot_runner_threads(server_url: str, tokens: Sequence[str], **options: Any) -> Iterator[list]:
    """A bot runner (``clients.bots.runner.Runner``) for each token, as threads of this
    process, playing through ``server_url`` like any API client; ``options`` are the
    runners' ``RunnerOptions``. Every runner is stopped when the block ends."""
    from clients.bots.runner import Runner, RunnerOptions  # imported here: see main()
    from clients.sdk import DekabesClient

    runner_options = RunnerOptions(**options)
    runners = []
    try:
        for token in tokens:
            runners.append(Runner(DekabesClient(server_url, token), runner_options).start())
        yield runners
    finally:
        for runner in runners:
            runner.stop_event.set()
        for runner in runners:
            runner.stop(timeout=10)


def start_workers(host: str, port: int, workers: int, env: dict) -> list[subprocess.Popen]:
    """``workers`` Daphne processes accepting on one socket bound here."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host.strip("[]"), port))
    listener.listen(1024)
    started: list[subprocess.Popen] = []
    try:
        for _ in range(workers):
            started.append(
                subprocess.Popen(
                    daphne_command(fd=listener.fileno()),
                    cwd=ROOT,
                    env=env,
                    pass_fds=(listener.fileno(),),
                )
            )
    except BaseException:
        for process in started:
            _stop(process)
        raise
    finally:
        listener.close()  # the workers hold it now
    return started


def wait_any(processes: list[subprocess.Popen]) -> int:
    """Wait until one process exits (the others are then stopped by the caller)."""
    while True:
        for process in processes:
            code = process.poll()
            if code is not None:
                return code
        time.sleep(0.5)


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
