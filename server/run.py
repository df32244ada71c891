"""``make serve``: migrate, start the host of computer players, run Daphne in the foreground.

The host (``python -m clients.bots.host``) is a separate process talking to this server
over HTTP, as any third-party bot would, signed in as the house bot account (``house``
unless ``--bot`` says otherwise; it is also ``DEKABES_HOST_ACCOUNT`` for the server). It
plays every bot seat the house account is given (a table created with
``"bots": {"2": "house", ...}``) and every server-hosted computer player a club's
organizer added (docs/league.md), each at its level. This process supervises it: when
the host exits while the server runs, it is started again after a pause that doubles
from 1 s up to a minute (back to 1 s once it has run a minute), each restart written
to ``var/house-bots.log``, its log. Ctrl-C (or SIGTERM) stops the host and Daphne, and
this process waits for them before it exits.

The analyser of finished matches (``manage.py analyse_matches --watch``, low CPU
priority; docs/league.md "Analysis") is supervised the same way, its output in
``var/analyser.log``; ``--no-analyser`` leaves it out. So is the members' mail queue
(``manage.py send_mail_queue --watch``; docs/server.md "Mail"), its output in
``var/mail.log``; ``--no-mail`` leaves it out. The mails' links start with
``DEKABES_SITE_URL``, set here to this server's address when the operator did not.

The server process ticks (``server/league/tick.py``: lapsed pauses, the league's
automatic substitutes after a round's deadline) every minute, in its own process, where
presence is seen (``server_environment``); with ``--workers N`` the first worker only.

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
the clients' code (the host: a child process here; bot runners as threads of the caller
in ``bot_runner_threads`` for ``manage.py seed_demo_league``); tests/server/test_layering.py
holds every other server module to never importing ``clients``.
"""

from __future__ import annotations

import argparse
import faulthandler
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
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
    parser.add_argument(
        "--bot",
        default=os.environ.get("DEKABES_HOST_ACCOUNT") or "house",
        help="the house bot account: the host of computer players signs in as it",
    )
    parser.add_argument("--level", default="strong", choices=LEVELS, help="the house bots' level")
    parser.add_argument(
        "--delay", type=float, default=0.7, help="seconds before each computer action"
    )
    parser.add_argument("--no-bots", action="store_true")
    parser.add_argument(
        "--no-analyser",
        action="store_true",
        help="do not start the background analyser of finished matches",
    )
    parser.add_argument(
        "--no-mail",
        action="store_true",
        help="do not start the queue that sends the members' mail",
    )
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
    env["DEKABES_HOST_ACCOUNT"] = args.bot  # the account the server lets host players
    env.setdefault("DEKABES_SITE_URL", site_url(args.host, args.port))
    # SIGTERM (from `make play`, a service manager) stops the host and Daphne too.
    signal.signal(signal.SIGTERM, _interrupt)
    # So does SIGINT (Ctrl-C), even when this process was started with it ignored, as a
    # background job of a script is (`cmd &` in a non-interactive shell, `nohup ... &`):
    # a server asked to stop stops. Python keeps an inherited SIG_IGN, and so would every
    # child started from here (exec keeps ignored signals; it resets handled ones), so
    # Daphne and the host would not stop either.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # `kill -USR1 <pid>` prints where each thread is (a stop that does not finish).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    python = sys.executable
    host: Supervised | None = None
    analyser: Supervised | None = None
    mail: Supervised | None = None
    backups: Periodic | None = None
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
            # Imported here, as below: the host loads the SDK and the engine's players
            # (~0.4 s), which --no-bots and the callers of daphne_command (the tests'
            # servers, the benchmarks) never need.
            from clients.bots.launch import start_host

            url = (
                f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}"
            )
            log = Path(env.get("DEKABES_VAR_DIR") or ROOT / "var") / "house-bots.log"
            host = Supervised(
                "the host of computer players",
                lambda: start_host(url, token, level=args.level, delay=args.delay, log=str(log)),
                log,
            )
            print(
                f"house bots and hosted players: account {args.bot!r}, house level "
                f"{args.level}, log var/house-bots.log",
                flush=True,
            )
        if not args.no_analyser:
            var = Path(env.get("DEKABES_VAR_DIR") or ROOT / "var")
            analyser = Supervised(
                "the analyser of finished matches",
                lambda: start_analyser(env, var / "analyser.log"),
                var / "analyser.log",
            )
            print("analyser of finished matches: log var/analyser.log", flush=True)
        if not args.no_mail:
            mail = Supervised(
                "the members' mail queue",
                lambda: start_mail_queue(env, var_dir(env) / "mail.log"),
                var_dir(env) / "mail.log",
            )
            print("members' mail queue: log var/mail.log", flush=True)
        print(f"server: http://{args.host}:{args.port}/  (API docs at /api/docs/)", flush=True)
        if args.workers == 1:
            servers.append(
                subprocess.Popen(
                    daphne_command(host=args.host, port=args.port),
                    cwd=ROOT,
                    env=server_environment(env, ticks=True),
                )
            )
        else:
            servers = start_workers(args.host, args.port, args.workers, env)
            print(f"server: {args.workers} Daphne processes on one socket", flush=True)
        if float(env.get("DEKABES_BACKUP_HOURS") or 0) > 0:
            # Scheduled backups (docs/server.md, "Backups"): the command itself runs only
            # when the last backup is DEKABES_BACKUP_HOURS old, so a restart neither
            # skips nor repeats one.
            backups = Periodic(
                [python, "manage.py", "backup", "--scheduled"],
                env,
                every=BACKUP_CHECK_EVERY,
                log=var_dir(env) / "backup.log",
                first_after=BACKUP_FIRST_CHECK,
            )
            print(
                f"backups: every {env['DEKABES_BACKUP_HOURS']} h, log var/backup.log",
                flush=True,
            )
        supervised: list[Supervised | Periodic] = [
            child for child in (host, analyser, mail, backups) if child is not None
        ]
        report = StatusFile(
            var_dir(env) / "supervisor.json",
            {"host": host, "analyser": analyser, "mail": mail, "backup": backups},
        )

        def check_children() -> None:
            for child in supervised:
                child.check()
            report.write()

        check_children()  # starts them, once Daphne is on its way
        return wait_any(servers, every_tick=check_children)
    except KeyboardInterrupt:
        return 130
    finally:
        # A second Ctrl-C must not cut the clean-up short and leave a child behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for server in servers:
            _stop(server)
        if host is not None:
            host.stop()
        if analyser is not None:
            analyser.stop()
        if mail is not None:
            mail.stop()
        if backups is not None:
            backups.stop()


