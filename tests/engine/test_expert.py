"""The expert: fair (seat view only), reproducible on an iteration cap, its search and
its inference correct on small cases. Strength is measured by benchmarks, not here."""

from __future__ import annotations

import random

from engine.bots import LEVELS, expert
from engine.bots.inference import PlayHistory
from engine.bots.knowledge import read_view
from engine.bots.rollout import TIE, block_code
from engine.bots.sampler import WorldSampler
from engine.bots.solver import search
from engine.core import FIT_MASK, block_winner
from engine.tiles import DOUBLE_MASK, OTHER, TILE_ID, TILE_PIPS
from tests.engine.test_bots import decision_points, refold_with_other_hidden_hands

CAP = expert.Budget(iterations=10, seconds=None)
VALUES = (1.0, 1.0, 0.0, 0.0, 0.5)  # team A: win, win Dékabès, loss, loss Dékabès, tie


def play_views(seed: int, plies: int = 120):
    for m, events, seat in decision_points(seed, plies):
        if m.phase == "play":
            yield m, events, seat, m.seat_view(seat)


def test_on_an_iteration_cap_a_decision_is_reproducible():
    seen = 0
    for _m, _, _seat, view in play_views(4):
        know = read_view(view)
        first = expert.move_values(view, know, view["legal"], random.Random(9), CAP)
        again = expert.move_values(view, read_view(view), view["legal"], random.Random(9), CAP)
        assert first == again and first[1] == CAP.iterations
        assert expert.decide(view, random.Random(9), CAP) == expert.decide(
            view, random.Random(9), CAP
        )
        seen += 1
    assert seen > 5


def test_the_time_limit_ends_the_search():
    """A zero time limit stops after the first world, whatever the iteration cap."""
    for _m, _, _seat, view in play_views(6):
        _, worlds = expert.move_values(
            view,
            read_view(view),
            view["legal"],
            random.Random(1),
            expert.Budget(iterations=10**6, seconds=0.0),
        )
        assert worlds == 1


def test_the_analysis_of_a_position_never_reads_a_hidden_tile():
    """Same view with the unseen tiles spread otherwise: the same values, move by move."""
    checked = 0
    for seed in range(3):
        for m, events, seat, view in play_views(seed, 90):
            if WorldSampler(read_view(view)).count() == 1:
                continue
            rng = random.Random(seed)
            truth = [m.hand_of(s) for s in range(1, 5)]
            other = refold_with_other_hidden_hands(events, view, rng)
            while [other.hand_of(s) for s in range(1, 5)] == truth:
                other = refold_with_other_hidden_hands(events, view, rng)
            other_view = other.seat_view(seat)
            assert other_view == view
            assert expert.move_values(
                view, read_view(view), view["legal"], random.Random(2), CAP
            ) == expert.move_values(
                other_view, read_view(other_view), other_view["legal"], random.Random(2), CAP
            )
            checked += 1
    assert checked > 5


def test_the_perfect_information_player_is_not_an_engine_level():
    import pathlib

    assert "perfect" not in LEVELS
    engine_dir = pathlib.Path(expert.__file__).resolve().parents[1]
    for path in engine_dir.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "from tests" not in text and "import tests" not in text, path


def brute_force(hands, left, right, seat, passes) -> float:
    """Plain minimax over every (tile, end), no pruning, no dedupe."""
    hand = hands[seat]
    legal = hand & FIT_MASK[left * 7 + right]
    if not legal:
        if passes == 3:
            return VALUES[block_code(hands)]
        return brute_force(hands, left, right, (seat + 1) & 3, passes + 1)
    results = []
    for tid in range(28):
        if not legal >> tid & 1:
            continue
        for end in (0, 1):
            number = left if end == 0 else right
            if OTHER[tid][number] < 0:
                continue
            rest = hand & ~(1 << tid)
            if not rest:
                dek = (
                    OTHER[tid][left] >= 0 and OTHER[tid][right] >= 0 and not DOUBLE_MASK >> tid & 1
                )
                results.append(VALUES[(seat & 1) * 2 + dek])
                continue
            world = list(hands)
            world[seat] = rest
            new = (OTHER[tid][left], right) if end == 0 else (left, OTHER[tid][right])
            results.append(brute_force(world, *new, (seat + 1) & 3, 0))
    return max(results) if seat % 2 == 0 else min(results)


