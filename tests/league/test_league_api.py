"""The league through its REST API, in-process: roles, visibility, the rated-seat rule,
annul, rebuild, pagination, history. Matches are played with random legal moves through
the table services (the live season test plays them through the real bot runner)."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from server.league.models import (
    LeagueMatch,
    LeagueMatchSeat,
    Membership,
    Rating,
    RatingPoint,
    Round,
    StandingRow,
)
from server.league.projections import rebuild
from server.tables import projection
from server.tables.models import Event, Table
from tests.league.conftest import add_member, client_for, new_bot, new_club, new_member, play_out
from tests.records import replay_summary

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]
ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


class League:
    """A club with an organizer, members, and an individual season."""

    def __init__(self, members=8, visibility="public", format="individual", fill=False):
        self.organizer = new_member("org")
        self.club, self.org_api = new_club(self.organizer, visibility=visibility)
        self.members = [new_member("m") for _ in range(members)]
        for user in self.members:
            add_member(self.club, self.org_api, user)
        response = self.org_api.post(
            self.url("/seasons"),
            {"name": "Spring", "format": format, "seed": 7, "fill_with_bots": fill},
            format="json",
        )
        assert response.status_code == 201, response.content
        self.season = response.json()["id"]

    def url(self, tail=""):
        return f"/api/clubs/{self.club.slug}{tail}"

    def season_url(self, tail=""):
        return self.url(f"/seasons/{self.season}{tail}")

    def start_round(self, present=None, pairs=None) -> dict:
        number = self.org_api.post(self.season_url("/rounds")).json()["number"]
        body = (
            {"pairs": pairs}
            if pairs is not None
            else {"players": [u.username for u in (present or self.members)]}
        )
        response = self.org_api.post(
            self.season_url(f"/rounds/{number}/checkin"), body, format="json"
        )
        assert response.status_code == 200, response.content
        response = self.org_api.post(self.season_url(f"/rounds/{number}/start"))
        assert response.status_code == 200, response.content
        return response.json()

    def play_round(self, number, seed=0):
        for match in LeagueMatch.objects.filter(season_id=self.season, round__number=number):
            play_out(match.table, random.Random(seed + match.pk))


def error(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["code"] == code, response.content


# -- clubs, roles, visibility ----------------------------------------------------------------
def test_permission_matrix_per_role():
    league = League(members=2)
    member, outsider = league.members[0], new_member("out")
    slug = league.club.slug
    organizer_actions = [
        ("post", league.url("/invites"), {}),
        ("get", league.url("/invites"), None),
        ("patch", league.url(), {"name": "Renamed"}),
        ("post", league.url("/seasons"), {"name": "X", "format": "individual"}),
        ("post", league.season_url("/rounds"), None),
        ("patch", league.url(f"/members/{league.members[1].username}"), {"role": "organizer"}),
        ("delete", league.url(f"/members/{league.members[1].username}"), None),
    ]
    for role_api, code in (
        (client_for(member), "organizer_only"),
        (client_for(outsider), "not_a_member"),
    ):
        for method, url, body in organizer_actions:
            response = getattr(role_api, method)(url, body, format="json")
            error(response, 403, code)
    anonymous = client_for(member).__class__()
    for method, url, body in organizer_actions:
        error(getattr(anonymous, method)(url, body, format="json"), 401, "not_authenticated")
    # Reads of a public club: anyone, even without a token.
    for url in (
        league.url(),
        league.url("/members"),
        league.season_url("/standings"),
        league.url("/ratings"),
        f"/api/matches?club={slug}",
    ):
        assert anonymous.get(url).status_code == 200, url
    # An organizer promotes, then may not demote the last organizer.
    assert (
        league.org_api.patch(
            league.url(f"/members/{member.username}"), {"role": "organizer"}, format="json"
        ).status_code
        == 200
    )
    assert client_for(member).post(league.url("/invites"), {}, format="json").status_code == 201
    assert league.org_api.delete(league.url(f"/members/{member.username}")).status_code == 200
    error(
        league.org_api.patch(
            league.url(f"/members/{league.organizer.username}"), {"role": "member"}, format="json"
        ),
        409,
        "last_organizer",
    )
    # The removed member's membership stays, inactive.
    assert not Membership.objects.get(club=league.club, user=member).active
    error(client_for(member).post(league.url("/invites"), {}, format="json"), 403, "not_a_member")


def test_invites_single_use_and_expiry():
    league = League(members=0)
    api = league.org_api
    single = api.post(league.url("/invites"), {"single_use": True}, format="json").json()["code"]
    first, second = new_member(), new_member()
    assert (
        client_for(first).post(league.url("/join"), {"code": single}, format="json").status_code
        == 201
    )
    error(
        client_for(first).post(league.url("/join"), {"code": single}, format="json"),
        409,
        "invite_used",
    )
    error(
        client_for(second).post(league.url("/join"), {"code": single}, format="json"),
        409,
        "invite_used",
    )
    wrong_code = client_for(second).post(league.url("/join"), {"code": "NOPE"}, format="json")
    error(wrong_code, 404, "invite_invalid")
    # A club that does not exist answers as a wrong code: a members club stays unseen.
    no_club = client_for(second).post("/api/clubs/no-such/join", {"code": "NOPE"}, format="json")
    assert (no_club.status_code, no_club.json()) == (404, wrong_code.json())
    error(
        api.post(league.url("/invites"), {"expires_at": "2001-01-01T00:00:00Z"}, format="json"),
        400,
        "validation_error",
    )
    code = api.post(league.url("/invites"), {}, format="json").json()["code"]
    from django.utils import timezone

    from server.league.models import Invite

    Invite.objects.filter(code=code).update(expires_at=timezone.now())
    error(
        client_for(second).post(league.url("/join"), {"code": code}, format="json"),
        410,
        "invite_expired",
    )
    error(
        api.post("/api/clubs", {"slug": league.club.slug, "name": "Again"}, format="json"),
        409,
        "slug_taken",
    )
    error(
        api.post("/api/clubs", {"slug": "x y", "name": "Bad"}, format="json"),
        400,
        "validation_error",
    )


def test_members_club_is_visible_to_members_only():
    league = League(members=4, visibility="members")
    league.start_round()
    league.play_round(1)
    member, outsider = league.members[0], new_member("out")
    anonymous = client_for(member).__class__()
    slug = league.club.slug
    tails = (
        "",
        "/members",
        "/ratings",
        "/seasons",
        f"/seasons/{league.season}",
        f"/seasons/{league.season}/standings",
        f"/seasons/{league.season}/rounds/1",
        f"/seasons/{league.season}/rounds/1/tables",
    )
    for api in (client_for(outsider), anonymous):
        clubs = [c["slug"] for c in api.get("/api/clubs").json()["results"]]
        assert slug not in clubs
        for tail in tails:
            # Exactly what a club that does not exist answers: the outsider cannot tell.
            hidden, unknown = api.get(league.url(tail)), api.get(f"/api/clubs/no-such{tail}")
            error(hidden, 404, "not_found")
            assert hidden.json()["message"].replace(slug, "no-such") == unknown.json()["message"]
        assert api.get(f"/api/matches?club={slug}").json()["count"] == 0
        match = LeagueMatch.objects.filter(club=league.club).first()
        error(api.get(f"/api/matches/{match.pk}"), 404, "not_found")
        error(api.get(f"/api/matches/{match.pk}/record"), 404, "not_found")
        profile = api.get(f"/api/players/{member.username}").json()
        assert (
            profile["clubs"] == [] and profile["ratings"] == [] and profile["recent_matches"] == []
        )
    api = client_for(member)
    assert slug in [c["slug"] for c in api.get("/api/clubs").json()["results"]]
    assert api.get(f"/api/matches?club={slug}").json()["count"] == 1
    assert api.get(f"/api/players/{member.username}").json()["ratings"][0]["club"] == slug


def test_bots_in_a_club():
    league = League(members=1)
    member = league.members[0]
    own_bot, others_bot, house = new_bot(member), new_bot(league.organizer), new_bot(None)
    api = client_for(member)
    entered = api.post(league.url("/members"), {"bot": own_bot.username}, format="json")
    assert entered.status_code == 201 and entered.json()["is_bot"] is True
    assert entered.json()["owner"] == member.username
    error(
        api.post(league.url("/members"), {"bot": others_bot.username}, format="json"),
        403,
        "not_your_bot",
    )
    error(
        api.post(league.url("/members"), {"bot": house.username}, format="json"),
        403,
        "organizer_only",
    )
    error(api.post(league.url("/members"), {"bot": "nobody-here"}, format="json"), 404, "not_found")
    house_entry = league.org_api.post(
        league.url("/members"), {"bot": house.username}, format="json"
    )
    assert house_entry.status_code == 201 and house_entry.json()["house_bot"] is True
    flags = {m["username"]: m["is_bot"] for m in api.get(league.url("/members")).json()["results"]}
    assert flags[own_bot.username] and flags[house.username] and not flags[member.username]
    # A member and their own bot never play the same round (one person, one seat).
    number = league.org_api.post(league.season_url("/rounds")).json()["number"]
    error(
        league.org_api.post(
            league.season_url(f"/rounds/{number}/checkin"),
            {"players": [member.username, own_bot.username]},
            format="json",
        ),
        409,
        "one_seat_per_player",
    )


# -- rounds ----------------------------------------------------------------------------------
def test_round_with_a_bye_and_my_table():
    league = League(members=9)
    round_ = league.start_round()
    assert len(round_["tables"]) == 2 and len(round_["byes"]) == 1
    seated = {s["player"] for t in round_["tables"] for s in t["seats"]}
    assert len(seated) == 8 and round_["byes"][0]["player"]["username"] not in seated
    player = next(u for u in league.members if u.username in seated)
    mine = client_for(player).get("/api/me/league-tables").json()
    assert len(mine["tables"]) == 1
    table = mine["tables"][0]
    seat = client_for(player).get(table["seat_url"])
    assert seat.status_code == 200 and seat.json()["table"]["rated"] is True
    bye = next(u for u in league.members if u.username not in seated)
    assert client_for(bye).get("/api/me/league-tables").json()["tables"] == []
    # Long-poll: nothing new, answers after the wait with the same version.
    again = client_for(player).get(f"/api/me/league-tables?wait=0.3&after={mine['version']}").json()
    assert again["version"] == mine["version"]
    error(league.org_api.post(league.season_url("/rounds/1/start")), 409, "round_started")
    number = league.org_api.post(league.season_url("/rounds")).json()["number"]
    league.org_api.post(
        league.season_url(f"/rounds/{number}/checkin"),
        {"players": [u.username for u in league.members]},
        format="json",
    )
    error(
        league.org_api.post(league.season_url(f"/rounds/{number}/start")), 409, "round_in_progress"
    )
    league.play_round(1)
    assert Round.objects.get(season_id=league.season, number=1).status == "finished"
    assert league.org_api.post(league.season_url(f"/rounds/{number}/start")).status_code == 200
    rows = client_for(player).get(league.season_url("/standings")).json()["results"]
    assert {r["player"]["username"]: r["byes"] for r in rows}[bye.username] == 1


def test_round_errors():
    league = League(members=3)
    number = league.org_api.post(league.season_url("/rounds")).json()["number"]
    base = league.season_url(f"/rounds/{number}")
    error(
        league.org_api.post(base + "/checkin", {"players": ["ghost"]}, format="json"),
        403,
        "not_a_member",
    )
    error(
        league.org_api.post(base + "/checkin", {"pairs": [1]}, format="json"), 409, "wrong_format"
    )
    error(
        league.org_api.post(base + "/checkin", {"players": "x"}, format="json"),
        400,
        "validation_error",
    )
    league.org_api.post(
        base + "/checkin", {"players": [u.username for u in league.members]}, format="json"
    )
    error(league.org_api.post(base + "/start"), 409, "not_enough_players")
    error(league.org_api.get(league.season_url("/rounds/99")), 404, "not_found")
    error(league.org_api.get(league.url("/seasons/999999")), 404, "not_found")
    assert (
        not Table.objects.exists()
        or not LeagueMatch.objects.filter(season_id=league.season).exists()
    )


def test_house_bots_fill_the_seats():
    league = League(members=6, fill=True)
    house = [new_bot(None) for _ in range(2)]
    number = league.org_api.post(league.season_url("/rounds")).json()["number"]
    league.org_api.post(
        league.season_url(f"/rounds/{number}/checkin"),
        {"players": [u.username for u in league.members]},
        format="json",
    )
    error(
        league.org_api.post(league.season_url(f"/rounds/{number}/start")),
        409,
        "not_enough_house_bots",
    )
    assert not LeagueMatch.objects.filter(season_id=league.season).exists()
    for bot in house:
        league.org_api.post(league.url("/members"), {"bot": bot.username}, format="json")
    round_ = league.org_api.post(league.season_url(f"/rounds/{number}/start")).json()
    assert len(round_["tables"]) == 2 and round_["byes"] == []
    bots = {s["player"] for t in round_["tables"] for s in t["seats"] if s["is_bot"]}
    assert bots == {b.username for b in house}
    league.play_round(number)
    rows = league.org_api.get(league.season_url("/standings")).json()["results"]
    assert {r["player"]["username"] for r in rows} == {u.username for u in league.members}
    rated = {r["player"] for r in league.org_api.get(league.url("/ratings")).json()["results"]}
    assert {b.username for b in house} <= rated  # rated in the club's pool all the same


def test_pairs_season_swiss_rounds():
    league = League(members=8, format="pairs")
    users = league.members
    pairs = []
    for a, b in zip(users[0::2], users[1::2], strict=True):
        response = league.org_api.post(
            league.season_url("/pairs"), {"players": [a.username, b.username]}, format="json"
        )
        assert response.status_code == 201, response.content
        pairs.append(response.json()["id"])
    error(
        league.org_api.post(
            league.season_url("/pairs"),
            {"players": [users[0].username, users[2].username]},
            format="json",
        ),
        409,
        "already_in_pair",
    )
    met = set()
    for number in (1, 2, 3):
        round_ = league.start_round(pairs=pairs)
        for table in round_["tables"]:
            seats = {s["seat"]: s["player"] for s in table["seats"]}
            key = frozenset((table["pairs"]["A"]["id"], table["pairs"]["B"]["id"]))
            assert key not in met, "a rematch while others were possible"
            met.add(key)
            # partners sit opposite
            pair_a = next(
                p
                for p in league.org_api.get(league.season_url()).json()["pairs"]
                if p["id"] == table["pairs"]["A"]["id"]
            )
            assert {seats[1], seats[3]} == {p["username"] for p in pair_a["players"]}
        league.play_round(number)
    rows = league.org_api.get(league.season_url("/standings")).json()["results"]
    assert len(rows) == 4 and all("pair" in r for r in rows)
    assert sum(r["played"] for r in rows) == 12


# -- the rated-seat rule -----------------------------------------------------------------------
def test_rated_table_one_seat_per_person():
    owner = new_member()
    bot, other = new_bot(owner), new_member()
    api = client_for(owner)
    two_seats = {
        "seats": {"1": "human", "2": "human", "3": "human", "4": "human"},
        "join": [1, 2],
        "rated": True,
    }
    before = Table.objects.count()
    error(api.post("/api/tables", two_seats, format="json"), 409, "one_seat_per_player")
    own_bot = {
        "seats": {"1": "human", "2": "bot", "3": "human", "4": "human"},
        "join": [1],
        "bots": {"2": bot.username},
        "rated": True,
    }
    error(api.post("/api/tables", own_bot, format="json"), 409, "one_seat_per_player")
    assert Table.objects.count() == before
    # The join hole: the owner sits at 1, then tries seat 4 and their bot tries seat 2.
    body = {
        "seats": {"1": "human", "2": "bot", "3": "human", "4": "human"},
        "join": [1],
        "rated": True,
    }
    code = api.post("/api/tables", body, format="json").json()["code"]
    error(
        api.post(f"/api/tables/{code}/join", {"seat": 4}, format="json"), 409, "one_seat_per_player"
    )
    error(
        client_for(bot).post(f"/api/tables/{code}/join", {"seat": 2}, format="json"),
        409,
        "one_seat_per_player",
    )
    assert (
        client_for(other).post(f"/api/tables/{code}/join", {"seat": 3}, format="json").status_code
        == 200
    )
    # Another member's bot may not seat itself through /join (casual tables too).
    stranger_bot = new_bot(other)
    casual = api.post(
        "/api/tables",
        {"seats": {"1": "human", "2": "bot", "3": "bot", "4": "bot"}, "join": [1]},
        format="json",
    ).json()["code"]
    error(
        client_for(stranger_bot).post(f"/api/tables/{casual}/join", {"seat": 2}, format="json"),
        403,
        "permission_denied",
    )
    house = new_bot(None)
    assert (
        client_for(house).post(f"/api/tables/{casual}/join", {"seat": 2}, format="json").status_code
        == 200
    )
    # A casual table still lets one person take several seats (pass-and-play).
    assert api.post("/api/tables", {**two_seats, "rated": False}, format="json").status_code == 201


def test_a_seated_player_asking_a_table_command_at_a_league_table_gets_not_allowed_in_rated():
    """docs/league.md: rated tables refuse undo, redo, restart and new match with the
    engine's 409 not_allowed_in_rated, whoever asks (the organizer owns the table, so the
    owner check used to answer first with 403 permission_denied)."""
    league = League(members=4)
    league.start_round()
    match = LeagueMatch.objects.get(season_id=league.season)
    seat = match.seats.get(number=1)
    api = client_for(seat.player)
    url = f"/api/tables/{match.table.code}/seats/1"
    before = list(match.table.events.values_list("seq", flat=True))
    version = api.get(url).json()["version"]
    for command in ("undo", "redo", "restart_hand", "new_match"):
        answer = api.post(
            url + "/actions", {"type": command, "expected_version": version}, format="json"
        )
        error(answer, 409, "not_allowed_in_rated")
    assert list(match.table.events.values_list("seq", flat=True)) == before  # nothing written


# -- pagination ------------------------------------------------------------------------------
def test_every_list_reads_page_and_page_size_alike():
    """One parser: page_size 1-200 (else 400 validation_error, never quietly clamped), page
    a number of 1 or more (else 400), a page past the end 404 bad_page."""
    league = League(members=4)
    league.start_round()
    club, season = "/api/clubs/{slug}", "/api/clubs/{slug}/seasons/{season_id}"
    lists = {
        "/api/clubs": "/api/clubs",
        "/api/matches": "/api/matches",
        club + "/members": league.url("/members"),
        club + "/invites": league.url("/invites"),
        club + "/seasons": league.url("/seasons"),
        club + "/ratings": league.url("/ratings"),
        club + "/hosted-players": league.url("/hosted-players"),
        club + "/log": league.url("/log"),
        season + "/standings": league.season_url("/standings"),
        season + "/rounds": league.season_url("/rounds"),
        season + "/rounds/{number}/tables": league.season_url("/rounds/1/tables"),
        "/api/ladder": "/api/ladder",
        "/api/ladder/matches": "/api/ladder/matches",
    }
    schema = league.org_api.get("/api/schema/", {"format": "json"}).json()
    paged = {
        path
        for path, operations in schema["paths"].items()
        if any(p["name"] == "page_size" for p in operations.get("get", {}).get("parameters", []))
    }
    assert paged == set(lists)  # every paginated list of the API is tried here
    lists = list(lists.values())
    for url in lists:
        assert league.org_api.get(url, {"page_size": 200}).status_code == 200, url
        for bad in ({"page_size": 201}, {"page_size": 0}, {"page_size": "x"}, {"page": 0}):
            error(league.org_api.get(url, bad), 400, "validation_error")
        error(league.org_api.get(url, {"page": 99}), 404, "bad_page")
    one = league.org_api.get(league.url("/members"), {"page_size": 1}).json()
    assert len(one["results"]) == 1 and one["count"] == 5 and one["next"]


# -- annul -----------------------------------------------------------------------------------
def test_annul_a_stuck_match(tmp_path):
    league = League(members=8)
    league.start_round()
    stuck, other = list(
        LeagueMatch.objects.filter(season_id=league.season).order_by("table_number")
    )
    play_out(stuck.table, random.Random(1), stop_after=30)
    member_api = client_for(league.members[0])
    error(
        member_api.post(f"/api/matches/{stuck.pk}/annul", {"reason": "gone"}, format="json"),
        403,
        "organizer_only",
    )
    error(
        league.org_api.post(f"/api/matches/{stuck.pk}/annul", {"reason": " "}, format="json"),
        400,
        "validation_error",
    )
    log_before = Event.objects.filter(table=stuck.table).count()
    response = league.org_api.post(
        f"/api/matches/{stuck.pk}/annul", {"reason": "seat 3 left for good"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert (
        response.json()["status"] == "annulled"
        and response.json()["annul_reason"] == "seat 3 left for good"
    )
    events = list(Event.objects.filter(table=stuck.table).order_by("seq"))
    assert len(events) == log_before + 1 and events[-1].type == "annul"
    error(
        league.org_api.post(f"/api/matches/{stuck.pk}/annul", {"reason": "again"}, format="json"),
        409,
        "match_annulled",
    )
    # The table refuses every further action; its seats see nothing to do.
    seat = next(s for s in stuck.table.seats.all())
    view = client_for(seat.player).get(f"/api/tables/{stuck.table.code}/seats/{seat.number}").json()
    assert view["allowed"] == [] and view["table"]["annulled"] is True
    error(
        client_for(seat.player).post(
            f"/api/tables/{stuck.table.code}/seats/{seat.number}/actions",
            {"type": "pause", "expected_version": view["version"]},
            format="json",
        ),
        409,
        "match_annulled",
    )
    # The record still replays (the annul event is not an engine event).
    replay_summary(league.org_api.get(f"/api/matches/{stuck.pk}/record").content.decode(), tmp_path)
    play_out(other.table, random.Random(2))
    # Excluded from standings and ratings, kept in the history, and the round is over.
    rows = league.org_api.get(league.season_url("/standings")).json()["results"]
    assert sum(r["played"] for r in rows) == 4
    assert not RatingPoint.objects.filter(match=stuck).exists()
    listed = league.org_api.get(f"/api/matches?status=annulled&club={league.club.slug}").json()
    assert [m["id"] for m in listed["results"]] == [stuck.pk] and listed["results"][0]["annulled"]
    assert Round.objects.get(season_id=league.season, number=1).status == "finished"
    error(
        league.org_api.post(f"/api/matches/{other.pk}/annul", {"reason": "late"}, format="json"),
        409,
        "match_over",
    )


# -- projections ------------------------------------------------------------------------------
def snapshot() -> dict:
    matches = sorted(
        LeagueMatch.objects.values_list(
            "table_id",
            "status",
            "finished_at",
            "end_seq",
            "winner",
            "score_a",
            "score_b",
            "hands",
            "hands_won_a",
            "hands_won_b",
            "hands_tied",
            "points_a",
            "points_b",
            "dekabes_a",
            "dekabes_b",
            "annul_reason",
        )
    )
    standings = sorted(
        StandingRow.objects.values_list(
            "season_id",
            "position",
            "player_id",
            "pair_id",
            "played",
            "wins",
            "byes",
            "hands_won",
            "hands_lost",
            "points",
            "dekabes",
            "ties",
        )
    )
    ratings = sorted(
        Rating.objects.values_list("club_id", "player_id", "mu", "sigma", "ordinal", "matches")
    )
    history = list(
        RatingPoint.objects.order_by("id").values_list(
            "club_id", "player_id", "match__table_id", "mu", "sigma", "ordinal"
        )
    )
    rounds = sorted(Round.objects.values_list("id", "status"))
    return {
        "matches": matches,
        "standings": standings,
        "ratings": ratings,
        "history": history,
        "rounds": rounds,
    }


def test_rebuild_gives_identical_projections():
    league = League(members=9)
    for number in (1, 2, 3):
        league.start_round()
        league.play_round(number, seed=number * 100)
    league.start_round()
    first = LeagueMatch.objects.filter(season_id=league.season, round__number=4).first()
    play_out(first.table, random.Random(9), stop_after=20)
    league.org_api.post(f"/api/matches/{first.pk}/annul", {"reason": "test"}, format="json")
    casual = (
        client_for(league.members[0])
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
    play_out(Table.objects.get(code=casual), random.Random(3))
    before = snapshot()
    assert len(before["history"]) == 4 * 6 and before["standings"]
    rebuild()
    assert snapshot() == before
    projection.forget()
    out = subprocess.run(
        [sys.executable, "manage.py", "rebuild_league"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=_same_database_env(),
    )
    assert out.returncode == 0, out.stderr
    assert snapshot() == before


def _same_database_env() -> dict:
    import os

    from django.conf import settings
    from django.db import connection

    env = dict(os.environ)
    db = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        env["DEKABES_SQLITE_PATH"] = str(db["NAME"])
    else:
        env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    return env


def test_casual_history_only_to_its_players_and_pagination():
    player, stranger = new_member("p"), new_member("s")
    api = client_for(player)
    for n in range(3):
        code = api.post(
            "/api/tables",
            {
                "seats": {"1": "human", "2": "human", "3": "human", "4": "human"},
                "join": [1, 2, 3, 4],
            },
            format="json",
        ).json()["code"]
        play_out(Table.objects.get(code=code), random.Random(n))
    mine = api.get(f"/api/matches?player={player.username}&page_size=2").json()
    assert mine["count"] == 3 and len(mine["results"]) == 2 and mine["next"]
    page2 = api.get(f"/api/matches?player={player.username}&page_size=2&page=2").json()
    assert len(page2["results"]) == 1 and page2["previous"]
    ids = {m["id"] for m in mine["results"]} | {m["id"] for m in page2["results"]}
    assert len(ids) == 3 and all(m["club"] is None for m in mine["results"])
    error(api.get("/api/matches?page=9"), 404, "bad_page")
    error(api.get("/api/matches?page_size=0"), 400, "validation_error")
    error(api.get("/api/matches?since=yesterday"), 400, "validation_error")
    error(api.get("/api/matches?season=x"), 400, "validation_error")
    error(api.get("/api/matches?status=won"), 400, "validation_error")
    assert client_for(stranger).get("/api/matches").json()["count"] == 0
    match_id = next(iter(ids))
    error(client_for(stranger).get(f"/api/matches/{match_id}"), 404, "not_found")
    error(client_for(stranger).get(f"/api/matches/{match_id}/record"), 404, "not_found")
    hands = api.get(f"/api/matches/{match_id}/hands").json()["hands"]
    detail = api.get(f"/api/matches/{match_id}").json()
    assert len(hands) == detail["hands"] and hands[-1]["scores_after"] == detail["score"]
    assert LeagueMatchSeat.objects.filter(match_id=match_id).count() == 4


def test_match_record_replays_to_the_stored_result(tmp_path):
    league = League(members=8)
    league.start_round()
    league.play_round(1)
    for match in LeagueMatch.objects.filter(season_id=league.season):
        record = league.org_api.get(f"/api/matches/{match.pk}/record").content.decode()
        summary = replay_summary(record, tmp_path)
        detail = league.org_api.get(f"/api/matches/{match.pk}").json()
        assert summary["phase"] == "match_over" and summary["scores"] == detail["score"]
        assert summary["winner"] == detail["winner"] and len(summary["results"]) == detail["hands"]


def test_a_casual_table_that_plays_on_keeps_its_first_match_in_the_history():
    player = new_member("p")
    api = client_for(player)
    code = api.post(
        "/api/tables",
        {"seats": {"1": "human", "2": "human", "3": "human", "4": "human"}, "join": [1, 2, 3, 4]},
        format="json",
    ).json()["code"]
    table = Table.objects.get(code=code)
    play_out(table, random.Random(5))
    first = snapshot()["matches"]
    version = projection.project(table).version
    response = api.post(
        f"/api/tables/{code}/seats/1/actions",
        {"type": "new_match", "expected_version": version},
        format="json",
    )
    assert response.status_code == 200, response.content
    play_out(table, random.Random(6))
    assert snapshot()["matches"] == first
    rebuild()
    assert snapshot()["matches"] == first