def start_analyser(env: dict, log: Path) -> subprocess.Popen:
    """``manage.py analyse_matches --watch``: the background analysis of finished matches,
    at a low CPU priority (it lowers its own), its output appended to ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "analyse_matches", "--watch"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def start_mail_queue(env: dict, log: Path) -> subprocess.Popen:
    """``manage.py send_mail_queue --watch``: the members' mail, sent from the outbox
    after each commit (docs/server.md, "Mail"), its output appended to ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", "send_mail_queue", "--watch"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def site_url(host: str, port: int) -> str:
    """The address the mails' links use when DEKABES_SITE_URL is not set: this server's
    own (a wildcard bind: this machine's name)."""
    if host in ("0.0.0.0", "::"):
        host = socket.getfqdn()
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


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


TICK_EVERY = 60.0  # seconds between two ticks of the server (server/league/tick.py)


def server_environment(env: dict, ticks: bool) -> dict:
    """The environment of one Daphne process. The one that ``ticks`` (the only one, or the
    first worker: one tick at a time) runs the ticking driver in its own process, where
    presence is seen (``DEKABES_TICK_SECONDS``: every minute unless the operator set it);
    the others never tick."""
    tick = env.get("DEKABES_TICK_SECONDS", str(TICK_EVERY)) if ticks else "0"
    return {**env, "DEKABES_TICK_SECONDS": tick}


