"""``python -m engine replay|view|analyse|simulate|bench`` — the engine's command line.

Output is JSON on stdout (one line per replayed file); progress goes to stderr only.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.bots import LEVELS
from engine.errors import IllegalEventError
from engine.fold import Match
from engine.phases import MATCH_OVER
from engine.record import load_record

if TYPE_CHECKING:
    import argparse

SIMULATE_BOTS = "strong,greedy,strong,greedy"  # simulate's --bots by default


def fold_file(path: str) -> Match:
    """Fold a record file; raises IllegalEventError with ``index`` (0 for an empty file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as err:
        raise _at(IllegalEventError("bad_event", f"cannot read the record: {err}"), 0) from None
    events = load_record(text)
    if not events:
        raise _at(IllegalEventError("bad_event", "the record is empty"), 0)
    return Match.from_events(events)


def _at(err: IllegalEventError, index: int) -> IllegalEventError:
    err.index = index
    return err


def cmd_replay(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        try:
            line = fold_file(path).summary()
        except IllegalEventError as err:
            line = {"error": err.code, "at": err.index}
            status = 1
        print(json.dumps(line, ensure_ascii=False), flush=True)
    return status


def cmd_view(args: argparse.Namespace) -> int:
    try:
        match = fold_file(args.file)
    except IllegalEventError as err:
        print(json.dumps({"error": err.code, "at": err.index}))
        return 1
    print(json.dumps(match.seat_view(args.seat), ensure_ascii=False))
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from engine.analysis import analyse

    try:
        with open(args.file, encoding="utf-8") as handle:
            events = load_record(handle.read())
        if not events:
            raise _at(IllegalEventError("bad_event", "the record is empty"), 0)
        report = analyse(events, iterations=args.iterations, seed=args.seed)
    except (OSError, UnicodeDecodeError):
        print(json.dumps({"error": "bad_event", "at": 0}))
        return 1
    except IllegalEventError as err:
        print(json.dumps({"error": err.code, "at": err.index}))
        return 1
    print(json.dumps(report, ensure_ascii=False))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    return run_simulate(
        bots=args.bots,
        hands=args.hands,
        matches=args.matches,
        seed=args.seed,
        swap=args.swap,
        workers=args.workers,
        expert_iterations=args.expert_iterations,
    )


def run_simulate(
    *,
    bots: str = SIMULATE_BOTS,
    hands: int | None = None,
    matches: int | None = None,
    seed: int = 1,
    swap: bool = False,
    workers: int = 1,
    expert_iterations: int | None = None,
) -> int:
    """``simulate`` with its command line's values (``bots`` comma-separated)."""
    from engine.simulate import simulate

    try:
        report = simulate(
            [b.strip() for b in bots.split(",")],
            hands=hands,
            matches=matches,
            seed=seed,
            swap=swap,
            workers=workers,
            progress=True,
            expert_iterations=expert_iterations,
        )
    except ValueError as err:
        print(f"simulate: {err}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from engine.benchmarks import (
        decision_times,
        expert_worlds_per_second,
        simulate_hands_per_second,
    )

    figures = {
        # the bare core loop (engine.core.random_hand): no fold, no views, no bots
        "random_hands_per_second": round(random_hands_per_second(args.seconds)),
        # the path users run: simulate --bots random,random,random,random
        "simulate_random": simulate_hands_per_second(args.hands),
        "fold_1000_events_ms": fold_ms(1000),
        "strong_decision": decision_times("strong", args.decisions, seed=args.seed),
    }
    if args.expert_decisions:
        figures["expert_decision"] = decision_times("expert", args.expert_decisions, seed=args.seed)
        # the expert's search speed on a fixed number of worlds (no clock)
        figures["expert_worlds"] = expert_worlds_per_second(seed=args.seed)
    print(json.dumps(figures))
    return 0


def random_hands_per_second(seconds: float = 2.0) -> float:
    """Whole random hands (shuffle and deal included) played on the fast core."""
    from engine.core import random_hand

    rng = random.Random(1)
    hands = 0
    started = time.perf_counter()
    deadline = started + seconds
    while True:
        for _ in range(1000):
            random_hand(rng, hands % 8 == 0)
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - started)


def thousand_event_record(size: int = 1000, seed: int = 7) -> list[dict[str, Any]]:
    """A legal casual record of exactly ``size`` events: random play (``autoplay``), an
    undo now and then, a new match after each one ends."""
    from engine.autoplay import autoplay, bot_players

    rng = random.Random(seed)
    seats = {"1": "human", "2": "bot", "3": "bot", "4": "bot"}
    events: list[dict[str, Any]] = [{"type": "match_started", "seats": seats, "rated": False}]
    m = Match()
    m.apply(events[0])
    players = bot_players(["random"] * 4, [random.Random(rng.getrandbits(64)) for _ in range(4)])
    undo_now = [False]

    def interrupt(match: Match) -> bool:
        if len(events) >= size:
            return True
        undo_now[0] = match.can_undo() and rng.random() < 0.03
        return undo_now[0]

    while len(events) < size:
        if m.phase == MATCH_OVER:
            command: dict[str, Any] = {"type": "new_match", "seat": 1}
        else:
            autoplay(m, players, rng, on_event=events.append, stop=interrupt)
            if len(events) >= size or not undo_now[0]:
                continue
            command = {"type": "undo", "seat": 1}
        m.apply(command)
        events.append(command)
    return events


def fold_ms(size: int = 1000, repeats: int = 30) -> float:
    """Median milliseconds to fold a ``size``-event record from scratch."""
    events = thousand_event_record(size)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        Match.from_events(events)
        times.append(time.perf_counter() - started)
    times.sort()
    return round(times[len(times) // 2] * 1000, 3)


def build_parser() -> argparse.ArgumentParser:
    import argparse  # here, not at start-up: a plain simulate line needs no parser

    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    replay = sub.add_parser("replay", help="fold records and print their summaries")
    replay.add_argument("files", nargs="+", metavar="FILE")
    replay.set_defaults(run=cmd_replay)

    view = sub.add_parser("view", help="print one seat's view of a record's final state")
    view.add_argument("file", metavar="FILE")
    view.add_argument("--seat", type=int, choices=(1, 2, 3, 4), required=True)
    view.set_defaults(run=cmd_view)

    analyse = sub.add_parser(
        "analyse",
        help="what the expert would have played at every "
        "decision of a record, and what each choice cost",
    )
    analyse.add_argument("file", metavar="FILE")
    analyse.add_argument(
        "--iterations", type=int, default=60, help="worlds the expert searches per decision"
    )
    analyse.add_argument("--seed", type=int, default=1)
    analyse.set_defaults(run=cmd_analyse)

    sim = sub.add_parser("simulate", help="self-play between bot levels")
    count = sim.add_mutually_exclusive_group(required=True)
    count.add_argument("--hands", type=int)
    count.add_argument("--matches", type=int)
    sim.add_argument(
        "--bots",
        default=SIMULATE_BOTS,
        help=f"four levels for seats 1..4 ({', '.join(LEVELS)})",
    )
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument(
        "--swap",
        action="store_true",
        help="alternate the teams' seat pairs every match to cancel seat bias",
    )
    sim.add_argument("--workers", type=int, default=1)
    sim.add_argument(
        "--expert-iterations",
        type=int,
        default=None,
        metavar="N",
        help="the expert searches exactly N worlds per decision (no clock: "
        "reproducible); default: its time limit per decision",
    )
    sim.set_defaults(run=cmd_simulate)

    bench = sub.add_parser("bench", help="print speed figures")
    bench.add_argument(
        "--seconds", type=float, default=2.0, help="how long to run random self-play"
    )
    bench.add_argument(
        "--decisions", type=int, default=200, help="how many strong decisions to time"
    )
    bench.add_argument(
        "--hands", type=int, default=5000, help="hands of simulate with four random bots to time"
    )
    bench.add_argument(
        "--expert-decisions",
        type=int,
        default=100,
        help="how many expert decisions to time (0: skip)",
    )
    bench.add_argument("--seed", type=int, default=1)
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    plain = plain_simulate(sys.argv[1:] if argv is None else argv)
    if plain is not None:
        return run_simulate(**plain)
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


# simulate's options that take a value, read as argparse does (type=int: int(text))
_PLAIN_OPTIONS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--hands": ("hands", int),
    "--matches": ("matches", int),
    "--bots": ("bots", str),
    "--seed": ("seed", int),
    "--workers": ("workers", int),
    "--expert-iterations": ("expert_iterations", int),
}


def plain_simulate(argv: list[str]) -> dict[str, Any] | None:
    """``run_simulate``'s keywords for a ``simulate`` line written plainly: each option
    at most once, by its full name, ``--name value`` (``--swap`` alone), one of
    ``--hands``/``--matches``, every value read without error. Such a line means the
    same to argparse (a test checks it); importing argparse and building the parser
    was an eighth of a short simulate's time. None for any other line: argparse reads
    it (abbreviations, ``--name=value``, help) and reports its errors."""
    if not argv or argv[0] != "simulate":
        return None
    values: dict[str, Any] = {}
    words = iter(argv[1:])
    for word in words:
        if word == "--swap" and "swap" not in values:
            values["swap"] = True
            continue
        name, read = _PLAIN_OPTIONS.get(word, ("", str))
        text = next(words, None)
        # "-..." values are argparse's to read (negative numbers, an option instead)
        if not name or name in values or text is None or text.startswith("-"):
            return None
        try:
            values[name] = read(text)
        except ValueError:
            return None
    if ("hands" in values) == ("matches" in values):
        return None  # argparse requires exactly one of them
    return values
