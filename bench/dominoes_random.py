"""Random self-play with the PyPI ``dominoes`` package, the way its docs show it.

The yardstick for ``python -m engine simulate --bots random,random,random,random``:
each hand is ``Game.new()`` (shuffle and deal), then ``players.random`` orders the valid
moves and the first is made, until the game has a result.

    .venv/bin/pip install -r bench/requirements.txt
    .venv/bin/python bench/dominoes_random.py --hands 20000
"""

import argparse
import json
import random
import time

import dominoes


def play(hands: int) -> None:
    for _ in range(hands):
        game = dominoes.Game.new()
        while game.result is None:
            dominoes.players.random(game)
            game.make_move(*game.valid_moves[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    random.seed(args.seed)
    started = time.perf_counter()
    play(args.hands)
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "hands": args.hands,
                "seconds": round(seconds, 3),
                "hands_per_second": round(args.hands / seconds),
            }
        )
    )


if __name__ == "__main__":
    main()
