"""Server-hosted computer players (docs/league.md), in-process: an organizer adds them
at a level, they are house bots of their own (two sit at one rated table, they fill
seats), the host account lists the ones in service and gets their tokens, and
``hosted_player_for`` finds or adds one for a substitution."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from server.accounts.models import AccessToken, User
from server.errors import ValidationError
from server.league.actions.hosted import hosted_player_for
from server.league.models import ClubAction, LeagueMatch, Membership
from tests.league.conftest import add_member, client_for, new_bot, new_club, new_member
from tests.server.conftest import token_for

pytestmark = [pytest.mark.backend, pytest.mark.django_db]


def ok(response, status=200):
    assert response.status_code == status, response.content
    return response.json()


def error(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code, response.content


def test_an_organizer_adds_hosted_players_at_a_level():
    organizer = new_member("org")
    club, api = new_club(organizer, slug="riverside")
    url = "/api/clubs/riverside/hosted-players"
    first = ok(api.post(url, {"level": "expert"}, format="json"), 201)
    second = ok(api.post(url, {"level": "expert"}, format="json"), 201)
    named = ok(api.post(url, {"level": "random", "name": "Rusty"}, format="json"), 201)
    assert (first["username"], second["username"]) == ("riverside-expert-1", "riverside-expert-2")
    assert named["username"] == "Rusty" and named["level"] == "random"
    assert first["is_bot"] and first["house_bot"] and first["owner"] is None
    assert first["role"] == "member" and first["active"]
    listed = ok(api.get(url))["results"]
    assert [(m["username"], m["level"]) for m in listed] == [
        ("Rusty", "random"),
        ("riverside-expert-1", "expert"),
        ("riverside-expert-2", "expert"),
    ]
    members = ok(api.get("/api/clubs/riverside/members"))["results"]
    assert {m["username"]: m["level"] for m in members}[organizer.username] is None
    bot = User.objects.get(username="riverside-expert-1")
    assert bot.is_hosted and bot.hosted_level == "expert" and not bot.has_usable_password()
    assert not AccessToken.objects.filter(user=bot).exists()  # only the host gets one
    # Removing one is removing the member: it leaves the list, its account stays.
    ok(api.delete("/api/clubs/riverside/members/riverside-expert-2"))
    assert [m["username"] for m in ok(api.get(url))["results"]] == ["Rusty", "riverside-expert-1"]
    # A long club name still gives a valid, unique account name.
    _, long_api = new_club(organizer, slug="a-very-long-club-name-that-fills-forty-c")
    long = "/api/clubs/a-very-long-club-name-that-fills-forty-c/hosted-players"
    names = [
        ok(long_api.post(long, {"level": "medium"}, format="json"), 201)["username"]
        for _ in range(2)
    ]
    assert all(len(n) <= 40 for n in names) and names[0] != names[1]
    assert names[0].endswith("-medium-1")


def test_refused_additions_change_nothing():
    organizer, member = new_member("org"), new_member("m")
    club, api = new_club(organizer)
    add_member(club, api, member)
    url = f"/api/clubs/{club.slug}/hosted-players"
    users, entries = User.objects.count(), ClubAction.objects.count()
    error(client_for(member).post(url, {"level": "strong"}, format="json"), 403, "organizer_only")
    error(APIClient().post(url, {"level": "strong"}, format="json"), 401, "not_authenticated")
    error(api.post(url, {"level": "grandmaster"}, format="json"), 400, "validation_error")
    error(
        api.post(url, {"level": "strong", "name": "no spaces"}, format="json"),
        400,
        "validation_error",
    )
    error(
        api.post(url, {"level": "strong", "name": member.username}, format="json"),
        409,
        "username_taken",
    )
    with override_settings(DEKABES_MAX_HOSTED_PLAYERS=1):
        ok(api.post(url, {"level": "strong"}, format="json"), 201)
        users, entries = users + 1, entries + 1
        error(api.post(url, {"level": "strong"}, format="json"), 409, "too_many_hosted_players")
    assert (User.objects.count(), ClubAction.objects.count()) == (users, entries)
    # A hosted player plays for its own club: another club's organizer cannot enter it.
    hosted = Membership.objects.get(club=club, user__hosted_level="strong").user
    other, other_api = new_club(member)
    error(
        other_api.post(f"/api/clubs/{other.slug}/members", {"bot": hosted.username}, format="json"),
        403,
        "permission_denied",
    )


def test_two_hosted_players_sit_at_one_rated_table_filling_seats():
    """Each hosted player is a person of its own: no one_seat_per_player between them
    (ownership by the house account would have made them one person)."""
    organizer, member = new_member("org"), new_member("m")
    club, api = new_club(organizer)
    add_member(club, api, member)
    url = f"/api/clubs/{club.slug}"
    for _ in range(2):
        ok(api.post(url + "/hosted-players", {"level": "random"}, format="json"), 201)
    season = ok(
        api.post(
            url + "/seasons",
            {"name": "S", "format": "individual", "fill_with_bots": True},
            format="json",
        ),
        201,
    )["id"]
    rounds = url + f"/seasons/{season}/rounds"
    ok(api.post(rounds), 201)
    ok(
        api.post(
            rounds + "/1/checkin", {"players": [organizer.username, member.username]}, format="json"
        )
    )
    ok(api.post(rounds + "/1/start"))
    match = LeagueMatch.objects.get(season_id=season)
    fillers = {s.player.username for s in match.seats.all() if s.filler}
    assert fillers == {f"{club.slug}-random-1", f"{club.slug}-random-2"}


def test_the_host_account_lists_the_players_in_service_and_gets_their_tokens():
    house = new_bot()  # a house bot (no owner), the host account for this test
    organizer = new_member("org")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}"
    kept = ok(api.post(url + "/hosted-players", {"level": "greedy"}, format="json"), 201)[
        "username"
    ]
    gone = ok(api.post(url + "/hosted-players", {"level": "medium"}, format="json"), 201)[
        "username"
    ]
    ok(api.delete(url + f"/members/{gone}"))
    with override_settings(DEKABES_HOST_ACCOUNT=house.username):
        host = client_for(house)
        assert ok(host.get("/api/host/players"))["players"] == [
            {"username": kept, "level": "greedy"}
        ]
        grant = ok(host.post(f"/api/host/players/{kept}/token"))
        assert grant["username"] == kept and grant["device"] == "host" and grant["is_bot"]
        player = APIClient()
        player.credentials(HTTP_AUTHORIZATION=f"Token {grant['token']}")
        assert ok(player.get("/api/me"))["username"] == kept
        # A new host token replaces the host's previous one only.
        bot = User.objects.get(username=kept)
        other_device = token_for(bot)
        again = ok(host.post(f"/api/host/players/{kept}/token"))["token"]
        assert player.get("/api/me").status_code == 401
        for token in (again, other_device):
            check = APIClient()
            check.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            assert check.get("/api/me").status_code == 200
        error(host.post(f"/api/host/players/{gone}/token"), 404, "not_found")
        error(host.post(f"/api/host/players/{organizer.username}/token"), 404, "not_found")
        # Nobody else: a member, another house bot, a member's bot, a hosted player.
        for stranger in (organizer, new_bot(), new_bot(organizer), bot):
            api_of = client_for(stranger)
            error(api_of.get("/api/host/players"), 403, "permission_denied")
            error(api_of.post(f"/api/host/players/{kept}/token"), 403, "permission_denied")
        error(APIClient().get("/api/host/players"), 401, "not_authenticated")


def test_a_removed_hosted_player_stays_in_service_while_it_sits_at_a_live_league_match():
    house = new_bot()
    organizer = new_member("org")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}"
    names = [
        ok(api.post(url + "/hosted-players", {"level": "random"}, format="json"), 201)["username"]
        for _ in range(4)
    ]
    season = ok(
        api.post(url + "/seasons", {"name": "S", "format": "individual"}, format="json"), 201
    )["id"]
    rounds = url + f"/seasons/{season}/rounds"
    ok(api.post(rounds), 201)
    ok(api.post(rounds + "/1/checkin", {"players": names}, format="json"))
    ok(api.post(rounds + "/1/start"))  # four hosted players at one rated table
    ok(api.delete(url + f"/members/{names[0]}"))
    with override_settings(DEKABES_HOST_ACCOUNT=house.username):
        listed = [p["username"] for p in ok(client_for(house).get("/api/host/players"))["players"]]
    assert listed == sorted(names)


def test_hosted_player_for_prefers_an_idle_player_and_adds_one_when_needed():
    organizer = new_member("org")
    club, api = new_club(organizer)
    url = f"/api/clubs/{club.slug}"
    names = [
        ok(api.post(url + "/hosted-players", {"level": "strong"}, format="json"), 201)["username"]
        for _ in range(4)
    ]
    ok(api.post(url + "/hosted-players", {"level": "random"}, format="json"), 201)
    season = ok(
        api.post(url + "/seasons", {"name": "S", "format": "individual"}, format="json"), 201
    )["id"]
    rounds = url + f"/seasons/{season}/rounds"
    ok(api.post(rounds), 201)
    ok(
        api.post(
            rounds + "/1/checkin", {"players": names[1:] + [organizer.username]}, format="json"
        )
    )
    ok(api.post(rounds + "/1/start"))  # names[1:] are busy now; names[0] is idle
    assert hosted_player_for(club=club, level="strong").username == names[0]
    idle = User.objects.get(username=names[0])
    busy = hosted_player_for(club=club, level="strong", exclude=[idle.pk])
    assert busy.username in names[1:]
    every = User.objects.filter(username__in=names).values_list("pk", flat=True)
    before = ClubAction.objects.filter(club=club).count()
    added = hosted_player_for(club=club, level="strong", exclude=every)
    assert added.username not in names and added.hosted_level == "strong"
    entry = ClubAction.objects.filter(club=club).latest("id")
    assert ClubAction.objects.filter(club=club).count() == before + 1
    assert (entry.verb, entry.actor, entry.details) == (
        "bot.host",
        None,
        {"username": added.username, "level": "strong"},
    )
    assert Membership.objects.get(club=club, user=added).active
    with pytest.raises(ValidationError):
        hosted_player_for(club=club, level="godlike")
