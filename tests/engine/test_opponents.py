"""The expert's opponent models: a seat that plays greedily is read as greedy, one that
does not stays on the general model; worlds that contradict a greedy seat's plays get
(next to) no weight; the search plays a greedy seat's greedy move."""

from __future__ import annotations

import random
from typing import Any

from engine.autoplay import autoplay
from engine.bots import decider, expert
from engine.bots.knowledge import read_view
from engine.bots.opponents import (
    ModelHistory,
    greedy_priors,
    greedy_tile,
    plan,
)
from engine.bots.rollout import ranked_greedy_bit, ranked_playout_models, to_ranks
from engine.bots.sampler import WorldSampler
from engine.bots.solver import search
from engine.core import FIT_MASK
from engine.simulate import new_bot_match
from engine.tiles import OTHER, TILE_ID, TILE_PIPS

VALUES = (1.0, 1.0, 0.0, 0.0, 0.5)


def _views(levels: list[str], seed: int, hands: int = 3) -> list[dict[str, Any]]:
    """Every non-forced play view of seat 1 in the first ``hands`` hands of a match."""
    views: list[dict[str, Any]] = []
    rng = random.Random(seed)
    rngs = [random.Random(rng.getrandbits(32)) for _ in range(4)]
    chooses = [decider(level) for level in levels]

    def player(index: int) -> Any:
        def play(view: Any) -> dict[str, Any]:
            if index == 0 and view["phase"] == "play" and len(view["legal"]) > 1:
                views.append(dict(view))
            return chooses[index](view, rngs[index])

        return play

    m = new_bot_match()
    autoplay(m, [player(i) for i in range(4)], random.Random(seed + 1), hands=hands)
    return views


def test_greedy_tile_is_the_greedy_levels_choice():
    rng = random.Random(2)
    for _ in range(500):
        options = rng.getrandbits(28)
        if not options:
            continue
        ids = [t for t in range(28) if options >> t & 1]
        expected = max(ids, key=lambda t: (TILE_PIPS[t], -t))  # first heaviest, ascending
        assert greedy_tile(options) == expected
        ranked = to_ranks([options])[0]
        assert to_ranks([1 << expected])[0] == ranked_greedy_bit(ranked)


def test_the_previous_hand_makes_greedy_seats_greedy_and_others_general():
    """Seats 2 and 4 play greedy, seat 3 random: from hand 2 on, seat 1's priors say so
    (a random seat may happen to play the heaviest tiles in a hand: on average)."""
    partner: list[float] = []
    greedy: list[float] = []
    for seed in range(4):
        for view in _views(["random", "greedy", "random", "greedy"], seed, 4):
            if view["hand_no"] > 1:
                priors = greedy_priors(view)
                assert priors[1] >= 0.5 and priors[3] >= 0.5  # greedy plays only raise it
                greedy += [priors[1], priors[3]]
                partner.append(priors[2])
            else:
                assert greedy_priors(view) == [0.5] * 4
    assert len(partner) > 10
    assert sum(partner) / len(partner) < 0.3
    assert sum(greedy) / len(greedy) > 0.9


def test_the_posterior_of_this_hand_follows_the_plays():
    """First hand (no previous hand): seats that played greedily end up greedy, the
    random partner does not, on average over the decisions with some evidence."""
    greedy_seats: list[float] = []
    partner: list[float] = []
    for seed in range(6):
        for view in _views(["random", "greedy", "random", "greedy"], seed, 1):
            know = read_view(view)
            history = ModelHistory.from_view(view, know.me, know.first_hand)
            if len([e for e in history.entries if e[0] == 2]) < 2:
                continue
            p = plan(know, history, random.Random(0))
            greedy_seats += [p.posteriors[1], p.posteriors[3]]
            partner.append(p.posteriors[2])
            assert p.posteriors[0] == 0.0  # me
    assert len(partner) >= 5
    assert sum(greedy_seats) / len(greedy_seats) > 0.7
    assert sum(partner) / len(partner) < 0.3


