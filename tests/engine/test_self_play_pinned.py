"""Self-play results pinned by seed: the speed work on ``simulate`` (inlined shuffle,
inlined random draws, cheaper bookkeeping) must play exactly the same matches.

Every expected value below was produced by running the code before that work (main at
8562943); they must never change. A change here means seeded results documented in
docs/engine.md (and anyone's saved seeds) no longer reproduce.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from engine import dump_record
from engine.autoplay import autoplay, bot_players, new_bot_match
from engine.core import deal_masks
from engine.simulate import simulate

TOTALS_KEYS = ("hands", "matches", "hand_wins", "ties", "match_wins", "dekabes_by_team")
TOTALS_KEYS += ("points", "redeals")

# (simulate's arguments, its totals) by the pre-change code: never edit these
PINNED_TOTALS = [
    (
        {"bots": ["random"] * 4, "hands": 2000, "seed": 1},
        {
            "hands": 2000,
            "matches": 210,
            "hand_wins": {"A": 933, "B": 1033},
            "ties": 34,
            "match_wins": {"A": 97, "B": 113},
            "dekabes_by_team": {"A": 141, "B": 147},
            "points": {"A": 1097, "B": 1191},
            "redeals": 40,
        },
    ),
    (
        {"bots": ["random"] * 4, "hands": 777, "seed": 2, "swap": True},
        {
            "hands": 777,
            "matches": 82,
            "hand_wins": {"A": 394, "B": 374},
            "ties": 9,
            "match_wins": {"A": 49, "B": 33},
            "dekabes_by_team": {"A": 72, "B": 40},
            "points": {"A": 471, "B": 418},
            "redeals": 17,
        },
    ),
    (
        {"bots": ["random"] * 4, "matches": 40, "seed": 5, "swap": True},
        {
            "hands": 288,
            "matches": 40,
            "hand_wins": {"A": 139, "B": 147},
            "ties": 2,
            "match_wins": {"A": 19, "B": 21},
            "dekabes_by_team": {"A": 17, "B": 20},
            "points": {"A": 156, "B": 169},
            "redeals": 6,
        },
    ),
    (
        {"bots": ["random", "greedy", "random", "greedy"], "matches": 6, "seed": 3, "swap": True},
        {
            "hands": 38,
            "matches": 6,
            "hand_wins": {"A": 13, "B": 25},
            "ties": 0,
            "match_wins": {"A": 2, "B": 4},
            "dekabes_by_team": {"A": 4, "B": 4},
            "points": {"A": 17, "B": 29},
            "redeals": 0,
        },
    ),
]

# deal seed -> (events, sha256 of the JSON Lines record) of one whole random match whose
# seat rngs are Random(seed * 10 + i), by the pre-change code: never edit these
PINNED_RECORDS = {
    0: (392, "cbda31b1dee3e23896972ea7428541e959d10e266de11750609a4f5b92dcd17c"),
    1: (132, "c1fcf688b263b5fa618873162487ec4ad86477c0b5870048d05ea04fd75e915f"),
    2: (110, "d3af1dcc4fe7c38d19a552b010d24c38c2dd59c178bcc2cd6776340fc36eca4d"),
    3: (168, "b70afa10fbefdec56e3c5e7c4cf5e657152d28ce7a811ab70493749bee0f63e6"),
}


@pytest.mark.parametrize(("arguments", "expected"), PINNED_TOTALS)
def test_simulate_totals_are_the_pinned_ones(arguments, expected):
    report = simulate(**arguments)
    assert {key: report[key] for key in TOTALS_KEYS} == expected


@pytest.mark.parametrize("seed", sorted(PINNED_RECORDS))
def test_a_random_match_record_is_the_pinned_one(seed):
    rngs = [random.Random(seed * 10 + i) for i in range(4)]
    record: list = []
    autoplay(
        new_bot_match(),
        bot_players(["random"] * 4, rngs),
        random.Random(seed),
        on_event=record.append,
    )
    digest = hashlib.sha256(dump_record(record).encode()).hexdigest()
    assert (len(record), digest) == PINNED_RECORDS[seed]


def _shuffled_deal(rng: random.Random) -> list[int]:
    """The deal as ``random.Random.shuffle`` makes it: the plain path to compare with."""
    order = list(range(28))
    rng.shuffle(order)
    return [sum(1 << tid for tid in order[s * 7 : (s + 1) * 7]) for s in range(4)]


def test_the_deal_is_random_shuffles_deal_and_draws_the_same():
    for seed in range(3000):
        fast, plain = random.Random(seed), random.Random(seed)
        assert deal_masks(fast) == _shuffled_deal(plain), seed
        assert fast.getstate() == plain.getstate(), seed  # the same draws were used up


def test_the_deal_of_a_random_subclass_uses_its_own_shuffle():
    class Reversed(random.Random):
        def shuffle(self, x):
            x.reverse()

    hands = deal_masks(Reversed(1))
    assert hands[0] == sum(1 << tid for tid in range(21, 28))
    assert hands[3] == sum(1 << tid for tid in range(7))
