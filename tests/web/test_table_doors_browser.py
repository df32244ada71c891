"""The ways in to the browser table in Chromium (issue #32), on a 390×844 phone and a
1280 px desktop: "My next table" → Play now reaches the seat's play page; a casual table
against the computer, created from the home page, lands on its play page; a friend takes a
seat from its link (signing in on the way), another joins by the code; no page on the
way shows a command or a token, and none is wider than the phone."""

from __future__ import annotations

import re

import pytest

from tests.web.browser import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.web.conftest import sign_in
from tests.web.league_seed import PASSWORD

pytestmark = pytest.mark.timeout(600)

VIEWPORTS = {"phone": PHONE, "desktop": DESKTOP}
PLAY_URL = re.compile(r".*/tables/([A-Z0-9]+)/play$")


def no_command_nor_token(page) -> None:
    html = page.content()
    for banned in ("python -m", "DEKABES_TOKEN", "Authorization: Token"):
        assert banned not in html, (page.url, banned)


def fits(page, viewport: str) -> None:
    if viewport == "phone":
        assert horizontal_overflow(page) == 0, page.url


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_my_next_table_play_now_reaches_the_play_page(web_club, open_page, viewport):
    page = open_page(viewport=VIEWPORTS[viewport])
    # A member seated at the seeded league's live round (one whose table is still on).
    for name in web_club.league["members"]:
        page.context.clear_cookies()
        sign_in(page, web_club.url, name)
        page.goto(web_club.url + "/")
        if page.locator("#next-table a.play-now").count():
            break
    else:
        raise AssertionError("no member has a table in play")
    no_command_nor_token(page)
    fits(page, viewport)
    code = page.locator("#next-table .next-table").first.get_attribute("data-table")
    card = page.locator(f'#next-table .next-table[data-table="{code}"]')
    assert card.locator("a.desktop-app").get_attribute("href") == f"/download/?table={code}"
    screenshot(page, f"{viewport}-home-play-now")
    # The round page links the member to the same seat.
    page.click(f'#next-table .next-table[data-table="{code}"] a[href*="/rounds/"]')
    page.wait_for_selector(".pairings")
    fits(page, viewport)
    round_play = page.locator(".round-table a.play-now")
    assert round_play.count() == 1 and round_play.get_attribute("href") == f"/tables/{code}/play"
    screenshot(page, f"{viewport}-round-play-now")
    page.go_back()
    card.locator("a.play-now").click()
    page.wait_for_url(PLAY_URL)
    assert PLAY_URL.match(page.url)[1] == code
    no_command_nor_token(page)
    # The desktop app beside it: this server's address filled in, no command. Once the
    # board is drawn: until then the link below it still moves (a click in that moment
    # missed it on a loaded machine).
    page.wait_for_selector("#play[data-state=ready]")
    page.click(".play-doors .desktop-app a")
    page.wait_for_selector(".download-server")
    assert page.inner_text(".download-server") == web_club.url
    no_command_nor_token(page)
    fits(page, viewport)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_a_casual_table_vs_computers_a_seat_by_link_and_one_by_code(web_club, open_page, viewport):
    owner = open_page(viewport=VIEWPORTS[viewport])
    sign_in(owner, web_club.url, web_club.stranger)
    owner.goto(web_club.url + "/")
    owner.click("#casual-play a.new-table")
    owner.wait_for_selector("form.new-table-form")
    fits(owner, viewport)
    owner.select_option("select[name=level]", "greedy")
    owner.check("input[name=seat_3][value=friend]")
    owner.check("input[name=seat_4][value=friend]")
    screenshot(owner, f"{viewport}-new-table")
    owner.click("form.new-table-form button[type=submit]")
    owner.wait_for_url(PLAY_URL)
    code = PLAY_URL.match(owner.url)[1]
    no_command_nor_token(owner)
    fits(owner, viewport)
    owner.wait_for_selector("#play[data-state=ready]")
    names = owner.locator("#board .seat-card .name")
    assert sorted(names.all_inner_texts()) == [
        "Seat 2 · computer-greedy",
        "Seat 3 · free",
        "Seat 4 · free",
    ]
    free = owner.locator('#board .seat-card[data-seat="3"]')
    assert free.locator(".presence").count() == 0  # nobody there to be here or away
    link = owner.locator('.share-links li[data-seat="3"] input.share-link').input_value()
    assert link == f"{web_club.url}/tables/{code}/join?seat=3"
    screenshot(owner, f"{viewport}-play-share")
    owner.context.grant_permissions(["clipboard-read", "clipboard-write"])
    owner.click('.share-links li[data-seat="3"] button.copy')
    owner.wait_for_selector('.share-links li[data-seat="3"] button.copy:text("Copied")')
    assert owner.evaluate("navigator.clipboard.readText()") == link

    # A friend opens the link signed out: signs in on the way and takes seat 3.
    friend = open_page(viewport=VIEWPORTS[viewport])
    friend.goto(link)
    friend.wait_for_selector("input[name=username]")
    friend.fill("input[name=username]", web_club.owner)
    friend.fill("input[name=password]", PASSWORD)
    friend.click("form.stack button[type=submit]")
    friend.wait_for_selector("button.take-offered")
    no_command_nor_token(friend)
    fits(friend, viewport)
    screenshot(friend, f"{viewport}-join-offered")
    friend.click("button.take-offered")
    friend.wait_for_url(PLAY_URL)
    assert PLAY_URL.match(friend.url)[1] == code
    # the owner's table names the friend at once, no reload
    owner.wait_for_function(
        "name => [...document.querySelectorAll('#board .seat-card .name')]"
        ".some(n => n.textContent === 'Seat 3 · ' + name)",
        arg=web_club.owner,
    )

    # Another member types the code on the home page and takes the last free seat.
    third_name = web_club.league["members"][-1]
    third = open_page(viewport=VIEWPORTS[viewport])
    sign_in(third, web_club.url, third_name)
    third.goto(web_club.url + "/")
    third.fill("#table-code", code.lower())
    third.click("form.join-code button[type=submit]")
    third.wait_for_selector(".table-join")
    assert third.locator(".take-seat button").count() == 1  # seat 3 went to the friend
    no_command_nor_token(third)
    fits(third, viewport)
    third.click('.take-seat button[value="4"]')
    third.wait_for_url(PLAY_URL)
    assert PLAY_URL.match(third.url)[1] == code

    # The owner's page now offers no seat; the table is full for anyone else.
    owner.reload()
    assert owner.locator(".share-links").count() == 0