def test_sampled_worlds_agree_with_the_greedy_seats_plays():
    """Every world the plan samples: each play of a seat searched as greedy was greedy's
    choice from what that seat held then."""
    checked = 0
    for view in _views(["random", "greedy", "random", "greedy"], 7, 2):
        know = read_view(view)
        history = ModelHistory.from_view(view, know.me, know.first_hand)
        p = plan(know, history, random.Random(1))
        if not p.greedy:
            continue
        rng = random.Random(3)
        for _ in range(20):
            hands, _ = p.world(rng)
            for seat, tid, fit, played_since, _code in history.entries:
                if p.greedy >> seat & 1:
                    held = hands[seat] | played_since
                    options = held if fit is None else held & fit
                    assert greedy_tile(options) == tid
            checked += 1
    assert checked > 50


def test_a_greedy_seats_play_rules_out_the_heavier_tiles_that_fitted():
    """Seat 2 laid 0-1 on ends 1/6: a greedy seat 2 held no heavier tile that fitted
    (6-6 fitted the 6): the sampler never deals it one (``greedy_evidence``)."""
    turns = [
        {"seat": 1, "type": "play", "tile": "1-6", "end": None},
        {"seat": 2, "type": "play", "tile": "0-1", "end": "left"},
    ]
    view = {"turns": turns, "last_hand": None}
    history = ModelHistory.from_view(view, me=0, forced_opening=False)
    heavy, light = 1 << TILE_ID["6-6"], 1 << TILE_ID["0-2"]
    excluded, misses = history.greedy_evidence()
    assert excluded[1] & heavy and not excluded[1] & light and misses == [0, 0, 0, 0]
    # Laying a tile that fitted both ends on the right: not greedy, whatever it held.
    turns = [
        {"seat": 1, "type": "play", "tile": "1-1", "end": None},
        {"seat": 2, "type": "play", "tile": "1-2", "end": "right"},
    ]
    history = ModelHistory.from_view({"turns": turns}, me=0, forced_opening=False)
    assert history.greedy_evidence()[1][1] == 1


def test_a_greedy_seat_plays_its_greedy_move_in_the_search():
    """With seat 2 (index 1) modelled greedy, the search's value is that of the position
    after greedy's move, searched the same way."""
    rng = random.Random(11)
    tiles = list(range(28))
    checked = 0
    while checked < 80:
        rng.shuffle(tiles)
        hands, at = [], 0
        for _ in range(4):
            size = rng.randint(1, 3)
            hands.append(sum(1 << t for t in tiles[at : at + size]))
            at += size
        left, right = rng.randrange(7), rng.randrange(7)
        legal = hands[1] & FIT_MASK[left * 7 + right]
        if not legal or not hands[1] & ~legal:
            continue
        tid = greedy_tile(legal)
        world = list(hands)
        world[1] &= ~(1 << tid)
        new_left, new_right = left, right
        if OTHER[tid][left] >= 0:
            new_left = OTHER[tid][left]
        else:
            new_right = OTHER[tid][right]
        expected = search(world, new_left, new_right, 2, 0, VALUES, greedy=2)
        assert search(hands, left, right, 1, 0, VALUES, greedy=2) == expected
        checked += 1


def test_a_playout_without_greedy_seats_is_the_plain_playout():
    from engine.bots.rollout import ranked_playout

    rng = random.Random(5)
    for _ in range(200):
        tiles = list(range(28))
        rng.shuffle(tiles)
        hands = [sum(1 << t for t in tiles[7 * i : 7 * i + 6]) for i in range(4)]
        a = ranked_playout(to_ranks(hands), 3, 5, 0, 0)
        assert ranked_playout_models(to_ranks(hands), 3, 5, 0, 0, 0) == a


def test_with_models_a_decision_is_still_reproducible_and_fair():
    cap = expert.Budget(iterations=8, seconds=None)
    for view in _views(["expert", "greedy", "expert", "greedy"], 3, 2)[:6]:
        know = read_view(view)
        first = expert.move_values(view, know, view["legal"], random.Random(4), cap)
        assert first == expert.move_values(view, know, view["legal"], random.Random(4), cap)
        assert WorldSampler(know).count() >= 1
