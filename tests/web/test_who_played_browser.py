"""Who played, in Chromium (issue #33, point 3): a finished league match whose seat 3
went to a hosted computer player during hand 2. The match page names the substitution;
its link steps the replay there, where the seat's name changes, and the seat shows its
drawn player again one step back. Desktop and 390 px."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from tests.conftest import ROOT
from tests.web.browser import DESKTOP, PHONE, horizontal_overflow

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def substituted(web_club, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("who-played") / "facts.json"
    subprocess.run(
        [sys.executable, "-m", "tests.web.substitution_seed", str(out)],
        cwd=ROOT,
        env=web_club.env,
        check=True,
        timeout=600,
    )
    return {**json.loads(out.read_text()), "url": web_club.url}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_replay_names_the_substitute_from_the_step_it_happened(
    substituted, open_page, viewport
):
    page = open_page(viewport=viewport)
    page.goto(f"{substituted['url']}/matches/{substituted['match']}")
    drawn, substitute = substituted["drawn"], substituted["substitute"]
    line = page.locator("#who-played li")
    expect(line).to_have_count(1)
    expect(line).to_contain_text(f"seat 3: {substitute} for {drawn}")
    expect(line).to_contain_text("From hand 2")
    seat = page.locator('[data-seat="3"] .seat-name')
    expect(seat.locator(".holder:visible")).to_have_count(1)
    expect(seat.locator(".holder:visible")).to_contain_text(drawn)
    link = line.locator("a")
    step = int(link.get_attribute("data-jump")) + 1
    link.click()
    root = page.locator("#replay")
    expect(root).to_have_attribute("data-step", str(step))
    expect(seat.locator(".holder:visible")).to_contain_text(substitute)
    expect(page.locator("#log li.current .handover")).to_contain_text(f"{substitute} for {drawn}")
    page.locator('[data-go="prev"]').click()
    expect(root).to_have_attribute("data-step", str(step - 1))
    expect(seat.locator(".holder:visible")).to_contain_text(drawn)
    assert horizontal_overflow(page) == 0
