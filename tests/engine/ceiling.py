"""Measure the ceiling: the perfect-information player against a bot level.

    .venv/bin/python -m tests.engine.ceiling --hands 2000 --against greedy --swap --workers 2

Prints the same JSON report as ``python -m engine simulate`` (team A = the perfect
player). Long: it is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import json

from engine.simulate import simulate
from tests.engine import perfect_player


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--swap", action="store_true")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    report = simulate(
        ["perfect", args.against, "perfect", args.against],
        hands=args.hands,
        seed=args.seed,
        swap=args.swap,
        workers=args.workers,
        progress=True,
        players=perfect_player.players,
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
