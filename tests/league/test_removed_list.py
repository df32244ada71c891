"""Removal and invites (issue #33, point 1): removing a member revokes no code; a removed
member rejoins with no code until an organizer allows them back (the removed list), and
every refusal changes nothing."""

from __future__ import annotations

import pytest

from server.league.models import ClubAction, Invite, Membership
from tests.league.conftest import client_for, new_bot, new_club, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db]


def _state(club):
    return (
        list(Membership.objects.filter(club=club).order_by("id").values_list("active", "barred")),
        list(Invite.objects.filter(club=club).order_by("id").values_list("revoked_at", "uses")),
        ClubAction.objects.filter(club=club).count(),
    )


def test_a_removed_member_rejoins_with_no_code_until_allowed_back():
    organizer, kept, kicked = new_member("org"), new_member("kept"), new_member("k")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}"
    shared = api.post(url + "/invites", {}, format="json").json()["code"]
    for person in (kept, kicked):
        joined = client_for(person).post(url + "/join", {"code": shared}, format="json")
        assert joined.status_code == 201
    removed = api.delete(url + f"/members/{kicked.username}")
    assert removed.status_code == 200 and removed.json()["barred"] is True
    # The shared code stays valid for others ...
    assert Invite.objects.get(code=shared).revoked_at is None
    newcomer = new_member("new")
    assert (
        client_for(newcomer).post(url + "/join", {"code": shared}, format="json").status_code == 201
    )
    # ... and lets the removed member back with no code: shared, new, single-use.
    single = api.post(url + "/invites", {"single_use": True}, format="json").json()["code"]
    before = _state(club)
    for code in (shared, single):
        refused = client_for(kicked).post(url + "/join", {"code": code}, format="json")
        assert refused.status_code == 403
        assert refused.json()["code"] == "removed_from_club"
        assert _state(club) == before
    # A wrong code stays the unknown code's answer (no hint past the code check).
    wrong = client_for(kicked).post(url + "/join", {"code": "NOSUCH"}, format="json")
    assert (wrong.status_code, wrong.json()["code"]) == (404, "invite_invalid")
    # The removed list: organizers only.
    listed = api.get(url + "/removed").json()["results"]
    assert [m["username"] for m in listed] == [kicked.username]
    for caller in (client_for(kept), client_for(kicked), client_for(new_member("out"))):
        assert caller.get(url + "/removed").status_code in (403, 404)
        assert caller.delete(url + f"/removed/{kicked.username}").status_code in (403, 404)
        assert _state(club) == before
    # Allowed back: off the list (still not a member), and a code admits them again.
    allowed = api.delete(url + f"/removed/{kicked.username}")
    assert allowed.status_code == 200
    assert (allowed.json()["barred"], allowed.json()["active"]) == (False, False)
    again = api.delete(url + f"/removed/{kicked.username}")
    assert (again.status_code, again.json()["code"]) == (404, "not_removed")
    not_removed = api.delete(url + f"/removed/{kept.username}")
    assert (not_removed.status_code, not_removed.json()["code"]) == (404, "not_removed")
    assert api.get(url + "/removed").json()["results"] == []
    assert (
        client_for(kicked).post(url + "/join", {"code": single}, format="json").status_code == 201
    )
    verbs = list(ClubAction.objects.filter(club=club).values_list("verb", flat=True))
    assert "member.readmit" in verbs


def test_a_removed_bot_is_not_on_the_removed_list():
    organizer, owner = new_member("org"), new_member("own")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}"
    code = api.post(url + "/invites", {}, format="json").json()["code"]
    client_for(owner).post(url + "/join", {"code": code}, format="json")
    bot = new_bot(owner)
    assert (
        client_for(owner).post(url + "/members", {"bot": bot.username}, format="json").status_code
        == 201
    )
    assert api.delete(url + f"/members/{bot.username}").json()["barred"] is False
    # Its owner enters it again (a bot never joins by code).
    assert (
        client_for(owner).post(url + "/members", {"bot": bot.username}, format="json").status_code
        == 201
    )
    assert api.get(url + "/removed").json()["results"] == []
