"""The organizer's evening without traps (issue #33) in-process: what cannot be undone
asks first, naming what happens; a create form submitted twice makes one thing and the
second submit lands on it; an open round is deleted from its page."""

from __future__ import annotations

import pytest
from django.test import Client

from server.accounts import services as accounts
from server.accounts.models import User
from server.league.actions.rounds import do_create_round
from server.league.actions.seasons import do_create_season
from server.league.models import Club, ClubAction, Invite, LeagueMatch, Round, Season
from tests.web.league_seed import PASSWORD, seed_league

pytestmark = pytest.mark.django_db


def client(name: str | None) -> Client:
    c = Client()
    if name:
        assert c.login(username=name, password=PASSWORD)
    return c


def body(response) -> str:
    return response.content.decode()


def test_a_double_submitted_create_club_makes_one_club_and_both_land_on_it():
    accounts.do_register(username="nora", password=PASSWORD)
    c = client("nora")
    data = {"name": "Harbour", "slug": "", "visibility": "public", "form_token": "t" * 24}
    first = c.post("/clubs/new", data)
    second = c.post("/clubs/new", data)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == "/clubs/harbour/organize"
    assert Club.objects.filter(created_by__username="nora").count() == 1
    # A new form (a new token) is a new attempt: the address is taken now.
    again = c.post("/clubs/new", {**data, "form_token": "u" * 24})
    assert again.status_code == 400 and "This address is taken" in body(again)


def test_every_create_form_of_the_organize_page_makes_one_thing_per_token():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    org = client(lg["organizer"])
    r = f"/clubs/{lg['club']}"
    forms = [
        (f"{r}/organize/season", {"name": "Winter", "format": "individual"}, Season),
        (f"{r}/organize/invite", {}, Invite),
        (f"{r}/invites/new", {"single_use": "on"}, Invite),
    ]
    for n, (path, data, model) in enumerate(forms):
        before = model.objects.count()
        token = {"form_token": f"token-{n}-" + "x" * 16}
        first, second = org.post(path, {**data, **token}), org.post(path, {**data, **token})
        assert first.status_code == second.status_code == 302, path
        assert first["Location"] == second["Location"]
        assert model.objects.count() == before + 1, path
    season = Season.objects.get(name="Winter")
    token = {"form_token": "round-token-" + "x" * 16}
    first = org.post(f"{r}/seasons/{season.pk}/rounds", token)
    second = org.post(f"{r}/seasons/{season.pk}/rounds", token)
    third = org.post(f"{r}/seasons/{season.pk}/rounds")  # an old page: no token
    assert first["Location"] == second["Location"] == third["Location"]
    assert Round.objects.filter(season=season).count() == 1
    # The organize page offers no New round while one is open.
    assert f'action="{r}/seasons/{season.pk}/rounds"' not in body(org.get(f"{r}/organize"))


def test_a_double_submitted_registration_signs_in_the_second_too():
    data = {"username": "rosa", "password": PASSWORD, "form_token": "r" * 24}
    first = Client().post("/register", data)
    second_browser = Client()
    second = second_browser.post("/register", data)
    assert first.status_code == second.status_code == 302
    assert User.objects.filter(username="rosa").count() == 1
    assert "rosa" in body(second_browser.get("/"))  # signed in by the repeat


def test_an_open_round_is_deleted_from_its_page_after_a_confirmation():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    olga = User.objects.get(username=lg["organizer"])
    season = do_create_season(
        user=olga, club=Club.objects.get(slug=lg["club"]), name="W", format="individual"
    )
    round_ = do_create_round(user=olga, season=season)
    page = f"/clubs/{lg['club']}/seasons/{season.pk}/rounds/{round_.number}"
    org = client(lg["organizer"])
    assert "delete-round" in body(org.get(page))
    assert "delete-round" not in body(client("ana").get(page))
    refused = client("ana").post(page + "/delete", {"confirm": "yes"})
    assert refused.status_code == 403 and Round.objects.filter(pk=round_.pk).exists()
    ask = org.post(page + "/delete")
    assert ask.status_code == 200 and f"Delete round {round_.number} of" in body(ask)
    assert Round.objects.filter(pk=round_.pk).exists()
    done = org.post(page + "/delete", {"confirm": "yes"})
    assert done.status_code == 302 and not Round.objects.filter(pk=round_.pk).exists()
    assert ClubAction.objects.filter(verb="round.delete").count() == 1


