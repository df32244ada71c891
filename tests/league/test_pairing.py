"""The round draw: partner rotation, byes, house bots, Swiss pairs (pure, no database)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.league.pairing import Draw, PairsDraw, draw_individual, draw_pairs

ROOT = Path(__file__).resolve().parents[2]


def partner_pairs(table):
    return [(table[0], table[2]), (table[1], table[3])]


def opponent_pairs(table):
    return [(table[i], table[j]) for i, j in ((0, 1), (0, 3), (2, 1), (2, 3))]


def tally(tables, pairs_of):
    counts = Counter()
    for table in tables:
        for x, y in pairs_of(table):
            if x is not None and y is not None:
                counts[frozenset((x, y))] += 1
    return counts


def bot_partnered(table):
    """The humans of a table whose partner is a house bot."""
    return [
        x
        for i, j in ((0, 2), (2, 0), (1, 3), (3, 1))
        if (x := table[i]) is not None and table[j] is None
    ]


def play_season(players, rounds, seed, *, fill_with_bots=False, pass_byes=True):
    history, byes, draws = [], Counter(), []
    for n in range(rounds):
        draw = draw_individual(
            players,
            history,
            seed=f"{seed}/{n}",
            fill_with_bots=fill_with_bots,
            bye_counts=dict(byes) if pass_byes else None,
        )
        draws.append(draw)
        history.extend(draw.tables)
        byes.update(draw.byes)
    return history, byes, draws


# --- individual format ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_eight_players_seven_rounds_nobody_partners_anyone_twice(seed):
    history, byes, _ = play_season(list(range(1, 9)), 7, seed)
    partners = tally(history, partner_pairs)
    # a 1-factorisation of K8: each of the 28 pairs partnered exactly once
    assert set(partners) == {frozenset(p) for p in combinations(range(1, 9), 2)}
    assert set(partners.values()) == {1}
    assert not byes
    # opponents spread: 14 opponent meetings each over 7 others, nobody met 4+ times,
    # everybody met everybody
    opponents = tally(history, opponent_pairs)
    assert len(opponents) == 28
    assert max(opponents.values()) <= 3


@pytest.mark.parametrize("seed", ["a", "b"])
def test_twelve_players_eleven_rounds_by_local_search_never_repeat_a_partner(seed):
    # three tables: the seeded local search, not the exhaustive one
    history, _, _ = play_season([f"p{i:02}" for i in range(12)], 11, seed)
    partners = tally(history, partner_pairs)
    assert len(partners) == 66 and set(partners.values()) == {1}


def test_a_partner_repeat_is_avoided_even_at_the_cost_of_opponent_repeats():
    # 1&3 partnered before; 1,2,3,4 faced each other a lot as opponents
    history = [(1, 2, 3, 4)] + [(1, 3, 2, 5), (2, 4, 1, 6)] * 3
    draw = draw_individual([1, 2, 3, 4], history, seed=0, fill_with_bots=False)
    (table,) = draw.tables
    assert {frozenset(p) for p in partner_pairs(table)}.isdisjoint(tally(history, partner_pairs))


def test_the_same_seed_gives_the_same_draw_and_seeds_differ():
    players = list(range(12))
    history, _, _ = play_season(players, 3, "s")
    same = [draw_individual(players, history, seed=7, fill_with_bots=False) for _ in range(3)]
    assert same[0] == same[1] == same[2]
    assert (
        draw_individual(list(reversed(players)), history, seed=7, fill_with_bots=False) == same[0]
    )
    draws = {
        repr(draw_individual(players, history, seed=s, fill_with_bots=False)) for s in range(10)
    }
    assert len(draws) >= 5


DRAW_SCRIPT = """
import json, sys
from server.league.pairing import draw_individual, draw_pairs
names = ["ana", "bo", "cy", "dee", "eli", "fox", "gus", "hal", "ivy", "jo", "kai"]
history = []
for n in range(3):
    history += draw_individual(set(names), history, seed=n, fill_with_bots=False).tables