def test_the_exact_search_agrees_with_plain_minimax_on_small_endings():
    rng = random.Random(5)
    tiles = list(range(28))
    checked = 0
    while checked < 60:
        rng.shuffle(tiles)
        sizes = [rng.randint(1, 3) for _ in range(4)]
        hands, at = [], 0
        for size in sizes:
            mask = 0
            for tid in tiles[at : at + size]:
                mask |= 1 << tid
            hands.append(mask)
            at += size
        left, right = rng.randrange(7), rng.randrange(7)
        seat = rng.randrange(4)
        assert search(hands, left, right, seat, 0, VALUES) == brute_force(
            hands, left, right, seat, 0
        )
        checked += 1


def test_inference_prefers_worlds_where_a_plain_play_was_not_hiding_a_double():
    """Seat 2 laid 0-1 on ends 1/6 when 6-6 would have fitted: 6-6 less likely held."""
    turns = [
        {"seat": 1, "type": "play", "tile": "1-6", "end": None},
        {"seat": 2, "type": "play", "tile": "0-1", "end": "left"},
    ]
    history = PlayHistory.from_view({"turns": turns}, me=0, forced_opening=False)
    assert [(s, t) for s, t, _, _ in history.entries] == [(1, TILE_ID["0-1"])]
    double = 1 << TILE_ID["6-6"]
    plain = 1 << TILE_ID["0-2"]
    assert history.likelihood([0, plain, double, 0]) > history.likelihood([0, double, plain, 0])
    # My own plays say nothing: seat 1 is me.
    assert PlayHistory.from_view({"turns": turns[:1]}, me=0, forced_opening=False).entries == ()


def test_the_searchs_block_count_agrees_with_the_rules():
    """``rollout.block_code`` (the playouts' and the search's) is ``core.block_winner``'s
    team on the pip counts, ties included."""
    rng = random.Random(3)
    ties = 0
    for _ in range(3000):
        order = list(range(28))
        rng.shuffle(order)
        sizes = [rng.randrange(0, 5) for _ in range(4)]
        hands, start = [], 0
        for size in sizes:
            hands.append(sum(1 << t for t in order[start : start + size]))
            start += size
        pips = [sum(TILE_PIPS[t] for t in range(28) if hand >> t & 1) for hand in hands]
        team, _ = block_winner(pips)
        assert block_code(hands) == (TIE if team is None else team * 2)
        ties += team is None
    assert ties > 50


def _tile_space_playout(hands, left, right, seat, passes):
    """The playout policy written plainly on tile masks (the reference for the ranked
    one): the heaviest tile by ``WEIGHT``, the lowest tile id among equals; a tile that
    fits both (different) ends goes where it leaves the number the seat holds more of."""
    from engine.bots.rollout import WEIGHT
    from engine.tiles import NUM_MASK

    hands = list(hands)
    while True:
        legal = hands[seat] & FIT_MASK[left * 7 + right]
        if not legal:
            passes += 1
            if passes == 4:
                return block_code(hands)
            seat = (seat + 1) & 3
            continue
        passes = 0
        tid = max((t for t in range(28) if legal >> t & 1), key=lambda t: (WEIGHT[t], -t))
        hand = hands[seat] & ~(1 << tid)
        to_left, to_right = OTHER[tid][left], OTHER[tid][right]
        if not hand:
            dekabes = to_left >= 0 and to_right >= 0 and not DOUBLE_MASK >> tid & 1
            return (seat & 1) * 2 + (1 if dekabes else 0)
        hands[seat] = hand
        if to_left >= 0 and to_right >= 0 and left != right:
            more_right = (hand & NUM_MASK[to_right]).bit_count()
            if more_right > (hand & NUM_MASK[to_left]).bit_count():
                right = to_right
            else:
                left = to_left
        elif to_left >= 0:
            left = to_left
        else:
            right = to_right
        seat = (seat + 1) & 3


def test_the_ranked_playout_is_the_plain_policy():
    """Playouts run on ranked masks (rank 0 = the policy's first choice): the same
    result as the policy played on tile masks, and the caller's hands are unchanged."""
    from engine.bots.rollout import playout

    rng = random.Random(8)
    tiles = list(range(28))
    for _ in range(400):
        rng.shuffle(tiles)
        sizes = [rng.randint(0, 7) for _ in range(4)]
        if not any(sizes):
            continue
        hands, at = [], 0
        for size in sizes:
            hands.append(sum(1 << t for t in tiles[at : at + size]))
            at += size
        left, right, seat = rng.randrange(7), rng.randrange(7), rng.randrange(4)
        before = list(hands)
        assert playout(hands, left, right, seat, 0) == _tile_space_playout(
            hands, left, right, seat, 0
        )
        assert hands == before