def test_a_forfeit_asks_first_naming_the_seat_and_the_team():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    Round.objects.filter(pk=match.round_id).update(deadline="2020-01-01T20:00:00Z")
    org = client(lg["organizer"])
    ask = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "gone"})
    assert ask.status_code == 200 and "team B loses it" in body(ask)
    assert 'name="reason" value="gone"' in body(ask)
    match.refresh_from_db()
    assert match.status == "playing"
    refused = client("ana").post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "gone"})
    assert refused.status_code == 403
    done = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "gone", "confirm": "yes"})
    assert done.status_code == 302
    match.refresh_from_db()
    assert match.forfeited_by == "B"


# -- names and time (point 6) -------------------------------------------------------------------
def test_a_display_name_in_any_alphabet_is_shown_and_the_login_rule_is_stated():
    form = body(Client().get("/register"))
    assert "Latin letters a-z (no accents)" in form and 'name="display_name"' in form
    done = Client().post(
        "/register", {"username": "farid", "password": PASSWORD, "display_name": "  Фарид  Ali "}
    )
    assert done.status_code == 302
    assert User.objects.get(username="farid").display_name == "Фарид Ali"
    bad = Client().post(
        "/register", {"username": "bad", "password": PASSWORD, "display_name": "<script>"}
    )
    assert bad.status_code == 200 and not User.objects.filter(username="bad").exists()
    # Changed on its page; the API reads and changes it too.
    farid = client("farid")
    assert farid.post("/me/name", {"display_name": "Añá Nur"}).status_code == 302
    assert User.objects.get(username="farid").display_name == "Añá Nur"
    from tests.league.conftest import client_for

    api = client_for(User.objects.get(username="farid"))
    assert api.get("/api/me").json()["display_name"] == "Añá Nur"
    changed = api.patch("/api/me", {"display_name": "Фарид"}, format="json")
    assert changed.status_code == 200 and changed.json()["display_name"] == "Фарид"
    refused = api.patch("/api/me", {"display_name": "a" * 41}, format="json")
    assert refused.status_code == 400
    assert User.objects.get(username="farid").display_name == "Фарид"


def test_members_and_standings_show_display_names_and_pages_show_club_names():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    User.objects.filter(username="ana").update(display_name="Анна")
    org = client(lg["organizer"])
    assert "Анна" in body(org.get(f"/clubs/{lg['club']}/members"))
    assert "Анна" in body(client(None).get(f"/clubs/{lg['club']}/standings"))
    matches = body(client(None).get("/matches/"))
    assert "Riverside Dominoes" in matches and ">riverside<" not in matches


def test_the_club_time_zone_shows_deadlines_and_expiries_and_reads_typed_times():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    org = client(lg["organizer"])
    edit = org.post(
        f"/clubs/{lg['club']}/edit",
        {"name": "Riverside Dominoes", "visibility": "public", "time_zone": "Asia/Kuala_Lumpur"},
    )
    assert edit.status_code == 302
    assert Club.objects.get(slug=lg["club"]).time_zone == "Asia/Kuala_Lumpur"
    unknown = org.post(
        f"/clubs/{lg['club']}/edit",
        {"name": "Riverside Dominoes", "visibility": "public", "time_zone": "Mars/Olympus"},
    )
    assert unknown.status_code == 400
    page = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    # A time typed on the page is the club's wall clock (UTC+8 all year).
    set_ = org.post(page + "/deadline", {"action": "set", "deadline": "2099-03-01T20:00"})
    assert set_.status_code == 302
    deadline = Round.objects.get(season_id=lg["season"], number=lg["live_round"]).deadline
    assert deadline.isoformat() == "2099-03-01T12:00:00+00:00"
    shown = body(org.get(page))
    assert "2099-03-01 20:00" in shown and 'datetime="2099-03-01T12:00:00+00:00"' in shown
    # A far-off expiry reads as a date, never as a raw ISO string.
    org.post(f"/clubs/{lg['club']}/invites/new", {"expires_at": "9999-12-31T23:59"})
    invites = body(org.get(f"/clubs/{lg['club']}/invites"))
    assert "9999-12-31 23:59" in invites and "9999-12-31T23:59:00+00:00<" not in invites
    # A deadline in the past is refused and changes nothing.
    past = org.post(page + "/deadline", {"action": "set", "deadline": "2020-01-01T20:00"})
    assert past.status_code == 400
    assert Round.objects.get(season_id=lg["season"], number=lg["live_round"]).deadline == deadline


