"""No live tile through any league endpoint or lobby push (tests/server/test_privacy.py's
approach): while a league match is mid-hand, everything a player, an organizer, another
member or an anonymous reader can fetch from the league carries no tile at all."""

from __future__ import annotations

import json
import random

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from server.asgi import application
from server.league.models import LeagueMatch
from server.tables import projection
from tests.league.conftest import client_for, new_member, play_out
from tests.league.test_league_api import League
from tests.server.conftest import token_for
from tests.server.test_privacy import tiles_in

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def league_endpoints(league: League, match: LeagueMatch, player) -> list[str]:
    season = league.season_url()
    return [
        "/api/clubs",
        league.url(),
        league.url("/members"),
        league.url("/ratings"),
        league.url("/seasons"),
        season,
        season + "/standings",
        season + "/rounds",
        season + "/rounds/1",
        season + "/rounds/1/tables",
        "/api/matches",
        f"/api/matches?club={league.club.slug}",
        f"/api/matches/{match.pk}",
        f"/api/matches/{match.pk}/hands",
        f"/api/matches/{match.pk}/record",
        f"/api/players/{player.username}",
        f"/api/players/{player.username}/stats",
        "/api/me/league-tables",
        f"/api/matches/{match.pk}/annul",
    ]


@pytest.mark.parametrize("actions", [5, 40])
def test_no_tile_of_a_live_hand_through_the_league(actions):
    league = League(members=5)
    league.start_round(present=league.members[:4])
    match = LeagueMatch.objects.get(season_id=league.season)
    play_out(match.table, random.Random(actions), stop_after=actions)
    state = projection.project(match.table)
    assert state.match.phase in ("accept", "choose_opener", "play")
    seated = [s.player for s in match.table.seats.order_by("number")]
    readers = [
        client_for(seated[0]),
        client_for(league.organizer),
        client_for(league.members[4]),
        client_for(new_member("out")),
        client_for(seated[0]).__class__(),
    ]
    for api in readers:
        for url in league_endpoints(league, match, seated[0]):
            response = api.get(url)
            assert response.status_code < 500, (url, response.content)
            assert tiles_in(response.content.decode()) == set(), (url, response.content[:300])
    for code in ("hands", "record"):
        response = client_for(seated[0]).get(f"/api/matches/{match.pk}/{code}")
        assert response.status_code == 409 and response.json()["code"] == "match_in_progress"
    pushes = async_to_sync(lobby_messages)(seated[1])
    assert pushes and pushes[0]["tables"][0]["seat"] == 2
    assert tiles_in(json.dumps(pushes)) == set()


async def lobby_messages(user) -> list[dict]:
    from channels.db import database_sync_to_async

    token = await database_sync_to_async(token_for)(user)
    communicator = WebsocketCommunicator(
        application, "/ws/me", headers=[(b"authorization", f"Token {token}".encode())]
    )
    connected, _ = await communicator.connect()
    assert connected
    try:
        return [await communicator.receive_json_from(timeout=10)]
    finally:
        await communicator.disconnect()


def test_lobby_refuses_without_a_token():
    async def attempt():
        communicator = WebsocketCommunicator(application, "/ws/me")
        await communicator.connect()  # accepted, then closed: the code reaches the client
        closed = await communicator.receive_output(10)
        await communicator.disconnect()
        return closed

    assert async_to_sync(attempt)() == {"type": "websocket.close", "code": 4401}
