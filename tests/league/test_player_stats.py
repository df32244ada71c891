"""``GET /api/players/{username}/stats``: a player's matches, wins, hands won and
Dékabès, by club and overall, counted over the finished matches the reader may read
(the same visibility as ``GET /api/players/{username}`` and ``/api/matches``)."""

from __future__ import annotations

import random

import pytest

from engine.seats import team_of
from server.league.models import LeagueMatch, LeagueMatchSeat
from server.tables.models import Table
from tests.league.conftest import client_for, new_member, play_out
from tests.league.test_league_api import League, error

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def expected(player, matches) -> dict:
    """The line counted by hand from the match rows (the team of the first seat held)."""
    line = {"matches": 0, "won": 0, "hands": 0, "hands_won": 0, "dekabes": 0}
    for match in matches:
        seat = LeagueMatchSeat.objects.filter(match=match, player=player).order_by("number").first()
        if seat is None or match.status != "finished":
            continue
        team = team_of(seat.number).lower()
        line["matches"] += 1
        line["won"] += match.winner == team.upper()
        line["hands"] += match.hands
        line["hands_won"] += getattr(match, f"hands_won_{team}")
        line["dekabes"] += getattr(match, f"dekabes_{team}")
    return line


def numbers(line: dict) -> dict:
    return {k: line[k] for k in ("matches", "won", "hands", "hands_won", "dekabes")}


def casual_table(owner) -> Table:
    code = (
        client_for(owner)
        .post(
            "/api/tables",
            {
                "seats": {"1": "human", "2": "human", "3": "human", "4": "human"},
                "join": [1, 2, 3, 4],
            },
            format="json",
        )
        .json()["code"]
    )
    return Table.objects.get(code=code)


def test_statistics_by_club_and_overall_over_what_the_reader_may_read():
    league = League(members=4, visibility="members")
    league.start_round(present=league.members)
    league.play_round(1, seed=5)
    player = league.members[0]
    casual = casual_table(player)
    play_out(casual, random.Random(11))
    # an unfinished league match does not count
    league.start_round(present=league.members)
    live = LeagueMatch.objects.get(season_id=league.season, round__number=2)
    play_out(live.table, random.Random(1), stop_after=10)

    club_matches = list(LeagueMatch.objects.filter(club=league.club))
    casual_match = LeagueMatch.objects.get(table=casual)
    mine = client_for(player).get(f"/api/players/{player.username}/stats")
    assert mine.status_code == 200, mine.content
    body = mine.json()
    assert body["username"] == player.username and body["is_bot"] is False
    by_club = {line["club"]: line for line in body["clubs"]}
    assert list(by_club) == [league.club.slug, None]  # casual tables last
    assert by_club[league.club.slug]["club_name"] == league.club.name
    assert numbers(by_club[league.club.slug]) == expected(player, club_matches)
    assert numbers(by_club[None]) == expected(player, [casual_match])
    assert by_club[None]["matches"] == 1 and by_club[league.club.slug]["matches"] == 1
    overall = expected(player, [*club_matches, casual_match])
    assert numbers(body["overall"]) == overall and body["overall"]["club"] is None
    # the deals are the server's (random): in one full suite run the player won
    # no hand of the eight played, so only the count of hands is sure to be positive
    assert overall["hands"] > 0 and 0 <= overall["hands_won"] <= overall["hands"]

    # another member of the club sees the club's matches, not the casual one
    other = client_for(league.members[1]).get(f"/api/players/{player.username}/stats").json()
    assert [line["club"] for line in other["clubs"]] == [league.club.slug]
    assert numbers(other["overall"]) == expected(player, club_matches)

    # an outsider and an anonymous reader see no match of a members-only club
    for api in (client_for(new_member("out")), client_for(player).__class__()):
        seen = api.get(f"/api/players/{player.username}/stats")
        assert seen.status_code == 200, seen.content
        assert seen.json()["clubs"] == [] and seen.json()["overall"]["matches"] == 0

    error(client_for(player).get("/api/players/nobody-here/stats"), 404, "not_found")


def test_pass_and_play_against_oneself_counts_for_the_first_seat_held():
    player = new_member("p")
    table = casual_table(player)
    play_out(table, random.Random(4))
    match = LeagueMatch.objects.get(table=table)
    body = client_for(player).get(f"/api/players/{player.username}/stats").json()
    assert numbers(body["overall"]) == expected(player, [match])
    assert body["overall"]["hands_won"] == match.hands_won_a  # seat 1: team A
