"""The strong bot's world sampler: every sampled world agrees with what the seat knows."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Match
from engine.autoplay import autoplay, bot_players, new_bot_match
from engine.bots.knowledge import Knowledge, read_view, tiles_mask, tiles_with_numbers
from engine.bots.sampler import InconsistentKnowledge, WorldSampler
from engine.core import EMPTY
from engine.tiles import ALL_TILES_MASK, DOUBLE_SIX, NUM_MASK, mask_ids

BOTS = {"1": "bot", "2": "bot", "3": "bot", "4": "bot"}


def play_until(seed: int, plies: int, stop=lambda m: False) -> Match:
    """A match played by random bots for ``plies`` events or until ``stop(m)``."""
    rng = random.Random(seed)
    events = []
    players = bot_players(["random"] * 4, [rng] * 4)
    m = new_bot_match()
    autoplay(
        m, players, rng, on_event=events.append, stop=lambda m: len(events) >= plies or stop(m)
    )
    return m


def check_world(know: Knowledge, hands: list[int]) -> None:
    played = ALL_TILES_MASK & ~know.hand & ~know.unknown
    assert hands[know.me] == know.hand
    union = played
    for seat in range(4):
        assert hands[seat] & union == 0, "a tile was dealt twice"
        union |= hands[seat]
        assert hands[seat].bit_count() == know.counts[seat]
        assert hands[seat] & tiles_with_numbers(know.voids[seat]) == 0, "contradicts a pass"
    assert union == ALL_TILES_MASK, "the 28 tiles are not all accounted for"


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), plies=st.integers(0, 60), seat=st.integers(1, 4))
def test_sampled_worlds_respect_counts_passes_and_conserve_tiles(seed, plies, seat):
    m = play_until(seed, plies)
    if m.phase not in ("play", "choose_opener", "accept"):
        return
    know = read_view(m.seat_view(seat))
    sampler = WorldSampler(know)
    rng = random.Random(seed)
    for _ in range(30):
        check_world(know, sampler.sample(rng))


def test_the_true_deal_is_always_among_the_consistent_worlds():
    """The real hidden hands satisfy the sampler's constraints, so the count is >= 1."""
    for seed in range(40):
        m = play_until(seed, 25 + seed)
        if m.phase != "play":
            continue
        for seat in range(1, 5):
            know = read_view(m.seat_view(seat))
            truth = [tiles_mask(m.hand_of(s)) for s in range(1, 5)]
            check_world(know, truth)
            assert WorldSampler(know).count() >= 1


def test_a_pass_rules_numbers_out_for_good():
    # seat 2 passed on 5s and 6s: no sampled world gives it a 5 or a 6
    know = Knowledge(
        me=0,
        hand=tiles_mask(["0-0", "0-1", "1-1", "1-2", "2-2", "2-3", "3-3"]),
        unknown=0,
        counts=[7, 7, 7, 7],
        voids=[0, 0b1100000, 0, 0],
        left=5,
        right=6,
        to_act=0,
        passes=0,
        must_open_66=False,
        opener=None,
        scores=(0, 0),
        base=1,
        first_hand=False,
    )
    know.unknown = ALL_TILES_MASK & ~know.hand
    sampler = WorldSampler(know)
    rng = random.Random(3)
    fives_sixes = NUM_MASK[5] | NUM_MASK[6]
    for _ in range(200):
        hands = sampler.sample(rng)
        assert hands[1] & fives_sixes == 0
        check_world(know, hands)


def test_first_hand_before_the_opening_gives_6_6_to_the_seat_to_act():
    m = play_until(7, 50, stop=lambda m: m.phase == "play")  # accepted, nobody played yet
    assert m.phase == "play" and m.seat_view(1)["ends"] is None
    opener = m.to_act
    other = next(s for s in range(1, 5) if s != opener)
    know = read_view(m.seat_view(other))
    assert know.must_open_66
    sampler = WorldSampler(know)
    rng = random.Random(1)
    for _ in range(50):
        assert sampler.sample(rng)[opener - 1] >> DOUBLE_SIX & 1


def test_impossible_constraints_are_reported():
    hand = tiles_mask(["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"])
    # every other seat passed on 1..6: nobody can hold the remaining tiles
    know = Knowledge(
        me=0,
        hand=hand,
        unknown=ALL_TILES_MASK & ~hand,
        counts=[7, 7, 7, 7],
        voids=[0, 0b1111110, 0b1111110, 0b1111110],
        left=EMPTY,
        right=EMPTY,
        to_act=0,
        passes=0,
        must_open_66=False,
        opener=None,
        scores=(0, 0),
        base=1,
        first_hand=False,
    )
    with pytest.raises(InconsistentKnowledge):
        WorldSampler(know)


def test_sampling_is_uniform_over_consistent_deals():
    """Six unseen tiles, counts 2/2/2, seat 2 lacks 6: compare with exact enumeration."""
    hand = ALL_TILES_MASK & ~tiles_mask(["0-6", "1-6", "2-2", "3-3", "4-4", "5-5"])
    unknown = ALL_TILES_MASK & ~hand
    know = Knowledge(
        me=0,
        hand=hand,
        unknown=unknown,
        counts=[22, 2, 2, 2],
        voids=[0, 1 << 6, 0, 0],
        left=EMPTY,
        right=EMPTY,
        to_act=0,
        passes=0,
        must_open_66=False,
        opener=None,
        scores=(0, 0),
        base=1,
        first_hand=False,
    )
    tiles = mask_ids(unknown)
    deals = []
    for a in itertools.combinations(tiles, 2):
        rest = [t for t in tiles if t not in a]
        for b in itertools.combinations(rest, 2):
            c = tuple(t for t in rest if t not in b)
            hands = [hand, sum(1 << t for t in a), sum(1 << t for t in b), sum(1 << t for t in c)]
            if hands[1] & NUM_MASK[6] == 0:
                deals.append(tuple(hands))
    sampler = WorldSampler(know)
    assert sampler.count() == len(deals)
    rng = random.Random(11)
    draws = 6000
    seen = Counter(tuple(sampler.sample(rng)) for _ in range(draws))
    assert set(seen) <= set(deals)
    expected = draws / len(deals)
    assert len(seen) == len(deals)
    # each of the consistent deals within a generous band around its expected count
    assert all(0.5 * expected < n < 1.5 * expected for n in seen.values())


def test_sampling_is_deterministic_for_a_seeded_rng():
    m = play_until(5, 30)
    know = read_view(m.seat_view(m.to_act or 1))
    a = [WorldSampler(know).sample(random.Random(9)) for _ in range(3)]
    b = [WorldSampler(know).sample(random.Random(9)) for _ in range(3)]
    assert a == b
