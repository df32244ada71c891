"""The web pages in Debian's Chromium against a live Daphne (Playwright for Python)."""

from __future__ import annotations

import re

import pytest

from engine import Match, load_record
from tests.web.browser import PHONE, horizontal_overflow, screenshot
from tests.web.conftest import sign_in

pytestmark = pytest.mark.timeout(600)


def test_sign_in_shows_the_member_and_sign_out_forgets_them(web_club, open_page):
    page = open_page()
    page.goto(web_club.url + "/")
    screenshot(page, "home-visitor")
    sign_in(page, web_club.url, web_club.owner)
    assert page.inner_text(".site-nav .who") == web_club.owner
    assert page.locator(f'a[href="/tables/{web_club.finished.code}/replay"]').count() == 1
    screenshot(page, "home-member")
    page.click(".site-nav form button")
    page.wait_for_selector('.site-nav a[href="/signin"]')
    assert page.locator(".site-nav .who").count() == 0


def test_a_wrong_password_is_refused_with_a_message(web_club, open_page):
    page = open_page()
    page.goto(web_club.url + "/signin")
    page.fill("input[name=username]", web_club.owner)
    page.fill("input[name=password]", "not the password at all")
    page.click("form.stack button[type=submit]")
    page.wait_for_selector(".errors")
    assert "Wrong name or password" in page.inner_text(".errors")
    assert page.locator(".site-nav .who").count() == 0


def test_replay_steps_to_the_end_with_the_keyboard_and_shows_the_record_s_final_score(
    web_club, open_page
):
    record = web_club.finished.owner.record(web_club.finished.code)
    events = load_record(record)
    final = Match.from_events(events).summary()
    page = open_page()
    sign_in(page, web_club.url, web_club.owner)
    page.goto(f"{web_club.url}/tables/{web_club.finished.code}/replay")
    root = page.locator("#replay")
    assert int(root.get_attribute("data-steps")) == len(events)
    assert root.get_attribute("data-step") == "1"
    screenshot(page, "replay-start")
    for _ in range(len(events) - 1):
        page.keyboard.press("ArrowRight")
    assert root.get_attribute("data-step") == str(len(events))
    assert page.inner_text("#score-A") == str(final["scores"]["A"])
    assert page.inner_text("#score-B") == str(final["scores"]["B"])
    assert page.locator('[data-go="next"]').is_disabled()
    screenshot(page, "replay-end")
    page.keyboard.press("ArrowLeft")
    assert root.get_attribute("data-step") == str(len(events) - 1)
    page.keyboard.press("Home")
    assert root.get_attribute("data-step") == "1"
    page.keyboard.press("End")
    assert root.get_attribute("data-step") == str(len(events))


def test_the_board_after_each_hand_s_last_play_is_the_engine_s(web_club, open_page):
    events = load_record(web_club.finished.owner.record(web_club.finished.code))
    page = open_page()
    sign_in(page, web_club.url, web_club.owner)
    page.goto(f"{web_club.url}/tables/{web_club.finished.code}/replay")
    jumps = page.locator("[data-jump]")
    assert jumps.count() >= 1
    for index in range(jumps.count()):
        end_step = int(jumps.nth(index).get_attribute("data-jump"))
        jumps.nth(index).click()
        engine = Match.from_events(events[: end_step + 1]).seat_view(1)["last_hand"]
        line = page.eval_on_selector_all("#line svg.tile", "els => els.map(e => e.dataset.tile)")
        assert line == [f"{t['a']}-{t['b']}" for t in engine["line"]]
        for seat in (1, 2, 3, 4):
            hand = page.eval_on_selector_all(
                f'[data-hand="{seat}"] svg.tile', "els => els.map(e => e.dataset.tile)"
            )
            assert hand == engine["hands"][str(seat)]
        assert not page.locator(f'[data-result="{index}"]').is_hidden()
    screenshot(page, "replay-hand-end")


def test_the_browser_language_chooses_the_page_and_the_switcher_changes_it(web_club, open_page):
    page = open_page(locale="es-ES")
    page.goto(web_club.url + "/")
    assert page.get_attribute("html", "lang") == "es"
    assert page.locator('.site-nav a[href="/signin"]').inner_text() == "Iniciar sesión"
    page.click('.languages button[value="ru"]')
    page.wait_for_selector('html[lang="ru"]')
    assert page.locator('.site-nav a[href="/signin"]').inner_text() == "Войти"
    screenshot(page, "home-russian")
    page.goto(web_club.url + "/register")
    assert page.get_attribute("html", "lang") == "ru"
    page.click('.languages button[value="ms"]')
    page.wait_for_selector('html[lang="ms"]')
    assert page.locator("h1").inner_text() == "Daftar"


def test_404_and_403_are_pages_in_the_site_s_style(web_club, open_page):
    page = open_page()
    response = page.goto(web_club.url + "/no/such/page")
    assert response.status == 404
    assert (
        page.locator(".site-header").is_visible()
        and page.locator(".error-page .status").inner_text() == "404"
    )
    screenshot(page, "error-404")
    # A form whose CSRF token was tampered with is refused with the site's 403 page.
    page.goto(web_club.url + "/signin")
    page.eval_on_selector(
        "form.stack input[name=csrfmiddlewaretoken]", "e => e.value = 'x'.repeat(64)"
    )
    page.fill("input[name=username]", web_club.owner)
    page.fill("input[name=password]", "whatever it is")
    with page.expect_response(
        lambda r: r.url.endswith("/signin") and r.request.method == "POST"
    ) as info:
        page.click("form.stack button[type=submit]")
    assert info.value.status == 403
    assert page.locator(".error-page .status").inner_text() == "403"
    assert "Traceback" not in page.content()
    screenshot(page, "error-403")


def test_a_stranger_finds_nothing_of_another_member_s_table(web_club, open_page):
    page = open_page()
    sign_in(page, web_club.url, web_club.stranger)
    for path in (
        f"/tables/{web_club.finished.code}/replay",
        f"/tables/{web_club.live.code}/replay",
    ):
        response = page.goto(web_club.url + path)
        assert response.status == 404
        assert page.locator("svg.tile").count() == 0


def test_a_live_match_shows_its_score_and_no_tile(web_club, open_page):
    page = open_page()
    sign_in(page, web_club.url, web_club.owner)
    page.goto(f"{web_club.url}/tables/{web_club.live.code}/replay")
    assert page.locator("svg.tile").count() == 0
    assert not re.search(r"(?<![\d.-])[0-6]-[0-6](?![\d-])", page.inner_text("body"))
    assert page.locator(".live-score").is_visible()


@pytest.mark.parametrize("path", ["/", "/signin", "/register", "/no/such/page", "replay"])
def test_pages_fit_a_phone_without_horizontal_overflow(web_club, open_page, path):
    page = open_page(viewport=PHONE)
    sign_in(page, web_club.url, web_club.owner)
    target = f"/tables/{web_club.finished.code}/replay" if path == "replay" else path
    page.goto(web_club.url + target)
    if path == "replay":
        page.keyboard.press("End")
    assert horizontal_overflow(page) == 0
    if path in ("/", "replay"):
        screenshot(page, "phone-" + ("home" if path == "/" else "replay"))