d = draw_individual(set(names), history, seed="x", fill_with_bots=True)
p = draw_pairs(set(names), [], set(), seed="x")
print(json.dumps([d.tables, d.byes, p.tables, p.byes]))
"""


def test_the_draw_does_not_depend_on_hash_randomisation():
    outputs = set()
    for hash_seed in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
        done = subprocess.run(
            [sys.executable, "-c", DRAW_SCRIPT],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    tables, byes, _, _ = json.loads(outputs.pop())
    assert len(tables) == 3 and byes == []


@pytest.mark.parametrize("count,rounds", [(9, 9), (10, 10), (11, 8), (13, 5)])
def test_byes_rotate_so_nobody_sits_out_twice_before_everybody_once(count, rounds):
    _, byes, draws = play_season(list(range(count)), rounds, "byes")
    so_far = Counter({p: 0 for p in range(count)})
    for draw in draws:
        assert len(draw.byes) == count % 4
        # the byes went to players with the fewest byes so far
        fewest_first = sorted(so_far.values())
        assert sorted(so_far[p] for p in draw.byes) == fewest_first[: len(draw.byes)]
        so_far.update(draw.byes)
        assert max(so_far.values()) - min(so_far.values()) <= 1
    if (count % 4) * rounds % count == 0:
        assert len(set(so_far.values())) == 1 and +so_far == byes


def test_without_bye_counts_the_players_with_most_tables_sit_out():
    _, byes, _ = play_season(list(range(9)), 9, "tables", pass_byes=False)
    assert set(byes.values()) == {1} and len(byes) == 9
    # explicit counts win over tables played
    draw = draw_individual(
        range(5), [(0, 1, 2, 3)], seed=1, fill_with_bots=False, bye_counts={0: 1, 1: 1, 2: 1, 3: 1}
    )
    assert draw.byes == [4]
    draw = draw_individual(range(5), [(0, 1, 2, 3)], seed=1, fill_with_bots=False)
    assert draw.byes[0] in {0, 1, 2, 3}


@pytest.mark.parametrize("count", [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15])
def test_house_bots_fill_the_seats_of_one_table_and_partner_each_other(count):
    draw = draw_individual(range(count), [], seed=3, fill_with_bots=True)
    assert draw.byes == []
    with_bots = [t for t in draw.tables if None in t]
    assert len(with_bots) == 1
    (table,) = with_bots
    assert table.count(None) == -count % 4
    assert len(bot_partnered(table)) == (-count % 4) % 2  # one human at most, if unavoidable


def test_the_bot_partner_rotates_among_humans():
    history, _, _ = play_season(list(range(7)), 7, "bots", fill_with_bots=True)
    bot_partner = Counter(p for t in history for p in bot_partnered(t))
    assert sorted(bot_partner.values()) == [1] * 7
    humans = tally(history, partner_pairs)
    assert max(humans.values()) == 1


def test_fewer_than_four_without_bots_all_sit_out():
    assert draw_individual([3, 1, 2], [], seed=0, fill_with_bots=False) == Draw([], [1, 2, 3])
    assert draw_individual([], [], seed=0, fill_with_bots=True) == Draw([], [])


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        draw_individual([1, 1, 2, 3], [], seed=0, fill_with_bots=False)
    with pytest.raises(ValueError):
        draw_individual([1, 2, 3, 4], [(1, 2, 3)], seed=0, fill_with_bots=False)
    with pytest.raises(ValueError):
        draw_individual([1, 2, None, 4], [], seed=0, fill_with_bots=False)


table_strategy = st.lists(st.one_of(st.none(), st.integers(0, 25)), min_size=4, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.lists(st.integers(0, 25), unique=True, max_size=18),
    history=st.lists(table_strategy.map(tuple), max_size=12),
    seed=st.integers(0, 2**32),
    bots=st.booleans(),
)
def test_every_present_player_is_seated_once_or_sits_out(players, history, seed, bots):
    draw = draw_individual(players, history, seed=seed, fill_with_bots=bots)
    seated = [p for t in draw.tables for p in t if p is not None]
    assert all(len(t) == 4 for t in draw.tables)
    assert sorted(seated + list(draw.byes)) == sorted(players)
    assert len(set(seated)) == len(seated)
    if bots:
        assert draw.byes == []
        assert sum(t.count(None) for t in draw.tables) == -len(players) % 4
    else:
        assert len(draw.byes) == len(players) % 4
        assert all(None not in t for t in draw.tables)


# --- pairs format --------------------------------------------------------------------


def rematch_weight(tables, played):
    met = Counter(frozenset(p) for p in played)
    return sum(met[frozenset(t)] for t in tables)


def fewest_rematches(pairs, played):
    """Brute force over every perfect matching of an even number of pairs."""
    met = Counter(frozenset(p) for p in played)

    def best(rest):
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        return min(
            met[frozenset((first, o))] + best(tuple(x for x in others if x != o)) for o in others
        )

    return best(tuple(pairs))


def test_swiss_pairs_neighbours_in_the_ranking():
    ranking = ["p4", "p2", "p6", "p1", "p3", "p5"]
    draw = draw_pairs(ranking, ranking, [], seed=0)
    assert draw == PairsDraw(tables=[("p4", "p2"), ("p6", "p1"), ("p3", "p5")], byes=[])


def test_swiss_avoids_a_rematch_by_backtracking():
    ranking = [1, 2, 3, 4, 5, 6]
    played = [
        frozenset({1, 2}),
        frozenset({3, 4}),
        frozenset({5, 6}),
        frozenset({1, 3}),
        frozenset({2, 4}),
    ]
    draw = draw_pairs(ranking, ranking, played, seed=0)
    assert rematch_weight(draw.tables, played) == 0
    assert draw.tables[0] == (1, 4)  # the leader meets the best opponent it has not met


def test_swiss_rematches_only_when_unavoidable_and_then_as_few_as_possible():
    ranking = [1, 2, 3, 4]
    everyone_met = [frozenset(p) for p in combinations(ranking, 2)]
    played = everyone_met + [frozenset({1, 2})]
    draw = draw_pairs(ranking, ranking, played, seed=0)
    # (1,2)(3,4) weighs 3; (1,3)(2,4) and (1,4)(2,3) weigh 2: the better-ranked first
    assert draw.tables == [(1, 3), (2, 4)]


@settings(max_examples=80, deadline=None)
@given(
    count=st.integers(0, 9),
    seed=st.integers(0, 1000),
    played=st.lists(
        st.tuples(st.integers(0, 8), st.integers(0, 8))
        .filter(lambda t: t[0] != t[1])
        .map(frozenset),
        max_size=25,
    ),
)
def test_swiss_rematch_weight_is_the_smallest_possible(count, seed, played):
    pairs = list(range(count))
    ranking = pairs[::-1]
    draw = draw_pairs(pairs, ranking, played, seed=seed)
    seated = [p for t in draw.tables for p in t]
    assert sorted(seated + draw.byes) == pairs
    assert len(draw.byes) == count % 2
    assert rematch_weight(draw.tables, played) == fewest_rematches(
        [p for p in ranking if p not in draw.byes], played
    )


def test_the_bye_goes_to_the_lowest_ranked_pair_with_fewest_byes():
    ranking = ["a", "b", "c", "d", "e"]
    assert draw_pairs(ranking, ranking, [], seed=0).byes == ["e"]
    assert draw_pairs(ranking, ranking, [], seed=0, bye_counts={"e": 1}).byes == ["d"]
    everyone_but_b = {"a": 1, "c": 1, "d": 1, "e": 1}
    assert draw_pairs(ranking, ranking, [], seed=0, bye_counts=everyone_but_b).byes == ["b"]


def test_a_pairs_season_rotates_byes_and_avoids_rematches():
    pairs = list(range(7))
    played, byes, ranking = [], Counter(), []
    for n in range(7):
        draw = draw_pairs(pairs, ranking, played, seed=n, bye_counts=byes)
        assert rematch_weight(draw.tables, played) == fewest_rematches(
            [p for p in (ranking or pairs) if p not in draw.byes], played
        )
        played += [frozenset(t) for t in draw.tables]
        byes.update(draw.byes)
        # an arbitrary but fixed result order for the next round's ranking
        ranking = sorted(pairs, key=lambda p: (-sum(p in t for t in played), p))
    assert sorted(byes.values()) == [1] * 7


def test_pairs_draw_is_deterministic_and_the_seed_orders_unranked_pairs():
    pairs = [f"pair{i}" for i in range(10)]
    first = draw_pairs(pairs, [], [], seed=1)
    assert draw_pairs(list(reversed(pairs)), [], [], seed=1) == first
    assert len({repr(draw_pairs(pairs, [], [], seed=s)) for s in range(10)}) >= 5
    # ranked pairs come first, in ranking order; pairs not present are ignored
    draw = draw_pairs(pairs, ["pair9", "ghost", "pair0"], [], seed=1)
    assert draw.tables[0] == ("pair9", "pair0")