# -- the season form, the round page, exports (points 4, 5, 7) ---------------------------------
def test_the_season_form_offers_duplicate_rounds_and_automatic_substitutes():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    org = client(lg["organizer"])
    form = body(org.get(f"/clubs/{lg['club']}/organize"))
    assert 'name="duplicate"' in form and 'name="auto_substitute_after"' in form
    made = org.post(
        f"/clubs/{lg['club']}/organize/season",
        {"name": "Dup", "format": "individual", "duplicate": "on", "auto_substitute_after": "15"},
    )
    season = Season.objects.get(name="Dup")
    assert (season.duplicate, season.auto_substitute_after) == (True, 15)
    # It lands on the season's own page (pairs, rounds, close).
    assert made["Location"] == f"/clubs/{lg['club']}/seasons/{season.pk}/"


def test_the_round_page_shows_presence_links_watching_and_opens_forms_on_the_absent_seat():
    from server.notices import presence

    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    presence.forget_all()  # table ids repeat from test to test: no lease of an earlier one
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    shown = body(org.get(page))
    assert f'href="/tables/{match.table.code}/watch"' in shown  # each table to watch
    assert f'data-presence="{match.pk}:1"' in shown and "presence.js" in shown
    # Nobody is connected in this test: the forms open, on the first absent seat.
    opened = f'data-match="{match.pk}" id="match-actions-{match.pk}" open>'
    assert f'<details class="match-actions" {opened}' in shown
    assert '<option value="1" selected>' in shown
    club_page = body(client(None).get(f"/clubs/{lg['club']}/"))
    assert f'href="/tables/{match.table.code}/watch"' in club_page
    # The presence the page follows: the organizer's only.
    live = org.get(page + "/presence")
    assert live.status_code == 200 and live.json()["seats"][f"{match.pk}:1"] is False
    assert client("ana").get(page + "/presence").status_code == 403
    assert client(None).get(page + "/presence").status_code == 302


def test_a_duplicate_round_in_play_offers_no_watching_and_links_its_deals():
    from server.league.actions.rounds import do_check_in, do_start_round

    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    olga = User.objects.get(username=lg["organizer"])
    club = Club.objects.get(slug=lg["club"])
    season = do_create_season(user=olga, club=club, name="Dup", format="individual", duplicate=True)
    round_ = do_create_round(user=olga, season=season)
    do_check_in(user=olga, round_=round_, players=["olga", "ana", "ben", "house-1"])
    match = do_start_round(user=olga, round_=round_)[0]
    page = f"/clubs/{club.slug}/seasons/{season.pk}/rounds/{round_.number}"
    shown = body(client("carl").get(page))
    assert f"/tables/{match.table.code}/watch" not in shown
    assert f"{page}/deals" in shown


def test_downloads_are_linked_and_the_standings_csv_names_each_entrants_players():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    standings = body(client(None).get(f"/clubs/{lg['club']}/standings?season={lg['season']}"))
    for link in ("standings.csv?season=", "/records.ndjson", "ratings.csv"):
        assert link in standings, link
    assert "ratings.csv" in body(client(None).get(f"/clubs/{lg['club']}/ratings"))
    text = body(client(None).get(f"/clubs/{lg['club']}/standings.csv?season={lg['season']}"))
    header, *rows = [line.split(",") for line in text.strip().splitlines()]
    assert header[-4:] == ["bot", "player_1", "player_2", "duplicate"]
    house = next(r for r in rows if r[1] == "house-1")
    assert house[-4:] == ["yes", "house-1", "", ""]


def test_an_all_computer_pair_is_a_bot_in_the_standings_csv():
    from server.league.actions.members import do_enter_bot
    from server.league.actions.seasons import do_register_pair
    from server.league.models import StandingRow
    from server.web.pages.exports import standings_rows

    lg = seed_league(members=("ana", "ben", "carl"), rounds=0)
    olga = User.objects.get(username=lg["organizer"])
    club = Club.objects.get(slug=lg["club"])
    accounts.do_create_bot(name="house-2", owner=None)
    do_enter_bot(user=olga, club=club, bot_name="house-2")
    season = do_create_season(user=olga, club=club, name="Duo", format="pairs")
    robots = do_register_pair(
        user=olga, season=season, name="Robots", player_1="house-1", player_2="house-2"
    )
    mixed = do_register_pair(user=olga, season=season, name="Mixed", player_1="ana", player_2="ben")
    StandingRow.objects.create(season=season, position=1, pair=robots)
    StandingRow.objects.create(season=season, position=2, pair=mixed)
    rows = standings_rows(season)
    assert rows[0][1] == "Robots" and rows[0][-4:-1] == ["yes", "house-1", "house-2"]
    assert rows[1][1] == "Mixed" and rows[1][-4:-1] == ["no", "ana", "ben"]
