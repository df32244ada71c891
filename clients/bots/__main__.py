"""``python -m clients.bots``: run the computer players of one account.

    python -m clients.bots --server http://127.0.0.1:8000 --token TOKEN \
        [--table CODE ...] [--seat N ...] [--level random|greedy|medium|strong|expert] [--delay 0.7]
        [--seek [--make-seeks] [--patience S]] [--accept-challenges] [--max-games N]

Without ``--table`` it serves every table that seats the account, now or later.
``--seek`` takes open seats that want bots, ``--accept-challenges`` accepts the challenges
the server let through the bot's published terms (``clients.bots.matchmaking``).
The token may also come from ``--token-file`` or the DEKABES_TOKEN variable (keeps
it out of the process list).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys

from clients.bots.matchmaking import MatchmakingOptions, start_matchmaking
from clients.bots.policy import DEFAULT_LEVEL
from clients.bots.runner import DEFAULT_DELAY, DEFAULT_POLL_WAIT, Runner, RunnerOptions
from clients.sdk import ApiError, DekabesClient
from engine.bots import LEVELS


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m clients.bots", description="Play the seats a bot account holds."
    )
    parser.add_argument(
        "--server",
        default=os.environ.get("DEKABES_SERVER", "http://127.0.0.1:8000"),
        help="server base URL (default $DEKABES_SERVER or http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("DEKABES_TOKEN"),
        help="the bot account's API token (default $DEKABES_TOKEN)",
    )
    parser.add_argument("--token-file", help="read the token from this file")
    parser.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="CODE",
        help="serve this table (repeatable); default: every table seating the account",
    )
    parser.add_argument(
        "--seat",
        action="extend",
        nargs="+",
        type=int,
        metavar="N",
        help="only these seat numbers (default: every seat the account holds)",
    )
    parser.add_argument(
        "--level",
        choices=LEVELS,
        default=DEFAULT_LEVEL,
        help=f"bot strength (default {DEFAULT_LEVEL})",
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=DEFAULT_DELAY,
        help=f"seconds before each action so people can follow (default {DEFAULT_DELAY}; 0 in tests)",
    )
    parser.add_argument(
        "--poll-wait",
        type=float,
        default=DEFAULT_POLL_WAIT,
        help="long-poll length in seconds (max 30)",
    )
    parser.add_argument(
        "--discover-every",
        type=float,
        default=3.0,
        metavar="S",
        help="without --table: look for new tables every S seconds (default 3)",
    )
    parser.add_argument(
        "--exit-when-over", action="store_true", help="exit once every served match is over"
    )
    parser.add_argument(
        "--seed", type=int, help="seed of the bots' random choices (reproducible runs)"
    )
    parser.add_argument(
        "--seek", action="store_true", help="take open seats that want bots (docs/bots.md)"
    )
    parser.add_argument(
        "--accept-challenges",
        action="store_true",
        help="accept the challenges the server let through the bot's published terms",
    )
    parser.add_argument(
        "--make-seeks",
        action="store_true",
        help="with --seek: nothing to take for --patience seconds, seek players itself",
    )
    parser.add_argument(
        "--patience",
        type=float,
        default=60.0,
        metavar="S",
        help="with --make-seeks: seconds with nothing to take before seeking (default 60)",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=1,
        metavar="N",
        help="with --seek/--accept-challenges: matches in play at once (default 1)",
    )
    parser.add_argument(
        "--rest-only",
        action="store_true",
        help="act and wait over REST only (default: over each table's WebSocket, "
        "falling back to REST while it is down)",
    )
    parser.add_argument(
        "--ladder",
        metavar="VERSION",
        help="join the bot ladder as VERSION and stay on it while running (docs/ladder.md)",
    )
    parser.add_argument(
        "--ladder-per-day", type=int, metavar="N", help="with --ladder: at most N matches a day"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log every request")
    parser.add_argument("-q", "--quiet", action="store_true", help="log warnings only")
    args = parser.parse_args(argv)
    if args.token_file:
        with open(args.token_file, encoding="utf-8") as handle:
            args.token = handle.read().strip()
    if not args.token:
        parser.error("a token is needed: --token, --token-file or DEKABES_TOKEN")
    if any(not 1 <= s <= 4 for s in args.seat or []):
        parser.error("seats are numbered 1 to 4")
    if args.make_seeks and not args.seek:
        parser.error("--make-seeks goes with --seek")
    if (args.seek or args.accept_challenges) and (args.table or args.max_games < 1):
        parser.error("--seek and --accept-challenges serve any table: no --table; --max-games >= 1")
    if args.delay < 0 or args.poll_wait <= 0 or args.discover_every <= 0:
        parser.error(
            "--delay cannot be negative; --poll-wait and --discover-every must be positive"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    if args.verbose:
        logging.getLogger("urllib3").setLevel(logging.DEBUG)
    options = RunnerOptions(
        level=args.level,
        delay=args.delay,
        tables=tuple(args.table),
        seats=frozenset(args.seat) if args.seat else None,
        exit_when_over=args.exit_when_over,
        poll_wait=args.poll_wait,
        discover_every=args.discover_every,
        seed=args.seed,
        sockets=not args.rest_only,
    )
    runner = Runner(DekabesClient(args.server, args.token), options)
    matchmaking = MatchmakingOptions(
        seek=args.seek,
        accept_challenges=args.accept_challenges,
        max_games=args.max_games,
        poll_wait=args.poll_wait,
        make_seeks=args.make_seeks,
        patience=args.patience,
    )
    start_matchmaking(runner.client, matchmaking, runner.stop_event)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: runner.stop_event.set())
    heartbeat = start_ladder(runner.client, args.ladder, args.ladder_per_day)
    try:
        runner.run()
    except ApiError as problem:
        print(
            f"clients.bots: the server refused us: {problem.code} {problem.message}",
            file=sys.stderr,
        )
        return 2
    finally:
        if heartbeat is not None:
            heartbeat.stop()
    return 0


def start_ladder(client: DekabesClient, version: str | None, per_day: int | None):
    """With ``--ladder``: the heartbeat that keeps the bot on the ladder (clients/bots/ladder.py)."""
    if version is None:
        return None
    from clients.bots.ladder import LadderHeartbeat

    return LadderHeartbeat(client, version, per_day).start()


if __name__ == "__main__":
    sys.exit(main())
