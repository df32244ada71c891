"""An open round opened by mistake (issue #33, point 2): one open round at a time
(`409 round_open`), an open round without a table is deleted, a drawn one stays, and a
closed season keeps no open round."""

from __future__ import annotations

import pytest

from server.league.models import CheckIn, ClubAction, LeagueMatch, Round
from tests.league.conftest import add_member, client_for, new_club, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db]


def _season(api, club):
    url = f"/api/clubs/{club.slug}/seasons"
    season = api.post(url, {"name": "S", "format": "individual"}, format="json").json()
    return f"{url}/{season['id']}"


def test_one_open_round_at_a_time_and_an_open_round_is_deleted():
    organizer, member = new_member("org"), new_member("m")
    club, api = new_club(organizer)
    add_member(club, api, member)
    season = _season(api, club)
    assert api.post(season + "/rounds").status_code == 201
    second = api.post(season + "/rounds")
    assert (second.status_code, second.json()["code"]) == (409, "round_open")
    assert Round.objects.filter(season__club=club).count() == 1
    api.post(season + "/rounds/1/checkin", {"players": [member.username]}, format="json")
    # A member may not delete it; nothing changes.
    assert client_for(member).delete(season + "/rounds/1").status_code in (403, 404)
    assert Round.objects.filter(season__club=club).count() == 1
    assert api.delete(season + "/rounds/1").status_code == 204
    assert not Round.objects.filter(season__club=club).exists()
    assert not CheckIn.objects.filter(round__season__club=club).exists()
    entry = ClubAction.objects.filter(club=club, verb="round.delete").get()
    assert entry.details["round"] == 1
    gone = api.delete(season + "/rounds/1")
    assert gone.status_code == 404
    # The next round opened takes the number again.
    assert api.post(season + "/rounds").json()["number"] == 1


def test_a_drawn_round_is_not_deleted_and_closing_deletes_the_open_one():
    organizer = new_member("org")
    club, api = new_club(organizer)
    people = [new_member(f"p{i}") for i in range(3)]
    for person in people:
        add_member(club, api, person)
    season = _season(api, club)
    api.post(season + "/rounds")
    names = [organizer.username] + [p.username for p in people]
    api.post(season + "/rounds/1/checkin", {"players": names}, format="json")
    assert api.post(season + "/rounds/1/start").status_code == 200
    refused = api.delete(season + "/rounds/1")
    assert (refused.status_code, refused.json()["code"]) == (409, "round_has_matches")
    assert Round.objects.get(season__club=club, number=1).status == "started"
    # Once its matches are over (annulled here), another round opens; closing the
    # season deletes that open one.
    for match in LeagueMatch.objects.filter(round__season__club=club):
        client_for(organizer).post(
            f"/api/matches/{match.pk}/annul", {"reason": "test"}, format="json"
        )
    assert Round.objects.get(season__club=club, number=1).status == "finished"
    assert api.post(season + "/rounds").status_code == 201  # round 2, open
    closed = api.post(season + "/close")
    assert closed.status_code == 200
    assert list(Round.objects.filter(season__club=club).values_list("number", flat=True)) == [1]
    entry = ClubAction.objects.filter(club=club, verb="season.close").get()
    assert entry.details["deleted_rounds"] == [2]
