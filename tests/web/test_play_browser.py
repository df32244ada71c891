"""The browser table (issue #32) in Chromium: whole matches played by clicking, a league
round with four browser seats (one a touch phone) and a casual table against three
computer players with hint and undo; a takeback by consent between two people, played to
its hand's end; (test_play_browser_more.py) the server killed and restarted mid-hand, one
hand with the keyboard only, every stage of a match in four languages, two seats of one
person; and at every step, nothing of another seat's tiles in any answer, frame or DOM
the pages had (``play_driver``)."""

from __future__ import annotations

import random
import time

import pytest

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient
from tests.web.browser import PHONE, horizontal_overflow, screenshot
from tests.web.conftest import sign_in
from tests.web.play_driver import (
    LAST_PLAYED,
    SPY,
    Watch,
    check_privacy,
    deals_of,
    open_table,
    phase,
    play_to_the_end,
    sent_over,
    step,
    stored_deals,
)
from tests.web.play_seed import HOUSE_BOT, PASSWORD

pytestmark = pytest.mark.timeout(1200)

PHONE_TOUCH = {"viewport": PHONE, "has_touch": True, "is_mobile": True}


class Casual:
    """People and one computer player (a bot account run by the bot runner, in this
    process) on the live server: casual tables against it."""

    def __init__(self, url: str, bot_name: str, bot_token: str):
        self.url = url
        self.people: dict[str, DekabesClient] = {}
        self.bot_name = bot_name
        self.runner = Runner(
            DekabesClient(url, token=bot_token),
            RunnerOptions(level="random", delay=0.0, poll_wait=5, discover_every=0.5),
        ).start()

    def person(self, name: str) -> DekabesClient:
        if name not in self.people:
            client = DekabesClient(self.url)
            client.register(name, PASSWORD)
            self.people[name] = client
        return self.people[name]

    def table(self, owner: str, humans: dict[int, str]) -> str:
        """A casual table of ``owner``'s: ``humans`` (seat -> name) join, bots elsewhere."""
        kinds = {n: ("human" if n in humans else "bot") for n in (1, 2, 3, 4)}
        bots = {n: self.bot_name for n in (1, 2, 3, 4) if n not in humans}
        mine = [n for n, name in humans.items() if name == owner]
        table = self.person(owner).create_table(kinds, join=mine, bots=bots)
        for seat, name in humans.items():
            if name != owner:
                self.person(name).request(
                    "POST", f"/api/tables/{table.code}/join", json={"seat": seat}
                )
        return table.code


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    from tests.web.browser import seeded_live_server

    server, league = seeded_live_server(tmp_path_factory.mktemp("web-play"), "tests.web.play_seed")
    casual = None
    try:
        casual = Casual(server.url, HOUSE_BOT, league["bot_token"])
        yield server, casual, league
    finally:
        if casual is not None:
            casual.runner.stop()
        server.stop()


@pytest.fixture
def open_page(browser):
    """``open_page(**context)``: a fresh browser context (its own cookies), e.g. a touch
    phone's (``PHONE_TOUCH``)."""
    from tests.web.browser import ACTION_TIMEOUT_MS, DESKTOP

    contexts = []

    def make(**options):
        options.setdefault("viewport", DESKTOP)
        context = browser.new_context(**options)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def person_page(open_page, url: str, name: str, **context):
    page = open_page(**context)
    sign_in(page, url, name)
    return page


def test_a_league_round_played_by_four_browser_seats_one_of_them_a_phone(live, open_page):
    server, _, league = live
    code = league["code"]
    watches = []
    for seat, name in sorted(league["seats"].items()):
        phone = seat == "2"
        page = person_page(open_page, server.url, name, **(PHONE_TOUCH if phone else {}))
        # as a member comes: the home page's "My next table" -> Play now
        page.add_init_script(SPY)
        page.goto(f"{server.url}/")
        page.locator(f'#next-table .next-table[data-table="{code}"] a.play-now').click()
        page.wait_for_selector("#play[data-state=ready]")
        assert page.url.endswith(f"/tables/{code}/play")
        watches.append(Watch(page, (int(seat),)))
    phone_page = watches[1].page
    # a rated table: no hint, undo or new match; the phone fits its width
    assert watches[0].page.locator('[data-tool="hint"]').count() == 0
    assert horizontal_overflow(phone_page) == 0
    screenshot(phone_page, "play-phone-accept")
    moves = play_to_the_end(watches, random.Random(3))
    assert moves > 20
    for watch in watches:
        assert phase(watch.page) == "match_over"
        assert horizontal_overflow(watch.page) == 0
    screenshot(phone_page, "play-phone-match-over")
    reader = DekabesClient(server.url)
    reader.login(league["seats"]["1"], PASSWORD)
    deals = deals_of(reader, code, 1)
    checked = sum(check_privacy(watch, deals) for watch in watches)
    assert checked > 4 * moves // 2
    for watch in watches:  # the socket was up all along: every decision went over it
        ways = sent_over(watch.received)
        assert ways["socket"] > 0 and ways["http"] == 0, ways


