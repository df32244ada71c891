"""The league's pages in Chromium against a live server whose league was seeded through
the league's services (tests/web/league_seed.py)."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
import requests

from engine import Match, load_record
from tests.web.browser import PHONE, horizontal_overflow, screenshot
from tests.web.conftest import sign_in

pytestmark = pytest.mark.timeout(900)


def api(url: str, path: str, **params):
    response = requests.get(url + path, params=params, timeout=60)
    response.raise_for_status()
    return response


def finished_matches(url: str, **filters) -> list[dict]:
    body = api(url, "/api/matches", status="finished", page_size=200, **filters).json()
    assert body["next"] is None
    return body["results"]


def expected_standings(url: str, season: int) -> dict[str, dict]:
    """Each player's line, computed here from the records alone (engine folds)."""
    lines: dict[str, dict] = defaultdict(
        lambda: dict(played=0, wins=0, hands_won=0, hands_lost=0, points=0, dekabes=0, ties=0)
    )
    for m in finished_matches(url, season=season):
        record = load_record(api(url, f"/api/matches/{m['id']}/record").text)
        fold = Match.from_events(record)
        winner = fold.summary()["winner"]
        for seat in m["seats"]:
            team, line = seat["team"], lines[seat["player"]]
            line["played"] += 1
            line["wins"] += winner == team
            for hand in fold.results:
                line["hands_won"] += hand["team"] == team
                line["hands_lost"] += hand["team"] not in (team, None)
                line["points"] += hand["points"] if hand["team"] == team else 0
                line["dekabes"] += hand["dekabes"] and hand["team"] == team
                line["ties"] += hand["result"] == "tie"
    return lines


def cells(page, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        selector, "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText.trim()))"
    )


def test_sign_in_club_standings_player_chart_and_a_replay_to_the_end(web_club, open_page):
    lg, url = web_club.league, web_club.url
    page = open_page()
    sign_in(page, url, lg["members"][0])
    page.click(f'a[href="/clubs/{lg["club"]}/"]')
    page.wait_for_selector("h1")
    assert page.locator(".live-round tbody tr").count() == len(lg["playing"])
    screenshot(page, "club")

    page.click(f'a[href="/clubs/{lg["club"]}/standings"]')
    page.wait_for_selector("table.standings")
    rows = cells(page, "table.standings tbody tr")
    expected = expected_standings(url, lg["season"])
    assert {r[1].split()[0] for r in rows} == set(expected)
    keys = []
    for _position, name, played, wins, _byes, won, lost, points, dekabes, ties, _forfeits in rows:
        name = name.split()[0]
        line = expected[name]
        assert [
            int(played),
            int(wins),
            int(won),
            int(lost),
            int(points),
            int(dekabes),
            int(ties),
        ] == [
            line["played"],
            line["wins"],
            line["hands_won"],
            line["hands_lost"],
            line["points"],
            line["dekabes"],
            line["ties"],
        ], name
        keys.append((line["wins"], line["hands_won"] - line["hands_lost"], line["points"]))
    assert keys == sorted(keys, reverse=True)  # head-to-head only reorders equal keys
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    bot_row = page.locator(f'tr[data-entrant="{lg["house_bot"]}"] .tag.bot')
    assert bot_row.count() == 1
    screenshot(page, "standings")

    player = lg["members"][0]
    page.goto(f"{url}/players/{player}")
    rated = [m for m in finished_matches(url, club=lg["club"], player=player) if m["rated"]]
    assert (
        page.locator(f'figure.rating[data-club="{lg["club"]}"] svg.chart circle').count()
        == len(rated)
        >= 1
    )
    screenshot(page, "player")

    match_id = rated[0]["id"]
    record = load_record(api(url, f"/api/matches/{match_id}/record").text)
    final = Match.from_events(record).summary()["scores"]
    page.goto(f"{url}/matches/{match_id}")
    root = page.locator("#replay")
    assert int(root.get_attribute("data-steps")) == len(record)
    for _ in range(len(record) - 1):
        page.keyboard.press("ArrowRight")
    assert root.get_attribute("data-step") == str(len(record))
    assert (page.inner_text("#score-A"), page.inner_text("#score-B")) == (
        str(final["A"]),
        str(final["B"]),
    )
    screenshot(page, "match-replay")


