"""The organizer endpoints of issue #21: revoking an invite code, editing and closing a
season, revoking a bot's tokens. Each refusal changes nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from server.league.models import Invite, Round, Season
from tests.league.conftest import client_for, new_bot, new_club, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db]


def test_a_revoked_code_joins_as_an_unknown_one():
    organizer, member, kicked = new_member("org"), new_member("m"), new_member("k")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}"
    code = api.post(url + "/invites", {}, format="json").json()["code"]
    assert client_for(kicked).post(url + "/join", {"code": code}, format="json").status_code == 201
    assert api.delete(url + f"/members/{kicked.username}").status_code == 200
    # A member may not revoke; the organizer may, once.
    denied = client_for(member).delete(url + f"/invites/{code}")
    assert denied.status_code in (403, 404)
    assert Invite.objects.get(code=code).revoked_at is None
    revoked = api.delete(url + f"/invites/{code}")
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    again = api.delete(url + f"/invites/{code}")
    assert (again.status_code, again.json()["code"]) == (404, "invite_invalid")
    rejoin = client_for(kicked).post(url + "/join", {"code": code}, format="json")
    unknown = client_for(kicked).post(url + "/join", {"code": "NOSUCH"}, format="json")
    assert rejoin.status_code == unknown.status_code == 404
    assert rejoin.json() == unknown.json()
    listed = api.get(url + "/invites").json()["results"][0]
    assert listed["code"] == code and listed["revoked_at"] is not None


def test_a_season_is_edited_then_closed_and_takes_no_new_round():
    organizer, member = new_member("org"), new_member("m")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}/seasons"
    season = api.post(url, {"name": "S", "format": "individual"}, format="json").json()
    assert season["closed_at"] is None
    s_url = f"{url}/{season['id']}"
    edited = api.patch(s_url, {"name": "Spring", "ends_on": "2026-06-01"}, format="json")
    assert edited.status_code == 200 and edited.json()["name"] == "Spring"
    bad = api.patch(s_url, {"starts_on": "2026-07-01"}, format="json")
    assert bad.status_code == 400
    assert client_for(member).post(s_url + "/close").status_code in (403, 404)
    assert Season.objects.get(pk=season["id"]).closed_at is None
    closed = api.post(s_url + "/close")
    assert closed.status_code == 200 and closed.json()["closed_at"] is not None
    for response in (
        api.post(s_url + "/rounds"),
        api.post(s_url + "/close"),
        api.patch(s_url, {"name": "X"}, format="json"),
    ):
        assert (response.status_code, response.json()["code"]) == (409, "season_closed")
    assert not Round.objects.filter(season_id=season["id"]).exists()
    assert APIClient().get(s_url).json()["name"] == "Spring"


def test_an_owner_revokes_every_token_of_their_bot():
    owner, other = new_member("o"), new_member("x")
    bot = new_bot(owner)
    bot_api = client_for(bot)
    assert bot_api.get("/api/me").status_code == 200
    assert client_for(other).delete(f"/api/bots/{bot.username}/token").status_code == 404
    assert bot_api.get("/api/me").status_code == 200
    assert client_for(owner).delete(f"/api/bots/{bot.username}/token").status_code == 204
    assert bot_api.get("/api/me").status_code == 401
