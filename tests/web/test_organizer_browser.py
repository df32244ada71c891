"""A season run from the web pages alone (issue #21), in Chromium against a live server
that starts from an empty database: no API call and no manage.py for the organizing; the
matches themselves are played by scripted players through the SDK.

The organizer registers, creates a club, adds a server-hosted computer player, opens a
season and makes an invite link; seven people register through the link and join; they
mark themselves available; the organizer opens a round, checks in everyone available and
starts it; the tables are played; the organizer closes the season and downloads the
standings CSV, whose rows equal the standings page. Screenshots go to
var/test-artifacts/web/ (and to docs/screenshots/ with DEKABES_UPDATE_SCREENSHOTS=1)
(docs/web.md, "Running a season from the browser").
"""

from __future__ import annotations

import csv
import io
import os
import random
import re
import shutil
from pathlib import Path

import pytest

from clients.sdk import DekabesClient
from tests.web.browser import PHONE, horizontal_overflow, screenshot
from tests.web.seed import PASSWORD

pytestmark = pytest.mark.timeout(900)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PEOPLE = ("amy", "bob", "cai", "dee", "eli", "fay", "gus")


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory):
    from tests.conftest import LiveServer

    server = LiveServer(
        tmp_path_factory.mktemp("organizer-live"),
        env={
            "DEKABES_RATE_LOGIN_ADDRESS": "100000/minute",
            "DEKABES_RATE_LOGIN_NAME": "100000/minute",
            "DEKABES_RATE_REGISTER_ADDRESS": "100000/hour",
        },
    )
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


def shot(page, name: str) -> None:
    made = screenshot(page, name)  # var/test-artifacts/web/
    if os.environ.get("DEKABES_UPDATE_SCREENSHOTS"):  # a test run leaves the tree clean
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(made, DOCS / f"organizer-{name}.png")


def submit(page, form: str, button: str = "button[type=submit]") -> None:
    with page.expect_navigation():
        page.click(f"{form} {button}")


def play_round(url: str, names: list[str], rng: random.Random) -> None:
    """Every seated player's client plays random legal moves until the tables are over
    (the scripted players: each acts only at its own seat, through the SDK)."""
    clients = {}
    seats: dict[str, dict[int, DekabesClient]] = {}
    for name in names:
        c = DekabesClient(url)
        c.login(name, PASSWORD)
        clients[name] = c
        for t in c.league_tables()["tables"]:
            seats.setdefault(t["table"], {})[t["seat"]] = c
    assert seats and all(len(s) == 4 for s in seats.values()), seats
    for code, by_seat in seats.items():
        for _ in range(6000):
            first = by_seat[1].request("GET", f"/api/tables/{code}/seats/1")
            if first["view"]["phase"] == "match_over":
                break
            to_act = first["view"]["to_act"]
            for seat in [to_act] if to_act else [1, 2, 3, 4]:
                body = (
                    first
                    if seat == 1
                    else by_seat[seat].request("GET", f"/api/tables/{code}/seats/{seat}")
                )
                if body["view"]["legal"]:
                    by_seat[seat].send_event(
                        code, rng.choice(body["view"]["legal"]), body["version"]
                    )
                    break
        else:
            raise AssertionError(f"table {code} did not end")


