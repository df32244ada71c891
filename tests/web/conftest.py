"""Web page fixtures: finished and live matches in-process, and (for the browser tests)
a live Daphne with a seeded club and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import pytest
from django.test import Client

from tests.server.conftest import PASSWORD, Players
from tests.web.seed import SeededTable

TILE_TEXT = re.compile(r"(?<![\d.-])[0-6]-[0-6](?![\d-])")


@pytest.fixture(autouse=True)
def fresh_projection_cache():
    """Each test's tables start unfolded (rolled-back tests reuse primary keys)."""
    from server.tables import projection, selectors

    # rolled-back tests reuse primary keys: no fold and no table row outlives its test
    projection.forget()
    selectors.forget_full_tables()
    yield
    projection.forget()
    selectors.forget_full_tables()


def tiles_in(text: str) -> set[str]:
    """Every tile written in a text (``3-5``), dates and numbers aside."""
    return set(TILE_TEXT.findall(text))


def finish(p: Players, seed: int = 1, limit: int = 3000) -> Players:
    rng = random.Random(seed)
    for _ in range(limit):
        if p.step(rng) is None:
            return p
    raise AssertionError("the match did not end")


def advance_to_hand(p: Players, hand_no: int, seed: int = 2) -> Players:
    """Play until hand ``hand_no`` is under way (its first tile laid)."""
    rng = random.Random(seed)
    for _ in range(3000):
        view = p.seat(1)["view"]
        if view["phase"] == "match_over":
            raise AssertionError("the match ended first")
        if view["hand_no"] == hand_no and view["phase"] == "play" and view["line"]:
            return p
        p.step(rng)
    raise AssertionError("never reached the hand")


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def finished(db) -> Players:
    return finish(Players(kinds=("human", "bot", "bot", "bot")))


# -- the browser tests: a live server of their own and Chromium ---------------------------
@dataclass
class Club:
    url: str
    owner: str  # member who played the seeded casual tables (seat 1)
    stranger: str  # a member who sat at none of them
    finished: SeededTable
    live: SeededTable
    league: dict  # what tests.web.league_seed made (names, ids)
    env: dict = field(default_factory=dict)  # the live server's environment (manage.py runs)


@pytest.fixture(scope="session")
def web_club(tmp_path_factory) -> Club:
    """A live Daphne over a seeded league (made before it starts) and two casual tables."""
    from tests.web import seed
    from tests.web.browser import seeded_live_server

    server, league = seeded_live_server(
        tmp_path_factory.mktemp("web-live"), "tests.web.league_seed"
    )
    try:
        owner = seed.DekabesClient(server.url)
        owner.login("ana", seed.PASSWORD)
        bot = seed.own_bot(server.url, owner, "ana-bot")
        finished = seed.play_to_end(seed.new_table(owner, bot), seed=5)
        live = seed.play_into_hand(seed.new_table(owner, bot), hand_no=2, seed=6)
        yield Club(server.url, "ana", "zed", finished, live, league, dict(server.env))
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module, closed in teardown (with Playwright's driver)."""
    from tests.web.browser import CHROMIUM, CHROMIUM_ARGS, chromium_available

    if not chromium_available():
        # A failure, not a skip: `make test` installs the browser, so a missing one is a
        # broken setup that must not pass as green.
        pytest.fail(
            f"{CHROMIUM} missing: run `make browser` "
            "(apt-get install -y chromium-headless-shell chromium)"
        )
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()


@pytest.fixture
def open_page(browser):
    """``open_page(locale="en-US", viewport=DESKTOP)``: a fresh context (own cookies)."""
    from tests.web.browser import ACTION_TIMEOUT_MS, DESKTOP

    contexts = []

    def make(locale: str = "en-US", viewport: dict | None = None):
        context = browser.new_context(locale=locale, viewport=viewport or DESKTOP)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def sign_in(page, url: str, name: str, password: str = PASSWORD) -> None:
    page.goto(url + "/signin")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", password)
    page.click("form.stack button[type=submit]")
    page.wait_for_selector(".site-nav .who")
