"""The player pages in-process: the defects of issue #21, my next table, the public
round page, the cross-table, the ratings leaderboard and the live version endpoint."""

from __future__ import annotations

import logging
import re

import pytest
from django.template.loader import render_to_string
from django.test import Client

from server.accounts.models import User
from server.league.actions.matches import do_annul
from server.league.actions.rounds import do_create_round
from server.league.actions.seasons import do_create_season, do_register_pair
from server.league.models import LeagueMatch, LeagueMatchSeat, Season
from server.web.selectors.league import rating_chart
from tests.web.league_seed import PASSWORD, seed_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_league():
    return seed_league(members=("ana", "ben", "carl"), rounds=1)


def client(name: str | None) -> Client:
    c = Client()
    if name:
        assert c.login(username=name, password=PASSWORD)
    return c


def seated(match_id: int) -> list[str]:
    return list(
        LeagueMatchSeat.objects.filter(match_id=match_id)
        .order_by("number")
        .values_list("player__username", flat=True)
    )


# -- defects -----------------------------------------------------------------------------------
def test_an_annulled_match_is_not_in_progress_on_the_home_page(small_league):
    lg = small_league
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    do_annul(user=User.objects.get(username=lg["organizer"]), match=match, reason="power cut")
    player = next(n for n in seated(match.pk) if n in lg["members"])
    home = client(player).get("/").content.decode()
    row = home[home.index(match.table.code) :]
    row = row[: row.index("</tr>")]
    assert "annulled" in row and "in progress" not in row


def test_your_tables_are_the_seats_you_hold_not_every_table_an_organizer_started(small_league):
    lg = small_league
    codes = dict(LeagueMatch.objects.values_list("pk", "table__code"))
    organizer_home = client(lg["organizer"]).get("/").content.decode()
    assert not any(code in organizer_home for code in codes.values())
    ana_home = client("ana").get("/").content.decode()
    mine = set(
        LeagueMatchSeat.objects.filter(player__username="ana").values_list("match_id", flat=True)
    )
    for pk, code in codes.items():
        assert (code in ana_home) == (pk in mine)


def test_a_one_point_rating_chart_has_two_different_axis_labels_and_a_centred_point():
    chart = rating_chart([{"ordinal": -1.5, "match": 7}])
    assert f"{chart.low:.1f}" != f"{chart.high:.1f}"
    assert chart.low < -1.5 < chart.high
    assert chart.points[0].y == pytest.approx(chart.height / 2)


def test_error_pages_lead_back_to_the_club_when_it_is_readable(small_league):
    lg = small_league
    refused = client("ben").get(f"/clubs/{lg['club']}/organize")
    assert refused.status_code == 403
    assert f'href="/clubs/{lg["club"]}/" class="back"' in refused.content.decode()
    missing = client("ben").get(f"/clubs/{lg['club']}/standings?season=987654")
    assert missing.status_code == 404
    assert f'href="/clubs/{lg["club"]}/" class="back"' in missing.content.decode()
    hidden = client("zed").get(f"/clubs/{lg['members_club']}/")
    body = hidden.content.decode()
    assert hidden.status_code == 404 and 'href="/" class="back"' in body
    assert lg["members_club"] not in body.replace(hidden.wsgi_request.path, "")


def test_fill_in_bots_and_pair_names_are_shown(small_league):
    lg = small_league
    match = LeagueMatch.objects.get(pk=lg["finished"][0])
    LeagueMatchSeat.objects.filter(match=match, player__username=lg["house_bot"]).update(
        filler=True
    )
    for path in ("/matches/", f"/matches/{match.pk}", f"/clubs/{lg['club']}/"):
        assert "fill-in bot" in client(None).get(path).content.decode(), path
    row = {
        "id": 1,
        "status": "finished",
        "rated": True,
        "score": {"A": 10, "B": 3},
        "seats": [
            {"seat": n, "team": "AB"[(n - 1) % 2], "player": f"p{n}", "is_bot": False}
            for n in (1, 2, 3, 4)
        ],
        "pairs": {"A": {"id": 1, "name": "The Owls"}, "B": {"id": 2, "name": "Night Crew"}},
        "club": None,
        "season": None,
    }
    html = render_to_string("web/match_rows.html", {"rows": [row]})
    assert "The Owls" in html and "Night Crew" in html