def test_an_organizer_runs_a_season_from_the_web_pages(empty_server, open_page):
    url = empty_server
    org = open_page()
    # Register, then create the club from the home page's link.
    org.goto(url + "/register")
    org.fill("input[name=username]", "olivia")
    org.fill("input[name=password]", PASSWORD)
    submit(org, "form.stack")
    org.click("a.new-club")
    org.fill("input[name=name]", "Harbour Dominoes")
    org.fill("textarea[name=description]", "Friday nights at the harbour.")
    org.check("input[name=visibility][value=public]")
    shot(org, "create-club")
    submit(org, "form.club-form")
    assert org.url == url + "/clubs/harbour-dominoes/organize"

    # A server-hosted computer player, and a season.
    org.select_option("form.hosted-form select[name=level]", "random")
    submit(org, "form.hosted-form")
    assert "harbour-dominoes-random-1" in org.inner_text("ul.hosted")
    org.fill("form.season-form input[name=name]", "Spring")
    org.select_option("form.season-form select[name=format]", "individual")
    org.fill("form.season-form input[name=auto_substitute_after]", "10")  # the API's option
    submit(org, "form.season-form")
    season = int(re.search(r"/seasons/(\d+)/", org.url).group(1))  # the season's page
    org.goto(url + "/clubs/harbour-dominoes/organize")
    org.fill("textarea[name=text]", "First round on Friday at 8.")
    submit(org, "form.announcement-form")

    # An invite link, shared with seven people.
    org.goto(url + "/clubs/harbour-dominoes/invites")
    submit(org, "form.invite-form")
    link = org.input_value("input.invite-link")
    assert link.startswith(url + "/join/harbour-dominoes/")
    shot(org, "invites")
    for n, name in enumerate(PEOPLE):
        page = open_page(viewport=PHONE) if n == 0 else open_page()
        page.goto(link)
        page.fill("form.join-register input[name=username]", name)
        page.fill("form.join-register input[name=password]", PASSWORD)
        if n == 0:
            shot(page, "join-link-phone")
            assert horizontal_overflow(page) == 0
        submit(page, "form.join-register", "button[value=register]")
        assert page.url == url + "/clubs/harbour-dominoes/"
        assert "First round on Friday at 8." in page.inner_text(".announcements")
        # Available for the next round, from the club page.
        submit(page, "section.availability", "button[value=yes]")
        assert page.get_attribute("section.availability", "data-available") == "yes"
        if n == 0:
            shot(page, "club-available-phone")
            assert horizontal_overflow(page) == 0
        page.context.close()
    org.goto(url + "/clubs/harbour-dominoes/")
    submit(org, "section.availability", "button[value=yes]")
    # A visitor's club page stays open while the round starts: it shows the live round
    # without a reload (issue #21 "live without reload": the page's long-poll, site.js;
    # the 2 s figure is tests/web/test_live_browser.py's, here a busy machine's margin).
    watcher = open_page(viewport=PHONE)
    watcher.goto(url + "/clubs/harbour-dominoes/")
    watcher.wait_for_selector("#main[data-live-polling]", state="attached")
    assert watcher.query_selector(".live-round") is None

    # The members page flags the computer player.
    org.goto(url + "/clubs/harbour-dominoes/members")
    assert "hosted" in org.inner_text('tr[data-member="harbour-dominoes-random-1"]')
    shot(org, "members")

    # Open a round, check in everyone available, start.
    org.goto(url + "/clubs/harbour-dominoes/organize")
    submit(org, f'div.season[data-season="{season}"] form', "button.new-round")
    assert org.url.endswith(f"/seasons/{season}/rounds/1")
    assert "(8)" in org.inner_text("form.everyone button")
    submit(org, "form.everyone")
    shot(org, "round-check-in")
    submit(org, "form.start")
    assert "8 players are checked in." in org.inner_text("ul.what-happens")  # asks first
    shot(org, "round-start-confirm")
    submit(org, "form.confirm-form")
    assert org.get_attribute(".round-status", "data-status") == "started"
    watcher.wait_for_selector(".live-round", timeout=10_000)
    shot(watcher, "club-live-round-phone")

    play_round(url, ["olivia", *PEOPLE], random.Random(7))
    org.reload()
    assert org.get_attribute(".round-status", "data-status") == "finished"

    # Close the season, then download the standings CSV from its page.
    org.goto(url + f"/clubs/harbour-dominoes/seasons/{season}/")
    shot(org, "season")
    submit(org, "form.close-season")
    assert "It cannot be undone." in org.inner_text("ul.what-happens")
    submit(org, "form.confirm-form")
    assert f"/clubs/harbour-dominoes/standings?season={season}" in org.url
    rows = org.eval_on_selector_all(
        "table.standings tbody tr",
        "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText.trim()))",
    )
    shot(org, "standings")
    org.goto(url + f"/clubs/harbour-dominoes/seasons/{season}/")
    with org.expect_download() as info:
        org.click(f'a[href="/clubs/harbour-dominoes/standings.csv?season={season}"]')
    text = Path(info.value.path()).read_text(encoding="utf-8")
    data = list(csv.reader(io.StringIO(text)))[1:]
    assert len(rows) == len(data) == 8
    for shown, row in zip(rows, data, strict=True):
        # then bot, the players, and the duplicate figure (empty: not a duplicate season)
        assert [shown[0], shown[1].split()[0], *shown[2:]] == row[:-4] and row[-1] == ""
    # The action log tells the story.
    org.goto(url + "/clubs/harbour-dominoes/log")
    verbs = org.eval_on_selector_all("tr[data-verb]", "rows => rows.map(r => r.dataset.verb)")
    for verb in (
        "club.create",
        "bot.host",
        "invite.create",
        "member.join",
        "round.start",
        "season.close",
    ):
        assert verb in verbs
    shot(org, "action-log")