def test_every_league_replay_hand_ends_on_the_engine_s_board(web_club, open_page):
    url = web_club.url
    page = open_page()
    for m in finished_matches(url, club=web_club.league["club"]):
        record = load_record(api(url, f"/api/matches/{m['id']}/record").text)
        page.goto(f"{url}/matches/{m['id']}")
        assert int(page.locator("#replay").get_attribute("data-steps")) == len(record)
        jumps = page.locator("[data-jump]")
        assert jumps.count() == len(Match.from_events(record).results)
        for index in range(jumps.count()):
            end = int(jumps.nth(index).get_attribute("data-jump"))
            jumps.nth(index).click()
            engine = Match.from_events(record[: end + 1]).seat_view(1)["last_hand"]
            line = page.eval_on_selector_all(
                "#line svg.tile", "els => els.map(e => e.dataset.tile)"
            )
            assert line == [f"{t['a']}-{t['b']}" for t in engine["line"]]


def test_a_live_match_page_shows_the_score_only(web_club, open_page):
    url, lg = web_club.url, web_club.league
    page = open_page()
    sign_in(page, url, lg["members"][0])
    for match_id in lg["playing"]:
        response = page.goto(f"{url}/matches/{match_id}")
        assert response.status == 200
        assert page.locator("svg.tile").count() == 0 and page.locator("#replay-frames").count() == 0
        assert page.locator(".live-score").is_visible()
        assert page.goto(f"{url}/matches/{match_id}/record").status == 409


def test_a_non_member_sees_nothing_of_a_members_club(web_club, open_page):
    url, lg = web_club.url, web_club.league
    page = open_page()
    sign_in(page, url, lg["stranger"])
    page.goto(url + "/")
    assert page.locator(f'a[href="/clubs/{lg["members_club"]}/"]').count() == 0
    for path in (
        f"/clubs/{lg['members_club']}/",
        f"/clubs/{lg['members_club']}/standings",
        f"/clubs/{lg['members_club']}/organize",
    ):
        response = page.goto(url + path)  # what a club that does not exist answers
        assert response.status == 404
        assert page.locator(".error-page .status").inner_text() == "404"
        assert "The Cellar" not in page.content()
    page.goto(f"{url}/matches/?club={lg['members_club']}")
    assert page.locator("table.matches tbody tr").count() == 0
    screenshot(page, "error-members-only")