def test_a_pairs_round_page_checks_pairs_in(small_league):
    lg = small_league
    organizer = User.objects.get(username=lg["organizer"])
    club = Season.objects.get(pk=lg["season"]).club
    season = do_create_season(user=organizer, club=club, name="Duos", format="pairs")
    do_register_pair(user=organizer, season=season, name="Owls", player_1="ana", player_2="ben")
    round_ = do_create_round(user=organizer, season=season)
    page = client(lg["organizer"]).get(
        f"/clubs/{club.slug}/seasons/{season.pk}/rounds/{round_.number}"
    )
    body = page.content.decode()
    assert "Check pairs in" in body and "Check players in" not in body and "Owls" in body
    cross = client(None).get(f"/clubs/{club.slug}/seasons/{season.pk}/crosstable")
    assert cross.status_code == 200 and "No round played yet." in cross.content.decode()


def test_a_refused_name_does_not_repeat_the_help_text():
    page = client(None).post("/register", {"username": "a b", "password": PASSWORD})
    body = page.content.decode()
    assert body.count("3 to 40 letters, digits or . _ -") == 1
    assert "This name cannot be used." in body


def test_an_ordinary_403_is_one_log_line_without_traceback(small_league, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert client("ben").get(f"/clubs/{small_league['club']}/organize").status_code == 403
    records = [r for r in caplog.records if r.name == "django.request"]
    assert records and all(r.exc_info is None and r.exc_text is None for r in records)
    assert all("Traceback" not in caplog.text for _ in records)


def test_every_page_sends_a_content_security_policy_and_has_nothing_inline(small_league):
    lg = small_league
    paths = [
        "/",
        "/signin",
        "/register",
        f"/clubs/{lg['club']}/",
        f"/clubs/{lg['club']}/standings",
        f"/players/{lg['members'][0]}",
        "/matches/",
        f"/matches/{lg['finished'][0]}",
        f"/matches/{lg['playing'][0]}",
        "/clubs/nowhere/",
    ]
    for path in paths:
        page = client(lg["organizer"]).get(path)
        policy = page["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy
        assert "unsafe-inline" not in policy
        body = page.content.decode()
        assert not re.search(r"\sstyle=", body), path
        assert not re.search(r"\son[a-z]+=", body), path
        for script in re.findall(r"<script\b[^>]*>", body):
            assert "src=" in script or 'type="application/json"' in script, (path, script)


# -- my next table -----------------------------------------------------------------------------
def test_my_next_table_names_club_round_code_seat_seating_and_play_now(small_league):
    lg = small_league
    match = LeagueMatch.objects.select_related("table", "round").get(pk=lg["playing"][0])
    seat = LeagueMatchSeat.objects.get(match=match, player__username="ana")
    body = client("ana").get("/").content.decode()
    start = body.index('id="next-table"')
    section = body[start : body.index("</section>", start)]
    assert match.table.code in section and "Riverside Dominoes" in section
    assert f"Round {match.round.number}" in section
    assert f"You sit at seat {seat.number} (team {seat.team})" in section
    for name in seated(match.pk):
        assert name in section
    # Play now leads to the browser table; the app is offered beside it, with no command.
    assert f'href="/tables/{match.table.code}/play"' in section
    assert f'href="/download/?table={match.table.code}"' in section
    assert "python -m" not in section and "DEKABES_TOKEN" not in section
    # No seat in a round in progress: the page says so.
    body = client(lg["organizer"]).get("/").content.decode()
    assert "No table waits for you" in body


# -- the public round page and the cross-table -------------------------------------------------
def round_path(lg, number=None) -> str:
    return f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{number or lg['live_round']}"


def test_the_round_page_is_public_with_seats_codes_scores_and_no_forms(small_league):
    lg = small_league
    for who in (None, "zed", "ben"):
        page = client(who).get(round_path(lg))
        body = page.content.decode()
        assert page.status_code == 200
        for match in LeagueMatch.objects.filter(pk__in=lg["playing"]).select_related("table"):
            assert match.table.code in body and f'data-match="{match.pk}"' in body
        assert (
            "Start the round" not in body
            and "csrfmiddlewaretoken" not in body.split("<main", 1)[1].split("</main>")[0]
        )
    organizer = client(lg["organizer"])
    new_round = do_create_round(
        user=User.objects.get(username=lg["organizer"]), season=Season.objects.get(pk=lg["season"])
    )
    assert "Start the round" in organizer.get(round_path(lg, new_round.number)).content.decode()
    assert (
        "Start the round"
        not in client("ben").get(round_path(lg, new_round.number)).content.decode()
    )
    # Writing stays the organizers': a member is refused, a visitor sent to sign in.
    assert (
        client("ben").post(round_path(lg, new_round.number), {"action": "start"}).status_code == 403
    )
    assert (
        client(None).post(round_path(lg, new_round.number), {"action": "start"}).status_code == 302
    )
    assert LeagueMatch.objects.filter(round=new_round).count() == 0


def test_a_members_club_round_page_is_the_404_of_an_unknown_club(small_league):
    lg = small_league
    for who in (None, "zed"):
        page = client(who).get(f"/clubs/{lg['members_club']}/seasons/1/rounds/1")
        unknown = client(who).get("/clubs/no-such-club/seasons/1/rounds/1")
        assert page.status_code == unknown.status_code == 404
    assert client(None).get(f"/clubs/{lg['members_club']}/ratings").status_code == 404
    assert client(None).get(f"/clubs/{lg['members_club']}/live").status_code == 404


def test_the_cross_table_has_each_player_s_result_in_each_round(small_league):
    lg = small_league
    body = client(None).get(f"/clubs/{lg['club']}/seasons/{lg['season']}/crosstable")
    assert body.status_code == 200
    html = body.content.decode()
    from server.web.selectors.league import cross_table

    table = cross_table(Season.objects.get(pk=lg["season"]), None)
    assert len(table.rounds) == 2 and {r.name for r in table.rows} == {
        *lg["members"],
        lg["house_bot"],
    }
    for r in table.rows:
        first, live = r.cells
        m = LeagueMatch.objects.get(pk=first.match)
        mine = LeagueMatchSeat.objects.get(match=m, player__username=r.name)
        assert first.kind == ("won" if m.winner == mine.team else "lost")
        assert (first.mine, first.theirs) == (
            (m.score_a, m.score_b) if mine.team == "A" else (m.score_b, m.score_a)
        )
        assert live.kind == "playing" and live.match in lg["playing"]
        assert f"/matches/{first.match}" in html


def test_the_ratings_leaderboard_is_ordered_with_matches_trend_and_bots(small_league):
    lg = small_league
    page = client(None).get(f"/clubs/{lg['club']}/ratings")
    html = page.content.decode()
    assert page.status_code == 200
    from server.league.models import Rating

    ratings = list(Rating.objects.filter(club__slug=lg["club"]).order_by("-ordinal", "player_id"))
    order = re.findall(r'<tr data-player="([^"]+)"', html)
    assert order == [r.player.username for r in ratings]
    bot_row = html[html.index(f'data-player="{lg["house_bot"]}"') :]
    assert "tag bot" in bot_row[: bot_row.index("</tr>")]
    assert "new" in html  # one rated match each: no trend yet
    from server.web.selectors.league import leaderboard

    rows = leaderboard(ratings[0].club)
    assert [r.matches for r in rows] == [r.matches for r in ratings]


# -- live versions -------------------------------------------------------------------------------
def test_the_club_version_grows_when_a_match_ends_and_long_polls_wait(small_league):
    lg = small_league
    live = f"/clubs/{lg['club']}/live"
    before = client(None).get(live).json()["version"]
    waited = client(None).get(live, {"after": before, "wait": "0.3"})
    assert waited.status_code == 200 and waited.json() == {"version": before}
    assert waited["Cache-Control"] == "no-store"
    match = LeagueMatch.objects.select_related("table").get(pk=lg["playing"][0])
    do_annul(user=User.objects.get(username=lg["organizer"]), match=match, reason="x")
    after = client(None).get(live, {"after": before, "wait": "5"}).json()["version"]
    assert after == before + 1
    assert client(None).get(live, {"wait": "x"}).status_code == 400
    page = client(None).get(f"/clubs/{lg['club']}/").content.decode()
    assert f'data-live="{live}" data-live-version="{after}"' in page


def test_the_home_version_is_the_account_s_league_tables_version(small_league):
    from server.league.selectors import league_tables_version

    assert client(None).get("/me/live").status_code == 401
    ana = User.objects.get(username="ana")
    assert client("ana").get("/me/live").json() == {"version": league_tables_version(ana)}


def test_anonymous_long_polls_share_a_cap(small_league, settings):
    settings.DEKABES_MAX_ANONYMOUS_LONG_POLLS = 0
    live = f"/clubs/{small_league['club']}/live"
    now = client(None).get(live).json()["version"]
    refused = client(None).get(live, {"after": now, "wait": "1"})
    assert refused.status_code == 429 and refused["Retry-After"]
    assert refused.json()["code"] == "too_many_long_polls"