@pytest.mark.parametrize(
    ("locale", "title"),
    [
        ("es-ES", "Mesa nueva contra el ordenador"),
        ("ru-RU", "Новый стол против компьютера"),
        ("ms-MY", "Meja baharu menentang komputer"),
    ],
)
def test_the_ways_in_speak_the_member_s_language_and_fit_a_phone(
    web_club, open_page, locale, title
):
    page = open_page(locale=locale, viewport=PHONE)
    sign_in(page, web_club.url, web_club.stranger)
    page.goto(web_club.url + "/")
    assert page.inner_text("#casual-play a.new-table") == title
    fits(page, "phone")
    page.click("#casual-play a.new-table")
    page.wait_for_selector("form.new-table-form")
    assert page.inner_text("h1") == title
    fits(page, "phone")
    page.check("input[name=seat_2][value=friend]")
    page.click("form.new-table-form button[type=submit]")
    page.wait_for_url(PLAY_URL)
    code = PLAY_URL.match(page.url)[1]
    page.wait_for_selector(".share-links")
    fits(page, "phone")
    screenshot(page, f"phone-play-share-{locale}")
    joiner = open_page(locale=locale, viewport=PHONE)
    sign_in(joiner, web_club.url, web_club.owner)
    joiner.goto(f"{web_club.url}/tables/{code}/join?seat=2")
    joiner.wait_for_selector("button.take-offered")
    assert "2" in joiner.inner_text("button.take-offered")
    fits(joiner, "phone")
    no_command_nor_token(joiner)
