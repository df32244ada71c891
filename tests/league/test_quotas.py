"""League quotas (issue 20, docs/server.md "Limits"): clubs per account, seasons per
club, open invite codes per club, rounds per season; and the home page and /matches/
stay one page however many clubs the server holds."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from server.league.models import Club, Invite, Round
from tests.league.conftest import new_club
from tests.server.conftest import new_member

pytestmark = pytest.mark.django_db


@override_settings(DEKABES_MAX_CLUBS=2)
def test_an_account_creates_at_most_max_clubs():
    organizer = new_member()
    new_club(organizer)
    _club, api = new_club(organizer)
    refused = api.post("/api/clubs", {"slug": "third-one", "name": "Third"}, format="json")
    assert refused.status_code == 409
    assert refused.json()["code"] == "too_many_clubs"
    assert not Club.objects.filter(slug="third-one").exists()
    new_club(new_member())  # another account's quota is its own


@override_settings(DEKABES_MAX_SEASONS=1, DEKABES_MAX_ROUNDS=2)
def test_seasons_per_club_and_rounds_per_season():
    club, api = new_club(new_member())
    base = f"/api/clubs/{club.slug}/seasons"
    season = api.post(base, {"name": "A", "format": "pairs"}, format="json").json()["id"]
    refused = api.post(base, {"name": "B", "format": "pairs"}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "too_many_seasons")
    rounds = f"{base}/{season}/rounds"
    opened = []
    for _ in range(2):  # one open round at a time: each is played out before the next
        opened.append(api.post(rounds, {}, format="json").status_code)
        Round.objects.filter(season_id=season).update(status="finished")
    assert opened == [201, 201]
    refused = api.post(rounds, {}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "too_many_rounds")


@override_settings(DEKABES_MAX_INVITES=2)
def test_open_invites_per_club_count_only_codes_that_still_admit():
    club, api = new_club(new_member())
    path = f"/api/clubs/{club.slug}/invites"
    assert api.post(path, {"single_use": True}, format="json").status_code == 201
    assert api.post(path, {}, format="json").status_code == 201
    refused = api.post(path, {}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (409, "too_many_invites")
    Invite.objects.filter(club=club, single_use=True).update(uses=1)  # used: closed
    assert api.post(path, {}, format="json").status_code == 201


def test_the_home_page_shows_one_page_of_clubs():
    owner = new_member()
    for n in range(60):
        club = Club.objects.create(
            slug=f"flood-{n:03}", name=f"Flood {n:03}", description="x" * 2000, created_by=owner
        )
        club.memberships.create(user=owner, role="organizer")
    page = Client().get("/")
    assert page.status_code == 200
    text = page.content.decode()
    assert text.count('href="/clubs/flood-') == 20
    assert text.count("1 member<") == 20  # counted for the page's clubs
    assert "x" * 201 not in text
    second = Client().get("/?clubs=3").content.decode()
    assert second.count('href="/clubs/flood-') == 20
    assert Client().get("/?clubs=%C2%B2").status_code == 200  # a bad page: the first
    matches = Client().get("/matches/").content.decode()
    assert matches.count('<option value="flood-') == 50
    chosen = Client().get("/matches/?club=flood-059").content.decode()
    assert chosen.count('<option value="flood-') == 51
    assert '<option value="flood-059" selected>' in chosen
