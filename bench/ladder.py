"""``python -m bench.ladder``: what one ladder round costs the server to draw and to rate,
at 10, 100 and 1,000 bots (docs/ladder.md has the figures).

- *draw*: ``server.ladder.scheduling.draw_round`` over n entrants (ratings spread as a
  ladder's are, a few bots per owner, recent partners) and the five house anchors — the
  scheduler's whole decision, as the tick runs it once the candidates are read;
- *rate*: ``server.ladder.rating.rate_pair`` for every pair the round drew (the
  openskill update of the league's model), as the pairs' ends run it, one by one.

Pure Python: no database (the reads and the tables the round opens cost what any
league table costs: bench/server_actions.py). Each figure is the median of ``--repeat``
rounds, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from server.ladder.rating import ANCHOR_MU, ANCHOR_SIGMA, pair_result, rate_pair
from server.ladder.scheduling import Candidate, draw_round
from server.league.ratings import Rating

SIZES = (10, 100, 1000)


def candidates(n: int, rng: random.Random) -> tuple[list[Candidate], list[Candidate]]:
    keys = range(1, n + 1)
    owners = {k: 1 + k // 3 for k in keys}  # three bots per owner
    partners = {k: frozenset(rng.sample(range(1, n + 1), min(n, 6))) for k in keys}
    entrants = [
        Candidate(
            key=k,
            mu=rng.gauss(25.0, 4.0),
            owner=owners[k],
            played_today=rng.randrange(6),
            recent_partners=partners[k],
        )
        for k in keys
    ]
    anchors = [Candidate(key=-i, mu=mu, anchor=True) for i, mu in enumerate(ANCHOR_MU.values(), 1)]
    return entrants, anchors


def one_round(n: int, rng: random.Random) -> tuple[float, float, int]:
    entrants, anchors = candidates(n, rng)
    started = time.perf_counter()
    foursomes = draw_round(entrants, anchors, rng)
    drawn = time.perf_counter() - started
    ratings = {c.key: Rating(mu=c.mu, sigma=rng.uniform(2.0, 8.0)) for c in entrants}
    ratings |= {c.key: Rating(mu=c.mu, sigma=ANCHOR_SIGMA) for c in anchors}
    fixed = {c.key for c in anchors}
    started = time.perf_counter()
    for f in foursomes:
        result = pair_result(rng.randint(-8, 8), rng.randint(-20, 20))
        ratings.update(rate_pair(ratings, f.team_a, f.team_b, result, fixed=fixed))
    rated = time.perf_counter() - started
    return drawn, rated, len(foursomes)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"{'bots':>6} {'pairs':>6} {'draw ms':>9} {'rate ms':>9} {'rate ms/pair':>13}")
    for n in SIZES:
        runs = [one_round(n, rng) for _ in range(args.repeat)]
        draw = statistics.median(r[0] for r in runs) * 1000
        rate = statistics.median(r[1] for r in runs) * 1000
        pairs = statistics.median(r[2] for r in runs)
        print(f"{n:>6} {pairs:>6.0f} {draw:>9.2f} {rate:>9.2f} {rate / max(pairs, 1):>13.3f}")


if __name__ == "__main__":
    main()
