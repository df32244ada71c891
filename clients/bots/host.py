"""``python -m clients.bots.host``: the server's host of computer players.

    python -m clients.bots.host --server http://127.0.0.1:8000 [--token-file F] \
        [--level strong | --hosted-only] [--delay 0.7] [--refresh-every 2]

An ordinary API client, signed in as the server's host account (the house bot that
``make serve`` creates; the token from ``--token``, ``--token-file`` or DEKABES_TOKEN).
Every ``--refresh-every`` seconds it asks the server which server-hosted computer
players are in service (``GET /api/host/players``: each with its level), obtains a
token for each new one (``POST /api/host/players/{name}/token``, device ``host``, which
disturbs no other token of the player) and runs a ``clients.bots.runner.Runner`` for it
at its level: one thread per player in this one process, as ``server.run`` runs the
demo's runners. A player that leaves the list (removed from its club, once its league
matches in progress are over) loses its runner; a runner that died (its token revoked,
say) is started again with a new token after ``RESTART_PAUSE`` seconds.

A hosted player plays exactly what a runner plays for its account: the seats the server
gave it (a round's draw, a substitution). It never joins a table by itself.

With ``--level`` (the default, ``strong``) the host also plays its own account's seats,
as ``python -m clients.bots`` would: ``make serve`` runs one host for the house bots and
every hosted player. ``server.run`` starts it and starts it again when it exits.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass

from clients.bots.policy import DEFAULT_LEVEL
from clients.bots.runner import DEFAULT_DELAY, DEFAULT_POLL_WAIT, Runner, RunnerOptions
from clients.sdk import (
    ApiError,
    ConnectionLost,
    DekabesClient,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
)
from engine.bots import LEVELS

log = logging.getLogger("dekabes.bots.host")

DEFAULT_REFRESH = 2.0  # seconds between two looks at the list of hosted players
RESTART_PAUSE = 5.0  # a runner that died waits this long before it gets a new token


@dataclass
class HostOptions:
    delay: float = DEFAULT_DELAY
    refresh_every: float = DEFAULT_REFRESH
    own_level: str | None = DEFAULT_LEVEL  # the host account's own seats; None: not played
    poll_wait: float = DEFAULT_POLL_WAIT
    discover_every: float = 3.0
    seed: int | None = None


class Host:
    """Runs one ``Runner`` per hosted player in service (and one for its own account)."""

    def __init__(self, client: DekabesClient, options: HostOptions | None = None):
        self.client = client
        self.options = options or HostOptions()
        self.runners: dict[str, Runner] = {}  # hosted player's username -> its runner
        self.own: Runner | None = None
        self.stop_event = threading.Event()
        self._not_before: dict[str, float] = {}  # a died runner's name -> when to retry
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> Host:
        """Run in a background thread (for embedding and tests)."""
        self._thread = threading.Thread(target=self.run, name="bots-host", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """Until stopped; a refusal of the host's own token (401, 403) ends it with that
        error, for the supervisor to see."""
        if self.options.own_level is not None:
            self.own = Runner(self.client.clone(), self._runner_options(self.options.own_level))
            self.own.start()
        try:
            while not self.stop_event.is_set():
                try:
                    self.refresh()
                except ConnectionLost:
                    log.warning("server %s unreachable; trying again", self.client.base_url)
                except (NotAuthenticated, PermissionDenied):
                    log.error("the server refuses the host account's token")
                    raise
                except ApiError as problem:
                    log.warning("server error %s (%s); carrying on", problem.code, problem.status)
                self.stop_event.wait(self.options.refresh_every)
        finally:
            self._stop_all()

    # ------------------------------------------------------------------ one look
    def refresh(self) -> None:
        """Start a runner for each hosted player in service, at its level; stop the
        runners of the others (and of a player whose level changed)."""
        wanted = {p["username"]: p["level"] for p in self.client.host_players()}
        for name, runner in list(self.runners.items()):
            died = runner.join(0)
            if wanted.get(name) != runner.options.level or died:
                if died and name in wanted:
                    log.warning("%s: its runner stopped; a new one in %.0fs", name, RESTART_PAUSE)
                    self._not_before[name] = time.monotonic() + RESTART_PAUSE
                self._retire(name)
        for name, level in wanted.items():
            if name not in self.runners and time.monotonic() >= self._not_before.get(name, 0):
                self._begin(name, level)

    def _begin(self, name: str, level: str) -> None:
        try:
            token = self.client.host_player_token(name).token
        except NotFound:  # removed between the list and now
            return
        client = DekabesClient(self.client.base_url, token, timeout=self.client.timeout)
        self.runners[name] = Runner(client, self._runner_options(level)).start()
        self._not_before.pop(name, None)
        log.info("%s: playing its seats at level %s", name, level)

    def _retire(self, name: str) -> None:
        runner = self.runners.pop(name)
        runner.stop_event.set()  # its threads end on their own; nothing waits for them here
        log.info("%s: no longer played here", name)

    def _stop_all(self) -> None:
        runners = [*self.runners.values(), *([self.own] if self.own else [])]
        for runner in runners:
            runner.stop_event.set()
        for runner in runners:
            runner.stop(timeout=5)
        self.runners.clear()

    def _runner_options(self, level: str) -> RunnerOptions:
        o = self.options
        return RunnerOptions(
            level=level,
            delay=o.delay,
            poll_wait=o.poll_wait,
            discover_every=o.discover_every,
            seed=o.seed,
        )


# ---------------------------------------------------------------------- command line
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m clients.bots.host",
        description="Play every server-hosted computer player (and the host's own seats).",
    )
    parser.add_argument(
        "--server",
        default=os.environ.get("DEKABES_SERVER", "http://127.0.0.1:8000"),
        help="server base URL (default $DEKABES_SERVER or http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("DEKABES_TOKEN"),
        help="the host account's token (default $DEKABES_TOKEN)",
    )
    parser.add_argument("--token-file", help="read the token from this file")
    own = parser.add_mutually_exclusive_group()
    own.add_argument(
        "--level",
        choices=LEVELS,
        default=DEFAULT_LEVEL,
        help=f"level of the host account's own seats (default {DEFAULT_LEVEL})",
    )
    own.add_argument(
        "--hosted-only", action="store_true", help="do not play the host account's own seats"
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=DEFAULT_DELAY,
        help=f"seconds before each computer action (default {DEFAULT_DELAY}; 0 in tests)",
    )
    parser.add_argument(
        "--refresh-every",
        type=float,
        default=DEFAULT_REFRESH,
        metavar="S",
        help=f"look for new and removed hosted players every S seconds (default {DEFAULT_REFRESH:g})",
    )
    parser.add_argument(
        "--discover-every",
        type=float,
        default=3.0,
        metavar="S",
        help="each player looks for new tables every S seconds (default 3)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    args = parser.parse_args(argv)
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as handle:
            args.token = handle.read().strip()
    if not args.token:
        parser.error("a token is needed: --token, --token-file or DEKABES_TOKEN")
    if args.delay < 0 or args.refresh_every <= 0 or args.discover_every <= 0:
        parser.error(
            "--delay cannot be negative; --refresh-every and --discover-every must be positive"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    options = HostOptions(
        delay=args.delay,
        refresh_every=args.refresh_every,
        own_level=None if args.hosted_only else args.level,
        discover_every=args.discover_every,
    )
    host = Host(DekabesClient(args.server, args.token), options)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: host.stop_event.set())
    try:
        host.run()
    except ApiError as problem:
        print(
            f"clients.bots.host: the server refused us: {problem.code} {problem.message}",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