def start_workers(host: str, port: int, workers: int, env: dict) -> list[subprocess.Popen]:
    """``workers`` Daphne processes accepting on one socket bound here."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host.strip("[]"), port))
    listener.listen(1024)
    started: list[subprocess.Popen] = []
    try:
        for number in range(workers):
            started.append(
                subprocess.Popen(
                    daphne_command(fd=listener.fileno()),
                    cwd=ROOT,
                    env=server_environment(env, ticks=number == 0),
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


def wait_any(
    processes: list[subprocess.Popen], every_tick: Callable[[], None] | None = None
) -> int:
    """Wait until one process exits (the others are then stopped by the caller);
    ``every_tick`` runs twice a second meanwhile (the host's supervision)."""
    while True:
        for process in processes:
            code = process.poll()
            if code is not None:
                return code
        if every_tick is not None:
            every_tick()
        time.sleep(0.5)


class Supervised:
    """A child process kept running while the server runs: ``check()`` (called twice a
    second) starts it, and starts it again when it has exited, after a pause that doubles
    from ``FIRST_PAUSE`` up to ``LONGEST_PAUSE`` and is back to the first once the child
    has run ``HEALTHY_AFTER`` seconds; each exit and restart is a line in ``log``.
    ``stop()`` ends it. A service manager would do the same (docs/server.md); this one
    needs no set-up, so ``make serve`` on a laptop has it too."""

    FIRST_PAUSE, LONGEST_PAUSE, HEALTHY_AFTER = 1.0, 60.0, 60.0

    def __init__(self, name: str, start: Callable[[], subprocess.Popen], log: Path):
        self.name = name
        self.start = start
        self.log = log
        self.process: subprocess.Popen | None = None
        self.started_at = 0.0
        self.restart_at = 0.0
        self.pause = self.FIRST_PAUSE
        self.restarts = 0
        self.last_exit: str | None = None

    def status(self) -> dict:
        """What /healthz reads of this child (``var/supervisor.json``)."""
        running = self.process is not None and self.process.poll() is None
        return {
            "running": running,
            "running_for": round(time.monotonic() - self.started_at) if running else 0,
            "restarts": self.restarts,
            "last_exit": self.last_exit,
        }

    def check(self) -> None:
        now = time.monotonic()
        if self.process is None:
            if now >= self.restart_at:
                self.process = self.start()
                self.started_at = now
            return
        code = self.process.poll()
        if code is None:
            return
        if now - self.started_at >= self.HEALTHY_AFTER:
            self.pause = self.FIRST_PAUSE  # it ran a good while: a fresh failure
        self._note(f"{self.name} exited with code {code}; starting it again in {self.pause:g} s")
        self.last_exit = f"exited with code {code} at {time.strftime('%Y-%m-%d %H:%M:%S')}"
        self.process = None
        self.restart_at = now + self.pause
        self.pause = min(self.pause * 2, self.LONGEST_PAUSE)
        self.restarts += 1

    def stop(self) -> None:
        if self.process is not None:
            from clients.bots.launch import stop_runner  # imported here: see main()

            stop_runner(self.process)
            self.process = None

    def _note(self, line: str) -> None:
        stamped = f"{time.strftime('%Y-%m-%d %H:%M:%S')} server.run: {line}"
        print(stamped, flush=True)
        try:
            with open(self.log, "a", encoding="utf-8") as out:
                out.write(stamped + "\n")
        except OSError:
            pass  # the line went to the terminal; a missing log file must not stop the server


# `manage.py backup --scheduled` is asked this often whether a backup is due (it costs a
# Django start-up, ~1 s of CPU); the first time 5 s after the server starts.
BACKUP_CHECK_EVERY, BACKUP_FIRST_CHECK = 600.0, 5.0


def var_dir(env: dict) -> Path:
    return Path(env.get("DEKABES_VAR_DIR") or ROOT / "var")


class StatusFile:
    """``var/supervisor.json``: what this process sees of its children, rewritten every
    ``EVERY`` seconds (``/healthz`` reads it: server/ops/health.py; a report older than a
    minute means this process is gone). Absent children are left out."""

    EVERY = 5.0

    def __init__(self, path: Path, children: dict[str, Any]):
        self.path, self.children = path, children
        self.written_at = 0.0

    def write(self) -> None:
        now = time.monotonic()
        if now - self.written_at < self.EVERY:
            return
        self.written_at = now
        report = {
            "at": time.time(),
            "pid": os.getpid(),
            "children": {
                name: child.status() for name, child in self.children.items() if child is not None
            },
        }
        partial = self.path.with_name(self.path.name + ".partial")
        try:
            partial.write_text(json.dumps(report))
            os.replace(partial, self.path)
        except OSError:
            pass  # the health check then says the supervisor stopped reporting


class Periodic:
    """A short command run every ``every`` seconds while the server runs, one at a time
    (``check()`` is called twice a second): ``manage.py backup --scheduled``
    (docs/server.md, "Backups")."""

    def __init__(
        self,
        command: list[str],
        env: dict,
        every: float,
        log: Path | None = None,
        first_after: float | None = None,
    ):
        self.command, self.env, self.every, self.log = command, env, every, log
        self.process: subprocess.Popen | None = None
        self.next_at = time.monotonic() + (every if first_after is None else first_after)
        self.runs = 0
        self.last_exit: int | None = None

    def status(self) -> dict:
        running = self.process is not None and self.process.poll() is None
        return {"running": True, "busy": running, "runs": self.runs, "last_exit": self.last_exit}

    def check(self) -> None:
        if self.process is not None:
            code = self.process.poll()
            if code is None:
                return  # the last run goes on: never two at once
            self.last_exit = code
            self.process = None
        now = time.monotonic()
        if now >= self.next_at:
            output: Any = subprocess.DEVNULL
            if self.log is not None:
                self.log.parent.mkdir(parents=True, exist_ok=True)
                output = open(self.log, "a", encoding="utf-8")  # noqa: SIM115 -- the child holds it; closed below
            try:
                self.process = subprocess.Popen(
                    self.command,
                    cwd=ROOT,
                    env=self.env,
                    stdout=output,
                    stderr=subprocess.STDOUT if self.log is not None else subprocess.DEVNULL,
                )
            finally:
                if self.log is not None:
                    output.close()  # the child has its own copy of the descriptor
            self.runs += 1
            self.next_at = now + self.every

    def stop(self) -> None:
        _stop(self.process)
        self.process = None


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
