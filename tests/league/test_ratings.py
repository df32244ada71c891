"""Club ratings: openskill Plackett-Luce, teams of two (pure, no database)."""

from __future__ import annotations

import json
import random
from itertools import pairwise

import pytest

from server.league.ratings import Rating, initial_rating, rate_match


def random_matches(count: int, players: list, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    matches = []
    for _ in range(count):
        a1, a2, b1, b2 = rng.sample(players, 4)
        matches.append(((a1, a2), (b1, b2), rng.choice("AB")))
    return matches


def from_scratch(matches) -> dict:
    ratings: dict = {}
    for team_a, team_b, winner in matches:
        ratings.update(rate_match(ratings, team_a, team_b, winner))
    return ratings


def test_a_new_player_starts_at_the_model_prior():
    start = initial_rating()
    assert start == Rating(mu=25.0, sigma=25.0 / 3.0)
    assert start.ordinal == pytest.approx(0.0, abs=1e-12)  # mu - 3 sigma
    assert Rating(mu=30.0, sigma=2.0).ordinal == pytest.approx(24.0)


def test_winners_go_up_losers_go_down_and_only_the_four_players_change():
    ratings = {"x": Rating(27.0, 6.0), "bystander": Rating(40.0, 1.0)}
    new = rate_match(ratings, ("x", "y"), ("z", "w"), "B")
    assert set(new) == {"x", "y", "z", "w"}
    assert new["z"].mu > 25.0 and new["w"].mu > 25.0
    assert new["x"].mu < 27.0 and new["y"].mu < 25.0
    assert all(r.sigma < 25.0 / 3.0 for k, r in new.items() if k != "x")
    assert ratings == {"x": Rating(27.0, 6.0), "bystander": Rating(40.0, 1.0)}  # untouched


def test_the_winner_letter_picks_the_team():
    ratings = {}
    a_wins = rate_match(ratings, (1, 2), (3, 4), "A")
    b_wins = rate_match(ratings, (3, 4), (1, 2), "B")
    assert a_wins == b_wins


def test_incremental_ratings_stored_and_reloaded_equal_a_recomputation_exactly():
    players = [f"player{i}" for i in range(10)]
    matches = random_matches(300, players, seed=5)
    # incremental: as the server does it, one finished match at a time, the ratings
    # round-tripping through storage (JSON floats) between matches
    stored = "{}"
    history = []
    for team_a, team_b, winner in matches:
        ratings = {k: Rating(**v) for k, v in json.loads(stored).items()}
        ratings.update(rate_match(ratings, team_a, team_b, winner))
        stored = json.dumps({k: vars(r) for k, r in ratings.items()})
        history.append(dict(ratings))
    final = {k: Rating(**v) for k, v in json.loads(stored).items()}
    assert final == from_scratch(matches)  # exactly: == on floats, no tolerance
    for n in (1, 17, 150):
        assert history[n - 1] == from_scratch(matches[:n])


def test_the_order_of_matches_matters_so_rebuilds_must_follow_finish_order():
    matches = random_matches(40, list(range(6)), seed=9)
    assert from_scratch(matches) != from_scratch(list(reversed(matches)))


def test_a_player_who_keeps_beating_stronger_players_rises_above_them():
    strong = {f"s{i}": Rating(mu=34.0, sigma=3.0) for i in range(4)}
    ratings = dict(strong, partner=Rating(mu=25.0, sigma=3.0))
    rng = random.Random(1)
    ordinals = [initial_rating().ordinal]
    overtaken_at = None
    for n in range(60):
        opponents = tuple(rng.sample(sorted(strong), 2))
        ratings.update(rate_match(ratings, ("rookie", "partner"), opponents, "A"))
        ordinals.append(ratings["rookie"].ordinal)
        best_strong = max(ratings[s].ordinal for s in strong)
        if overtaken_at is None and ordinals[-1] > best_strong:
            overtaken_at = n
    assert all(b > a for a, b in pairwise(ordinals))  # rises after every win
    assert overtaken_at is not None and overtaken_at < 40
    assert all(ratings[s].ordinal < 34.0 - 3 * 3.0 for s in strong)  # they lost ground


def test_bad_matches_are_refused():
    with pytest.raises(ValueError):
        rate_match({}, (1, 2), (3, 4), "draw")
    with pytest.raises(ValueError):
        rate_match({}, (1, 2), (2, 4), "A")
    with pytest.raises(ValueError):
        rate_match({}, (1,), (3, 4), "A")
