"""The replay viewer in Chromium: the analysis panel, next-mistake, #step-N in the
address, autoplay with its speed, at desktop and phone width."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.conftest import ROOT
from tests.web.browser import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.web.conftest import sign_in

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def analysed(web_club):
    subprocess.run(
        [sys.executable, "manage.py", "analyse_matches", "--iterations", "3", "--nice", "0"],
        cwd=ROOT,
        env=web_club.env,
        check=True,
        timeout=600,
    )
    return web_club


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_analysis_panel_and_the_navigation(analysed, open_page, viewport):
    page = open_page(viewport=viewport)
    sign_in(page, analysed.url, analysed.owner)
    url = f"{analysed.url}/tables/{analysed.finished.code}/replay"
    page.goto(url)
    root = page.locator("#replay")
    assert root.get_attribute("data-step") == "1"
    assert page.inner_text("#hand-no") == "1"  # never "Hand 0"
    assert page.locator("#decision-none").is_visible()
    # next mistake: to a decision marked mistake or blunder, its panel shown
    mistakes = page.locator("[data-mistake]")
    button = page.locator('[data-go="next-mistake"]')
    if mistakes.count():
        target = int(mistakes.first.get_attribute("data-mistake"))
        button.click()
        assert root.get_attribute("data-step") == str(target + 1)
        assert page.locator("#decision").is_visible()
        mark = page.locator("#decision .mark").get_attribute("data-mark")
        assert mark in ("mistake", "blunder")
        assert page.locator(f'[data-point="{target}"]').get_attribute("class").endswith("current")
    else:
        assert button.is_disabled()
    # a decision step shows played, expert and loss
    point = int(page.locator("[data-point]").first.get_attribute("data-point"))
    page.evaluate(f"location.hash = '#step-{point + 1}'")  # editing the address moves it
    # (no wait_for_function: it evaluates a string, which the pages' CSP forbids)
    expect(page.locator("#replay")).to_have_attribute("data-step", str(point + 1))
    assert page.locator("#decision").is_visible()
    assert page.inner_text("#decision .dec-played") and page.inner_text("#decision .dec-best")
    assert float(page.inner_text("#decision .dec-loss")) >= 0
    # only the current hand's graph is shown
    visible = [g for g in page.locator("[data-graph]").all() if g.is_visible()]
    assert len(visible) == 1
    name = "desktop" if viewport is DESKTOP else "phone"
    screenshot(page, f"replay-analysis-{name}")
    assert horizontal_overflow(page) == 0
    # autoplay at the fastest speed runs on by itself, and pauses
    page.goto(url + "#step-1")
    page.select_option("#autoplay-speed", "80")
    page.click("#autoplay")
    assert page.get_attribute("#autoplay", "aria-pressed") == "true"
    six_or_more = re.compile(r"^([6-9]|[1-9][0-9]+)$")  # run as JavaScript: no \A or \Z
    expect(page.locator("#replay")).to_have_attribute("data-step", six_or_more, timeout=30_000)
    page.click("#autoplay")
    assert page.get_attribute("#autoplay", "aria-pressed") == "false"
    stopped = root.get_attribute("data-step")
    page.wait_for_timeout(300)  # nothing to wait for: checking that nothing moves
    assert root.get_attribute("data-step") == stopped
