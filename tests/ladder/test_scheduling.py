"""The ladder's pure parts: a round's draw and a pair's rating."""

from __future__ import annotations

import random

import pytest

from server.ladder.rating import new_version, pair_result, rate_pair
from server.ladder.scheduling import Candidate, draw_round
from server.league.ratings import SIGMA, Rating


def test_close_ratings_meet_and_no_entrant_plays_twice():
    entrants = [
        Candidate(key=k, mu=mu, owner=k) for k, mu in enumerate((10, 11, 12, 13, 30, 31, 32, 33), 1)
    ]
    foursomes = draw_round(entrants, [], random.Random(1))
    groups = sorted(sorted(f.keys) for f in foursomes)
    assert groups == [[1, 2, 3, 4], [5, 6, 7, 8]]
    for f in foursomes:  # the closest split: summed ratings 10+13 against 11+12
        sums = sorted(sum(entrants[k - 1].mu for k in team) for team in (f.team_a, f.team_b))
        assert sums[1] - sums[0] <= 1


def test_partners_rotate():
    partners = {1: frozenset({2}), 2: frozenset({1})}
    entrants = [
        Candidate(key=k, mu=25.0, owner=k, recent_partners=partners.get(k, frozenset()))
        for k in (1, 2, 3, 4)
    ]
    (f,) = draw_round(entrants, [], random.Random(3))
    assert {1, 2} not in ({*f.team_a}, {*f.team_b})


def test_owners_never_meet_while_anchors_can_fill_and_anchors_repeat():
    rng = random.Random(5)
    entrants = [Candidate(key=k, mu=rng.gauss(25, 3), owner=1 + k % 3) for k in range(1, 31)]
    anchors = [
        Candidate(key=-i, mu=mu, anchor=True) for i, mu in enumerate((18, 19, 23, 26, 28), 1)
    ]
    foursomes = draw_round(entrants, anchors, rng)
    seen: list[int] = []
    owners = {c.key: c.owner for c in entrants}
    for f in foursomes:
        mine = [owners[k] for k in f.keys if k > 0]
        assert len(mine) == len(set(mine)) and not f.shared_owner
        seen += [k for k in f.keys if k > 0]
    assert len(seen) == len(set(seen)) == 30  # everyone drawn once (three owners: anchors fill)
    # an anchor may sit at several tables of a round (the host plays all its seats)
    assert any(sum(1 for f in foursomes if a.key in f.keys) > 1 for a in anchors)


def test_one_owners_bots_meet_when_they_are_the_only_entrants():
    entrants = [Candidate(key=k, mu=25.0, owner=7) for k in (1, 2)]
    anchors = [Candidate(key=-1, mu=25.0, anchor=True), Candidate(key=-2, mu=24.0, anchor=True)]
    (f,) = draw_round(entrants, anchors, random.Random(1))
    assert f.shared_owner
    assert {1, 2} not in ({*f.team_a}, {*f.team_b})  # opponents, not partners
    # with a third owner's bot in the round, they sit out instead of meeting
    other = Candidate(key=3, mu=25.0, owner=8)
    assert not any(
        f.shared_owner for f in draw_round([*entrants, other], anchors, random.Random(1))
    )


def test_rating_a_pair():
    r = {k: Rating(mu=25.0, sigma=8.0) for k in "abcd"}
    moved = rate_pair(r, ("a", "b"), ("c", "d"), "A", fixed={"b"})
    assert set(moved) == {"a", "c", "d"}  # the anchor never moves
    assert moved["a"].mu > 25 > moved["c"].mu
    tie = rate_pair(r, ("a", "b"), ("c", "d"), "tie")
    assert tie["a"].mu == pytest.approx(25) and tie["a"].sigma < 8
    # a substituted bot's team loses whatever the score; its partner stays
    out = rate_pair(r, ("a", "b"), ("c", "d"), "A", substituted={"a"})
    assert set(out) == {"a", "c", "d"} and out["a"].mu < 25 < out["c"].mu
    assert rate_pair(r, ("a", "b"), ("c", "d"), "A", substituted={"a", "c"}) == {}
    assert pair_result(2, -5) == "A" and pair_result(0, -5) == "B" and pair_result(0, 0) == "tie"


def test_a_new_version_keeps_mu_and_widens_sigma():
    old = Rating(mu=31.0, sigma=2.0)
    new = new_version(old)
    assert new.mu == 31.0 and 2.0 < new.sigma <= SIGMA
    assert new_version(Rating(mu=20.0, sigma=SIGMA)).sigma == SIGMA