def test_a_casual_match_against_three_computers_with_hint_and_undo(live, open_page):
    server, casual, _ = live
    code = casual.table("dora", {1: "dora"})
    page = person_page(open_page, server.url, "dora")
    open_table(page, server.url, code)
    watch = Watch(page, (1,))
    rng = random.Random(5)
    # Play into the first hand until a tile of ours is down, asking for a hint first.
    hinted = undone = False
    deadline = time.monotonic() + 300
    while not undone:
        if time.monotonic() > deadline:
            screenshot(page, "play-stuck-casual")
            raise AssertionError("no tile of ours went down")
        if page.locator("#hand .tile-button.fits").count() and not hinted:
            page.click('[data-tool="hint"]')
            page.wait_for_selector(".hint-text")
            assert page.locator("#hand .tile-button.hinted").count() == 1
            hinted = True
        did = step(page, rng)
        watch.look()
        if did == "play":
            tile = LAST_PLAYED[page]
            back = page.locator(f'#hand button[data-tile="{tile}"]')
            for _ in range(3):  # as a person would, again if the table had moved on
                page.wait_for_selector('[data-tool="undo"]:not([disabled])')
                page.click('[data-tool="undo"]')
                try:
                    back.wait_for(timeout=10_000)  # back in the hand
                    break
                except Exception:
                    continue
            back.wait_for(timeout=1000)
            watch.look()
            undone = True
        elif did is None:
            page.wait_for_timeout(50)
    play_to_the_end([watch], rng)
    owner = casual.person("dora")
    checked = check_privacy(watch, deals_of(owner, code, 1))
    assert checked > 20


def test_a_takeback_by_consent_between_two_people(live, open_page):
    server, casual, _ = live
    code = casual.table("ella", {1: "ella", 3: "finn"})
    ella = person_page(open_page, server.url, "ella")
    finn = person_page(open_page, server.url, "finn", **PHONE_TOUCH)
    open_table(ella, server.url, code)
    open_table(finn, server.url, code)
    watches = [Watch(ella, (1,)), Watch(finn, (3,))]
    rng = random.Random(7)
    # Play until ella has laid a tile, then she asks to take it back and finn agrees.
    while True:
        if step(ella, rng, takeback=None) == "play":
            break  # finn does nothing more: ella's move is the last person's move
        step(finn, rng, takeback=None)
    tile = LAST_PLAYED[ella]
    ella.wait_for_selector('[data-tool="undo"]:not([disabled])')
    ella.click('[data-tool="undo"]')
    ella.wait_for_selector('[data-dialog="takeback-wait"]')
    finn.wait_for_selector('[data-dialog="takeback"]')
    screenshot(finn, "play-phone-takeback")
    asked_at = int(finn.get_attribute("#play", "data-version"))
    finn.click('[data-action="accept_takeback"]')
    ella.wait_for_selector(f'#hand button[data-tile="{tile}"]')  # back in her hand
    finn.wait_for_function(
        """([v, t]) => Number(document.getElementById('play').dataset.version) > v
             && !document.querySelector(`#line [data-tile="${t}"]`)""",
        arg=[asked_at, tile],
    )
    for watch in watches:
        watch.look()
    # To the hand's end (the whole match, its later hands and its end are played by
    # test_a_casual_match_against_three_computers_with_hint_and_undo and the league round)
    play_to_the_end(watches, rng, until="hand")
    deals = stored_deals(server, code)
    assert check_privacy(watches[0], deals) > 10
    assert check_privacy(watches[1], deals) > 10
