"""The stored standings updated one finished match at a time (``update_standings``, the
match-ending action's path) equal a full ``rebuild_standings`` after every match: rows,
tallies and positions, with many ties on levels 1-3 (head-to-head and id tie-breaks),
byes, house bots that only fill seats, entrants listed for the first time, both formats."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from server.accounts.models import User
from server.league import projections
from server.league.models import (
    CheckIn,
    Club,
    LeagueMatch,
    LeagueMatchSeat,
    Pair,
    Round,
    Season,
    StandingRow,
)
from server.tables.models import Table

pytestmark = [pytest.mark.backend, pytest.mark.django_db]

FIELDS = ("position", "player_id", "pair_id", *projections.TALLIED)


def stored(season) -> list[tuple]:
    return list(StandingRow.objects.filter(season=season).order_by("position").values_list(*FIELDS))


def world(fmt: str, players: int, seed: int):
    rng = random.Random(seed)
    users = [
        User.objects.create_user(username=f"su{seed}-{i}", password="x") for i in range(players)
    ]
    club = Club.objects.create(
        slug=f"su{seed}", name="Su", visibility="public", created_by=users[0]
    )
    season = Season.objects.create(club=club, name="S", format=fmt, seed=seed)
    return rng, users, club, season


def finish(rng, club, season, round_, seats, pairs=(None, None), fillers=()) -> LeagueMatch:
    """A finished match with small random counters (many ties), not yet projected."""
    table = Table.objects.create(
        code=f"T{rng.randrange(10**9)}", owner=seats[1], rated=True, secret_seed="0"
    )
    winner = rng.choice("AB")
    won = {"A": rng.randint(0, 2), "B": rng.randint(0, 2)}
    won[winner] = rng.randint(2, 3)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(minutes=rng.randrange(10**6))
    match = LeagueMatch.objects.create(
        table=table, club=club, season=season, round=round_, pair_a=pairs[0], pair_b=pairs[1],
        rated=True, started_at=now, status="finished", finished_at=now, end_seq=9,
        winner=winner, hands_won_a=won["A"], hands_won_b=won["B"], hands_tied=rng.randint(0, 1),
        points_a=won["A"] + rng.randint(0, 1), points_b=won["B"] + rng.randint(0, 1),
        dekabes_a=rng.randint(0, 1), dekabes_b=rng.randint(0, 1),
    )  # fmt: skip
    LeagueMatchSeat.objects.bulk_create(
        [
            LeagueMatchSeat(
                match=match,
                number=n,
                player=p,
                team="A" if n in (1, 3) else "B",
                filler=n in fillers,
            )  # fmt: skip
            for n, p in seats.items()
        ]
    )
    return match


def check_step(season) -> None:
    incremental = stored(season)
    projections.rebuild_standings(season)
    assert incremental == stored(season)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_individual_incremental_equals_rebuild_after_every_match(seed):
    rng, users, club, season = world("individual", 14, seed)
    bots = users[-2:]  # only ever fill seats, until the last rounds
    for number in range(1, 9):
        round_ = Round.objects.create(season=season, number=number, status="started")
        present = users[:-2]
        rng.shuffle(present)
        for p in present[:2]:  # byes, written at the round start with a full rebuild
            CheckIn.objects.create(round=round_, player=p, bye=True)
        projections.rebuild_standings(season)
        rest = present[2:]
        for t in range(3):
            four = rest[4 * t : 4 * t + 4]
            fillers: tuple = ()
            if t == 2:  # a table completed by the house bots
                four = [four[0], bots[0], four[1], bots[1]]
                fillers = () if number >= 7 else (2, 4)
            match = finish(
                rng,
                club,
                season,
                round_,
                dict(zip((1, 2, 3, 4), four, strict=True)),
                fillers=fillers,
            )
            projections.update_standings(match)
            check_step(season)
    assert StandingRow.objects.filter(season=season, player__in=bots).exists()


@pytest.mark.parametrize("seed", [4, 5])
def test_pairs_incremental_equals_rebuild_after_every_match(seed):
    rng, users, club, season = world("pairs", 20, seed)
    pairs = [
        Pair.objects.create(
            season=season, name=f"p{i}", player_1=users[2 * i], player_2=users[2 * i + 1]
        )
        for i in range(10)
    ]
    for number in range(1, 10):
        round_ = Round.objects.create(season=season, number=number, status="started")
        order = list(pairs)
        rng.shuffle(order)
        CheckIn.objects.create(round=round_, pair=order[-1], bye=True)
        projections.rebuild_standings(season)
        for t in range(4):
            a, b = order[2 * t], order[2 * t + 1]
            seats = {1: a.player_1, 2: b.player_1, 3: a.player_2, 4: b.player_2}
            match = finish(rng, club, season, round_, seats, pairs=(a, b))
            projections.update_standings(match)
            check_step(season)


def test_the_first_match_of_a_season_lists_its_four_players():
    rng, users, club, season = world("individual", 4, 9)
    round_ = Round.objects.create(season=season, number=1, status="started")
    match = finish(rng, club, season, round_, dict(zip((1, 2, 3, 4), users, strict=True)))
    projections.update_standings(match)
    assert [r[0] for r in stored(season)] == [1, 2, 3, 4]
    check_step(season)
