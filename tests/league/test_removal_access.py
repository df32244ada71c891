"""Access that ends with a membership (issue 20): a removed member's own bots leave the
club with them, and a members club's table is read like the club's pages."""

from __future__ import annotations

import pytest

from server.league.models import ClubAction, Membership
from tests.league.conftest import add_member, new_club
from tests.server.conftest import client_for, new_bot, new_member

pytestmark = pytest.mark.django_db(transaction=False)


def test_removing_a_member_removes_their_bots_from_the_club():
    organizer, member = new_member(), new_member()
    club, api = new_club(organizer, visibility="members")
    add_member(club, api, member)
    bot, other_bot = new_bot(member), new_bot(new_member())
    mine = client_for(member).post(
        f"/api/clubs/{club.slug}/members", {"bot": bot.username}, format="json"
    )
    assert mine.status_code == 201, mine.content
    house = new_bot(None)
    assert (
        api.post(
            f"/api/clubs/{club.slug}/members", {"bot": house.username}, format="json"
        ).status_code
        == 201
    )
    bot_api = client_for(bot)
    assert bot_api.get(f"/api/clubs/{club.slug}").status_code == 200

    assert api.delete(f"/api/clubs/{club.slug}/members/{member.username}").status_code == 200

    assert not Membership.objects.get(club=club, user=bot).active
    assert Membership.objects.get(club=club, user=house).active  # not theirs: stays
    assert not Membership.objects.filter(club=club, user=other_bot).exists()
    assert bot_api.get(f"/api/clubs/{club.slug}").status_code == 404
    removed = ClubAction.objects.filter(club=club, verb="member.remove")
    assert sorted(a.details["username"] for a in removed) == sorted([member.username, bot.username])


def test_a_members_club_table_is_read_by_its_members_only():
    organizer = new_member()
    club, api = new_club(organizer, visibility="members")
    players = [new_member() for _ in range(4)]
    for p in players:
        add_member(club, api, p)
    season = api.post(
        f"/api/clubs/{club.slug}/seasons", {"name": "S", "format": "individual"}, format="json"
    ).json()["id"]
    base = f"/api/clubs/{club.slug}/seasons/{season}/rounds"
    assert api.post(base, {}, format="json").status_code == 201
    names = [p.username for p in players]
    assert api.post(f"{base}/1/checkin", {"players": names}, format="json").status_code == 200
    assert api.post(f"{base}/1/start", {}, format="json").status_code == 200
    code = api.get(f"{base}/1").json()["tables"][0]["table"]

    outsider = client_for(new_member())
    refused = outsider.get(f"/api/tables/{code}")
    unknown = outsider.get("/api/tables/ZZZZZZ")
    assert refused.status_code == unknown.status_code == 404
    assert refused.json()["code"] == unknown.json()["code"] == "not_found"
    assert client_for(players[0]).get(f"/api/tables/{code}").status_code == 200
    member = new_member()
    add_member(club, api, member)
    assert client_for(member).get(f"/api/tables/{code}").status_code == 200
    api.patch(f"/api/clubs/{club.slug}", {"visibility": "public"}, format="json")
    assert outsider.get(f"/api/tables/{code}").status_code == 200