def test_a_member_cannot_reach_the_organizer_forms(web_club, open_page):
    url, lg = web_club.url, web_club.league
    page = open_page()
    sign_in(page, url, lg["members"][1])
    page.goto(f"{url}/clubs/{lg['club']}/")
    assert page.locator("a.organize").count() == 0
    assert page.goto(f"{url}/clubs/{lg['club']}/organize").status == 403
    # The round page is public (issue #21), without the organizers' forms.
    assert page.goto(f"{url}/clubs/{lg['club']}/seasons/{lg['season']}/rounds/1").status == 200
    assert page.locator("form.checkin, form.start").count() == 0
    # A forged POST (with a valid CSRF token of the member's session) is refused too.
    page.goto(url + "/")
    token = page.eval_on_selector("input[name=csrfmiddlewaretoken]", "e => e.value")
    before = len(api(url, f"/api/clubs/{lg['club']}/seasons").json()["results"])
    for path, form in (
        (f"/clubs/{lg['club']}/organize/season", {"name": "Mine", "format": "individual"}),
        (f"/clubs/{lg['club']}/organize/invite", {}),
        (f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds", {}),
        (f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/1", {"action": "start"}),
    ):
        response = page.request.post(
            url + path, form={"csrfmiddlewaretoken": token, **form}, headers={"Referer": url + "/"}
        )
        assert response.status == 403, path
    assert len(api(url, f"/api/clubs/{lg['club']}/seasons").json()["results"]) == before
    match_id = lg["playing"][0]
    page.goto(f"{url}/matches/{match_id}")
    assert page.locator("form.annul").count() == 0
    response = page.request.post(
        f"{url}/matches/{match_id}/annul",
        form={"csrfmiddlewaretoken": token, "reason": "no"},
        headers={"Referer": url + "/"},
    )
    assert response.status == 403
    assert api(url, f"/api/matches/{match_id}").json()["status"] == "playing"


def test_organizer_flow_invite_join_season_round_and_annul(web_club, open_page):
    url, lg = web_club.url, web_club.league
    organizer = open_page()
    sign_in(organizer, url, lg["organizer"])
    organizer.goto(f"{url}/clubs/{lg['club']}/organize")
    screenshot(organizer, "organize")
    organizer.check(".invite-form input[name=single_use]")
    organizer.click(".invite-form button[type=submit]")
    organizer.wait_for_selector("table.invites tbody tr .tag")
    code = organizer.locator("table.invites tbody tr").first.locator("code").inner_text()

    newcomer = open_page()
    newcomer.goto(url + "/register")
    newcomer.fill("input[name=username]", "nina")
    newcomer.fill("input[name=password]", "another long password 7")
    newcomer.click("form.stack button[type=submit]")
    newcomer.wait_for_selector(".site-nav .who")
    newcomer.fill(".inline-form input[name=club]", lg["club"])
    newcomer.fill(".inline-form input[name=code]", code)
    newcomer.click(".inline-form button[type=submit]")
    newcomer.wait_for_selector(".members")
    assert newcomer.locator('.members a[href="/players/nina"]').count() == 1

    organizer.goto(f"{url}/clubs/{lg['club']}/organize")
    organizer.fill(".season-form input[name=name]", "Winter")
    organizer.select_option(".season-form select[name=format]", "individual")
    organizer.click(".season-form button[type=submit]")
    organizer.wait_for_selector("form.season-edit")  # the new season's own page
    assert "Winter" in organizer.inner_text("h1")
    season_id = int(re.search(r"/seasons/(\d+)/", organizer.url).group(1))

    organizer.goto(f"{url}/clubs/{lg['club']}/organize")
    organizer.click(f'.season[data-season="{season_id}"] button.new-round')
    organizer.wait_for_selector("form.checkin")
    present = ["nina"] + lg["members"][:3]
    for name in present:
        organizer.check(f'form.checkin input[value="{name}"]')
    organizer.click("form.checkin button[type=submit]")
    organizer.wait_for_selector("form.start")
    assert "4" in organizer.inner_text("form.start p")
    screenshot(organizer, "round-checkin")
    organizer.click("form.start button[type=submit]")
    organizer.wait_for_selector("form.confirm-form")  # a second step names what happens
    organizer.click("form.confirm-form button[type=submit]")
    organizer.wait_for_selector('.round-status[data-status="started"]')
    rows = organizer.locator(".round-table")
    assert rows.count() == 1
    seated = set(
        organizer.eval_on_selector_all(
            ".round-table a[href^='/players/']", "els => els.map(e => e.innerText)"
        )
    )
    assert seated == set(present)
    new_match = int(rows.first.get_attribute("data-match"))

    organizer.goto(f"{url}/matches/{new_match}")
    organizer.fill("form.annul textarea[name=reason]", "Nina had to leave")
    organizer.click("form.annul button[type=submit]")
    organizer.wait_for_selector("form.confirm-form")
    organizer.click("form.confirm-form button[type=submit]")
    organizer.wait_for_selector(".tag.annulled")
    assert "Nina had to leave" in organizer.inner_text("main")
    assert api(url, f"/api/matches/{new_match}").json()["status"] == "annulled"
    screenshot(organizer, "match-annulled")


@pytest.mark.parametrize("name", ["club", "standings", "player", "matches", "match", "organize"])
def test_league_pages_fit_a_phone(web_club, open_page, name):
    lg, url = web_club.league, web_club.url
    paths = {
        "club": f"/clubs/{lg['club']}/",
        "standings": f"/clubs/{lg['club']}/standings?season={lg['season']}",
        "player": f"/players/{lg['members'][0]}",
        "matches": "/matches/",
        "match": f"/matches/{lg['finished'][0]}",
        "organize": f"/clubs/{lg['club']}/organize",
    }
    page = open_page(viewport=PHONE)
    sign_in(page, url, lg["organizer"])
    page.goto(url + paths[name])
    assert horizontal_overflow(page) == 0
    if name in ("standings", "match"):
        screenshot(page, f"phone-{name}")


def test_match_list_filters_by_club_and_player(web_club, open_page):
    lg, url = web_club.league, web_club.url
    page = open_page()
    page.goto(f"{url}/matches/?player={lg['members'][2]}")
    shown = {
        int(i)
        for i in page.eval_on_selector_all(
            "table.matches tbody tr", "rows => rows.map(r => r.dataset.match)"
        )
    }
    body = api(url, "/api/matches", player=lg["members"][2], page_size=200).json()
    assert shown == {m["id"] for m in body["results"]} and shown
    page.select_option("select[name=club]", lg["club"])
    page.click(".filters button[type=submit]")
    page.wait_for_url(f"**club={lg['club']}**")
    assert page.locator("table.matches tbody tr").count() == len(shown)
    screenshot(page, "matches")
