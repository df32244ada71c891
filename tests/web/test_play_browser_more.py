# ruff: noqa: F811 -- the fixtures live and open_page are imported from test_play_browser
"""The browser table in Chromium, continued (``test_play_browser.py`` holds the whole
matches; a file of its own so that the suite's processes share them): one hand by
keyboard only, a server restart mid-hand (played to that hand's end), the page live again
as soon as the restarted server answers its kept decision, every stage of a
whole match in four languages with axe, and two seats of one person (one hand). Each file
starts its own server (the module's ``live``)."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from clients.sdk import DekabesClient
from tests.web.browser import (
    OFF_SCREEN,
    PHONE_SCREEN,
    PHONE_SIDEWAYS,
    horizontal_overflow,
    off_screen,
    screenshot,
)
from tests.web.play_driver import (
    Watch,
    check_privacy,
    open_table,
    play_to_the_end,
    step,
    stored_deals,
)
from tests.web.test_play_browser import PHONE_TOUCH, live, open_page, person_page  # noqa: F401 (fixtures)

pytestmark = pytest.mark.timeout(1200)


def test_one_hand_played_with_the_keyboard_only(live, open_page):
    server, casual, _ = live
    code = casual.table("gus", {1: "gus"})
    page = person_page(open_page, server.url, "gus")
    open_table(page, server.url, code)
    page.locator("body").focus()
    page.keyboard.press("a")  # accept the deal
    page.wait_for_function("() => !document.querySelector('#actions [data-action=accept]')")
    for _ in range(400):
        if page.is_visible('#dialog [data-dialog="reveal"]'):
            break
        if page.locator("#hand .tile-button.fits").count():
            page.keyboard.press("ArrowRight")  # the next tile that fits
            if page.evaluate(
                "() => !!document.activeElement.closest('#hand')"
                " && !document.querySelector('#hand .selected')"
            ):
                # focus was kept in the hand (a listbox): there the arrows move along it
                page.keyboard.press("Home")
                for _ in range(7):
                    if page.evaluate("() => document.activeElement.matches('#hand .fits')"):
                        break
                    page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")  # pick it
            page.wait_for_function(
                "() => document.querySelector('#hand .selected')"
                " || !document.querySelector('#hand .fits')"
            )
            if not page.locator("#hand .tile-button.selected").count():
                continue  # the turn had passed already
            if page.locator('#actions [data-action="play-left"]').count():
                page.keyboard.press("ArrowUp")  # the left end
            page.keyboard.press("Enter")
            page.wait_for_function("() => !document.querySelector('#hand .tile-button.selected')")
        else:
            page.wait_for_timeout(50)
    else:
        raise AssertionError("the hand did not end")
    page.keyboard.press("Enter")  # Continue
    page.wait_for_selector("#dialog", state="hidden")


def human_events(client: DekabesClient, code: str, seat: int) -> int:
    """The seat's own actions in the table's log (``by`` human)."""
    count, after = 0, 0
    while True:
        page = client.events(code, seat, after=after)
        if not page["events"]:
            return count
        count += sum(1 for e in page["events"] if e["seat"] == seat and e["by"] == "human")
        after = page["events"][-1]["seq"]


# Tile ``t`` laid on the line: not the ghost the page shows of a decision on its way.
LAID = (
    "t => [...document.querySelectorAll('#line .laid:not(.ghost)')].some(n => n.dataset.tile === t)"
)


def to_our_move(page, rng: random.Random) -> None:
    """Play on (``step``) until it is this page's seat's turn, with a tile that fits and
    tiles on the line, and no decision on its way."""
    while not (
        page.locator("#hand .tile-button.fits").count()
        and page.locator("#line .laid").count()
        and not page.is_visible("#dialog")
        and page.evaluate("!dekabesTable.link.pending")
    ):
        if step(page, rng) is None:
            page.wait_for_timeout(50)


def play_while_down(page, server) -> str:
    """Stop the server, then play a tile that fits: the page keeps the decision to send
    it again ("offline"). The tile played."""
    server.stop()
    page.wait_for_selector('#connection[data-status="lost"]')
    tile = page.locator("#hand .tile-button.fits").first.get_attribute("data-tile")
    page.click(f'#hand [data-tile="{tile}"]')
    page.locator('#actions [data-action^="play"]').first.click()
    page.wait_for_selector('#connection[data-status="offline"]')  # kept, to be sent
    return tile


def test_after_a_server_restart_mid_hand_the_pages_resync_and_nothing_is_sent_twice(
    live, open_page
):
    server, casual, _ = live
    code = casual.table("hana", {1: "hana"})
    page = person_page(open_page, server.url, "hana")
    phone = person_page(open_page, server.url, "hana", **PHONE_TOUCH)
    open_table(page, server.url, code)
    open_table(phone, server.url, code)
    watch = Watch(page, (1,))
    rng = random.Random(11)
    to_our_move(page, rng)
    tile = play_while_down(page, server)
    server.start()
    # A process that has just started folds the table again and the pages retry at most
    # every 4 s: on a busy machine (the whole suite beside other work) that took longer
    # than Playwright's default 30 s once, so these waits allow a minute.
    for each in (page, phone):  # both back, with the move made once
        each.wait_for_function(LAID, arg=tile, timeout=60_000)
        # Live again at once, not at the socket's next attempt (up to 15 s away).
        each.wait_for_selector('#connection[data-status="live"]', timeout=60_000)
    owner = casual.person("hana")
    version = owner.request("GET", f"/api/tables/{code}/seats/1")["version"]
    phone.wait_for_function(
        "v => Number(document.getElementById('play').dataset.version) >= v", arg=version
    )
    phone.close()
    play_to_the_end([watch], rng, until="hand")  # the rest of the hand, on the new process
    page.wait_for_function("() => !dekabesTable.link.pending")
    sent = page.evaluate("dekabesTable.link.decisions - dekabesTable.link.refusals")
    assert human_events(owner, code, 1) == sent  # each decision once, the offline one too
    assert check_privacy(watch, stored_deals(server, code)) > 10


def test_after_a_restart_the_page_is_live_once_the_server_answers_not_at_the_sockets_next_try(
    live, open_page
):
    """The page's own timers run on Playwright's clock, paused while the server comes
    back: the socket's next attempt (15 s away after four failures) cannot fire, so the
    page is live again only because the decision it kept was answered."""
    server, casual, _ = live
    code = casual.table("iris", {1: "iris"})
    page = person_page(open_page, server.url, "iris")
    page.clock.install()  # fake timers that still follow the real time until paused
    open_table(page, server.url, code)
    to_our_move(page, random.Random(12))
    page.wait_for_selector('#connection[data-status="live"]')
    tile = play_while_down(page, server)
    # ½ + 1 + 2 + 4 s of failed attempts: the socket's next one is 15 s away
    page.wait_for_function("() => dekabesTable.link.socketFailures > 3", timeout=60_000)
    page.clock.pause_at(page.evaluate("Date.now()") + 1)
    server.start()
    # At most 12 s of the page's time, the socket's own try being 15 s away. The kept
    # decision is tried again every 4 s at most; a try that failed just as the clock
    # paused waits 4 s more of it.
    for _ in range(3):
        page.clock.run_for(4_000)
        try:
            page.wait_for_function("() => !dekabesTable.link.pending", timeout=20_000)
            break
        except PlaywrightTimeout:
            continue
    else:
        raise AssertionError("the kept decision was not answered in 12 s of the page's time")
    page.wait_for_selector('#connection[data-status="live"]', timeout=60_000)
    page.clock.resume()
    page.wait_for_function(LAID, arg=tile)


LANGUAGES = {"en": "en-US", "es": "es-ES", "ru": "ru-RU", "ms": "ms-MY"}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shot(page, name: str) -> None:
    # a phone's shot is its first screen: what the player sees without scrolling
    made = screenshot(page, name, full_page=not name.endswith("-phone"))  # var/test-artifacts/web/
    if os.environ.get("DEKABES_UPDATE_SCREENSHOTS"):  # a test run leaves the tree clean
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copy(made, DOCS / f"{name}.png")


def serious_findings(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])}×)"
        for v in results.response["violations"]
        if v.get("impact") in ("serious", "critical")
    ]


def test_every_stage_in_four_languages_and_on_a_phone_with_no_serious_accessibility_finding(
    live, open_page
):
    server, casual, _ = live
    code = casual.table("ivy", {1: "ivy"})
    pages = {
        lang: person_page(open_page, server.url, "ivy", locale=locale)
        for lang, locale in LANGUAGES.items()
    }
    phone = dict(PHONE_TOUCH, viewport=PHONE_SCREEN)  # the height a phone's browser leaves
    pages["phone"] = person_page(open_page, server.url, "ivy", locale="en-US", **phone)
    for page in pages.values():
        open_table(page, server.url, code)
    driver = pages["en"]
    findings: dict[str, list[str]] = {}
    rng = random.Random(13)

    def stage(name: str, also=None) -> None:
        version = int(driver.get_attribute("#play", "data-version"))
        for key, page in pages.items():
            page.wait_for_function(
                "v => Number(document.getElementById('play').dataset.version) >= v", arg=version
            )
            if also is not None and page is not driver:
                also(page)
            assert horizontal_overflow(page) == 0, (name, key)
            if key == "phone" and name in ("accept", "play"):
                # what the table asks now, on the first screen: no scrolling for it
                assert off_screen(page, "#actions button", "#hand .tile-button") == [], name
            shot(page, f"play-{name}-{key}")
        findings[name] = serious_findings(driver)
        findings[name + " (phone)"] = serious_findings(pages["phone"])

    assert "Aceptar el reparto" in pages["es"].inner_text("#actions")
    stage("accept")
    # the house bots play seats 2-4; a deadline of its own (not the run's 1,200 s) names
    # what did not come, should they never move (seen once: the test hung until stopped)
    deadline = time.monotonic() + 240
    while not (
        driver.locator("#hand .tile-button.fits").count()
        and driver.locator("#line .laid").count()
        and driver.evaluate("!dekabesTable.link.pending")
    ):
        if time.monotonic() > deadline:
            screenshot(driver, "debug-no-tile-fits")
            raise AssertionError(
                "no tile of seat 1 fit a line within 240 s: version "
                + str(driver.get_attribute("#play", "data-version"))
                + ", prompt: "
                + driver.inner_text("#prompt")
                + ", connection: "
                + driver.inner_text("#connection")
            )
        if step(driver, rng) is None:
            driver.wait_for_timeout(50)
    tile = driver.locator("#hand .tile-button.fits").first.get_attribute("data-tile")

    def pick(page) -> None:
        # A hand may have ended while the driver looked for a tile that fits (a deal where
        # seat 1 only passed): this page still shows that hand's end until it is closed.
        if page.is_visible('#dialog [data-dialog="reveal"]'):
            page.click('#dialog [data-action="continue"]')
            page.wait_for_selector("#dialog", state="hidden")
        try:
            page.locator(f'#hand button[data-tile="{tile}"]').click(timeout=5000)
        except Exception:
            screenshot(page, "debug-pick")
            raise
        page.wait_for_selector('#actions [data-action^="play"]')

    pick(driver)
    stage("play", also=pick)
    driver.click('[data-tool="rules"]')
    driver.wait_for_selector('[data-dialog="panel-rules"]')
    shot(driver, "play-rules-en")
    findings["rules"] = serious_findings(driver)
    driver.click('[data-action="close-panel"]')
    while not driver.is_visible('#dialog [data-dialog="reveal"]'):
        if step(driver, rng) is None:
            driver.wait_for_timeout(50)
    stage("hand-end")
    play_to_the_end([Watch(driver, (1,))], rng)
    stage("match-over")
    assert not any(findings.values()), findings


def phone_at_own_table(live, open_page, name: str, screen: dict):
    """``name``'s casual table (seat 1, the house bot at the others), open on a touch
    phone with this screen."""
    server, casual, _ = live
    code = casual.table(name, {1: name})
    page = person_page(open_page, server.url, name, **dict(PHONE_TOUCH, viewport=screen))
    open_table(page, server.url, code)
    return page


def test_a_phone_held_sideways_shows_the_deal_s_buttons_and_tiles_beside_the_board(live, open_page):
    page = phone_at_own_table(live, open_page, "kay", PHONE_SIDEWAYS)
    page.wait_for_selector('#actions [data-action="accept"]')
    assert horizontal_overflow(page) == 0
    assert page.locator("#hand .tile-button").count() == 7
    assert off_screen(page, "#actions button", "#hand .tile-button") == []
    dock, board = (page.locator(q).bounding_box() for q in ("#dock", "#board"))
    assert dock["x"] >= board["x"] + board["width"]  # beside the board, not under it
    screenshot(page, "play-accept-sideways", full_page=False)


# The line's last tile, how far down the line it sits, and whether it is out of sight.
LAST_LAID = (
    "() => { const n = document.querySelector('#line .laid.last'); if (!n) return null;"
    " return {tile: n.dataset.tile, top: n.offsetTop,"
    " dialog: !document.getElementById('dialog').hidden, off: ("
    + OFF_SCREEN
    + ")(['#line .laid.last'])}; }"
)


def test_on_a_phone_each_tile_laid_is_in_sight_above_the_dock(live, open_page):
    # The dock covers the board's foot: a tile laid there is scrolled into sight, whoever
    # laid it. Played until a line has grown past what the first screen shows above the
    # dock (rows from 200 px down: at 390x664 the dock begins ~150 px below the line's top).
    page = phone_at_own_table(live, open_page, "lena", PHONE_SCREEN)
    rng = random.Random(23)
    looked = 0
    lowest = 0
    deadline = time.monotonic() + 300
    while lowest < 200:
        assert time.monotonic() < deadline, f"no line reached 200 px in 300 s ({lowest})"
        seen = page.evaluate(LAST_LAID)  # in one look: the page redraws between two
        if seen and not seen["dialog"]:
            assert seen["off"] == [], (seen, looked)
            looked += 1
            lowest = max(lowest, seen["top"])
        if page.get_attribute("#play", "data-phase") == "match_over":
            # a match can end first: play the next one (from its dialog, or the tools)
            if page.locator('#dialog [data-action="new_match"]').count():
                page.click('#dialog [data-action="new_match"]')
            elif page.is_visible("#dialog"):
                step(page, rng)  # the last hand's reveal comes first
                continue
            else:
                page.click('[data-tool="new_match"]')
                page.click('#dialog [data-action="yes"]')
            page.wait_for_function(
                "() => document.getElementById('play').dataset.phase !== 'match_over'"
            )
        elif step(page, rng) is None:
            page.wait_for_timeout(50)


def test_two_seats_of_one_person_hand_the_device_over_and_never_show_both(live, open_page):
    server, casual, _ = live
    code = casual.table("joan", {1: "joan", 3: "joan"})
    page = person_page(open_page, server.url, "joan", **PHONE_TOUCH)
    open_table(page, server.url, code)
    assert page.locator("#seat-picker button").count() == 2
    watch = Watch(page, (1, 3))
    # the first hand-off screen: the hand box is empty, and an empty box carries no name
    rng = random.Random(17)
    deadline = time.monotonic() + 120
    while page.get_attribute("#play", "data-handoff") != "true":
        assert time.monotonic() < deadline, "no hand-off in two minutes"
        watch.look()
        if step(page, rng) is None:
            page.wait_for_timeout(50)
    watch.look()
    assert serious_findings(page) == []
    assert page.get_attribute("#hand", "aria-label") is None
    play_to_the_end([watch], rng, look_first=True, until="hand")  # hand-offs at every turn
    handoffs = [dom for dom in watch.doms if dom["handoff"]]
    assert handoffs and all(not dom["hand"] for dom in handoffs)
    assert {dom["seat"] for dom in watch.doms} == {1, 3}
    assert check_privacy(watch, stored_deals(server, code)) > 10
