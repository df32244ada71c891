# ruff: noqa: F811 -- the fixtures live and open_page are imported from test_play_browser
"""The browser table as a keyboard and screen reader user meets it (Chromium): a hand
played with Tab and Enter alone, focus kept in the table after each press (a tile played,
Accept, Continue), each move of the other seats said once in order in a live log, the
notices not read out again at each move, the hand's result read with its dialog; and a
spectator on a phone whose watch page reads each move out and keeps their focus."""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from tests.web.browser import PHONE_SCREEN, horizontal_overflow, screenshot
from tests.web.play_driver import open_table, step
from tests.web.play_seed import HOUSE_BOT
from tests.web.test_play_browser import (  # noqa: F401 (fixtures)
    PHONE_TOUCH,
    live,
    open_page,
    person_page,
)

pytestmark = pytest.mark.timeout(900)

# What the live regions received, node by node (before the page's scripts run).
HEARD = """
(() => {
  window.__heard = { notices: [], said: [] };
  new MutationObserver((changes) => {
    for (const change of changes) {
      const box = change.target.closest && change.target.closest('#notices, #said');
      if (!box) continue;
      for (const node of change.addedNodes) {
        if (node.nodeType === 1) window.__heard[box.id].push(node.textContent);
      }
    }
  }).observe(document, { subtree: true, childList: true });
})();
"""

# Where focus is: in the table (and which control), or fallen out of it.
FOCUS = """() => {
  const node = document.activeElement;
  const root = document.getElementById('play');
  return { inTable: !!node && node !== root && root.contains(node),
           where: node ? (node.closest('#hand, #actions, #dialog, #tools, #prompt') || {}).id || node.tagName : null,
           tile: node && node.dataset ? node.dataset.tile || null : null,
           fits: !!node && node.classList.contains('fits'),
           action: node && node.dataset ? node.dataset.action || null : null };
}"""


def tab_to(page, wanted, presses: int = 60) -> dict:
    """Press Tab until the focused control is ``wanted`` (a test on FOCUS's answer)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUS)
        if wanted(now):
            return now
    raise AssertionError(f"Tab never reached the control: {page.evaluate(FOCUS)}")


def to_a_tile_that_fits(page) -> dict:
    """Into the hand (one Tab stop), then along it with the arrows to a tile that fits."""
    now = page.evaluate(FOCUS)
    if now["where"] != "hand":
        now = tab_to(page, lambda f: f["where"] == "hand")
    page.keyboard.press("Home")
    for _ in range(8):
        now = page.evaluate(FOCUS)
        if now["fits"]:
            return now
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"no tile that fits along the hand: {now}")


def to_my_turn(page, seed: int) -> None:
    """Plays (accept, opener, tiles, by clicks) until this seat has a tile to play."""
    rng = random.Random(seed)
    deadline = time.monotonic() + 240
    while not page.evaluate(
        "() => !!document.querySelector('#hand .tile-button.fits') && !dekabesTable.link.pending"
        " && !document.querySelector('#hand .selected') && document.getElementById('dialog').hidden"
    ):
        assert time.monotonic() < deadline, "this seat had no tile to play in 240 s"
        if step(page, rng) is None:
            page.wait_for_timeout(50)


def said_for(words: dict, seat: int, turns: list[dict]) -> list[str]:
    """What the log says of a hand's turns: the others' plays and every pass."""
    out = []
    for t in turns:
        if t["type"] == "pass":
            out.append(words["passed"] % {"n": t["seat"], "a": t["ends"][0], "b": t["ends"][1]})
        elif t["seat"] != seat:
            a, b = (int(x) for x in t["tile"].split("-"))
            spoken = f"{words['numbers'][a]}-{words['numbers'][b]}"
            key = {"left": "log_play_left", "right": "log_play_right"}.get(t.get("end"), "log_play")
            out.append(words[key] % {"s": t["seat"], "t": spoken})
    return out


def test_a_hand_by_tab_and_enter_keeps_focus_in_the_table_and_says_the_others_moves(
    live, open_page
):
    server, casual, _ = live
    code = casual.table("keys-only", {1: "keys-only"})
    page = person_page(open_page, server.url, "keys-only")
    page.add_init_script(HEARD)
    open_table(page, server.url, code)
    words = json.loads(page.text_content("#play-setup"))["words"]
    # one seat: no seat picker, and no empty navigation landmark for it either
    assert (
        page.evaluate("getComputedStyle(document.getElementById('seat-picker')).display") == "none"
    )

    page.locator("body").focus()
    tab_to(page, lambda f: f["action"] == "accept")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('#actions [data-action=accept]')")
    after = page.evaluate(FOCUS)
    assert after["inTable"], f"focus fell out of the table after Accept: {after}"

    played = 0
    deadline = time.monotonic() + 300
    while not page.is_visible('#dialog [data-dialog="reveal"]'):
        assert time.monotonic() < deadline, "the hand did not end in 300 s"
        mine = page.locator("#hand .tile-button.fits").count() and page.evaluate(
            "!dekabesTable.link.pending && !document.querySelector('#hand .selected')"
        )
        if not mine:
            page.wait_for_timeout(50)
            continue
        # each move of the others said once, in order, and nothing else
        turns = page.evaluate("dekabesTable.state.answers[1].view.turns")
        said = page.eval_on_selector_all("#said p", "ps => ps.map((p) => p.textContent)")
        assert said == said_for(words, 1, turns), (said, turns)
        assert page.evaluate(FOCUS)["inTable"], "focus fell out of the table meanwhile"
        tile = to_a_tile_that_fits(page)["tile"]  # from where focus was kept
        page.keyboard.press("Enter")  # pick it
        page.wait_for_selector(f'#hand [data-tile="{tile}"].selected')
        if page.locator('#actions [data-action="play-left"]').count():
            page.keyboard.press("ArrowUp")  # it fits both ends: the left one
        page.keyboard.press("Enter")  # play it
        page.wait_for_function(
            "t => !document.querySelector(`#hand [data-tile='${t}']`) && !dekabesTable.link.pending",
            arg=tile,
        )
        now = page.evaluate(FOCUS)
        assert now["inTable"] and now["where"] in ("hand", "actions", "dialog"), (
            f"focus fell out of the table after playing {tile}: {now}"
        )
        played += 1
    assert played, "seat 1 never had a tile to play"
    screenshot(page, "play-access-hand-end")

    # the hand's end: the dialog is read with its result, focus on Continue, and Tab
    # stays in it (its one button) rather than going to the page behind
    assert page.evaluate(FOCUS)["action"] == "continue"
    for key in ("Tab", "Tab", "Shift+Tab"):
        page.keyboard.press(key)
        assert page.evaluate(FOCUS)["action"] == "continue", page.evaluate(FOCUS)
    described = page.evaluate(
        "() => { const id = document.getElementById('dialog').getAttribute('aria-describedby');"
        " return id ? document.getElementById(id).textContent : ''; }"
    )
    assert page.text_content('#dialog [data-dialog="reveal"] .banner') in described
    page.keyboard.press("Enter")
    page.wait_for_selector("#dialog", state="hidden")
    after = page.evaluate(FOCUS)
    assert after["inTable"], f"focus fell out of the table after Continue: {after}"

    # each notice went into its live region once, not again at every move
    heard = page.evaluate("window.__heard")
    passed = re.compile(re.sub(r"%\\\(\w+\\\)s", ".+", re.escape(words["passed"])))
    passes = [t for t in heard["said"] if passed.fullmatch(t)]
    assert passes or not heard["notices"], heard
    assert len(heard["notices"]) <= len(passes) + 2, heard


def test_a_spectator_on_a_phone_hears_each_move_and_keeps_their_place(live, open_page):
    # The watch page asks for itself every 3 s and swaps the board in: the heading, the
    # news line (a live region, the same node all along) and the links stay, so a screen
    # reader hears each move and a keyboard's focus is not thrown to the page's top.
    server, casual, _ = live
    code = casual.table("watched", {1: "watched"})
    casual.person("watched").request(
        "POST", f"/api/tables/{code}/watchable", json={"watchable": True}
    )
    casual.person("watcher")
    fan = person_page(open_page, server.url, "watcher", **dict(PHONE_TOUCH, viewport=PHONE_SCREEN))
    fan.goto(f"{server.url}/tables/{code}/watch")
    fan.wait_for_selector("#watch .watch-live:not([hidden])")  # watch.js follows the table
    assert fan.get_attribute("#watch-news", "role") == "status"
    fan.evaluate("document.getElementById('watch-news').dataset.first = 'yes'")
    fan.locator("body").focus()
    for _ in range(40):  # to the Reload link, by keyboard
        fan.keyboard.press("Tab")
        if fan.evaluate("document.activeElement.matches('.watch-reload a')"):
            break
    else:
        raise AssertionError("Tab never reached the Reload link")

    owner = person_page(open_page, server.url, "watched")
    open_table(owner, server.url, code)
    rng = random.Random(5)
    deadline = time.monotonic() + 240
    while fan.locator(".watch-line .tile-text").count() < 3:
        assert time.monotonic() < deadline, "the watch page showed no third tile in 240 s"
        if step(owner, rng) is None:
            owner.wait_for_timeout(100)
    # The computers play on: the line and the news are read at one moment (one swap of
    # the page), and the last move may be a pass as well as a play.
    line, news = fan.evaluate(
        """() => [
          Array.from(document.querySelectorAll('.watch-line .tile-text'), (t) => t.textContent),
          document.getElementById('watch-news').textContent,
        ]"""
    )
    assert fan.evaluate("document.getElementById('watch-news').dataset.first") == "yes"
    played = re.match(r"Seat [1-4] plays ([0-6]-[0-6])", news)
    assert played or re.match(r"Seat [1-4] passes", news), news
    assert played is None or played.group(1) in line, (news, line)
    assert fan.evaluate("document.activeElement.matches('.watch-reload a')"), fan.evaluate(
        "document.activeElement.outerHTML.slice(0, 80)"
    )
    assert horizontal_overflow(fan) == 0
    screenshot(fan, "watch-phone", full_page=False)


def test_the_hand_is_one_tab_stop_its_arrows_home_and_end_move_along_it(live, open_page):
    server, casual, _ = live
    code = casual.table("rover", {1: "rover"})
    page = person_page(open_page, server.url, "rover")
    open_table(page, server.url, code)
    to_my_turn(page, 3)
    tiles = page.eval_on_selector_all("#hand .tile-button", "ns => ns.map((n) => n.dataset.tile)")
    fits = page.eval_on_selector_all(
        "#hand .tile-button.fits", "ns => ns.map((n) => n.dataset.tile)"
    )
    assert len(tiles) > 2 and fits, (tiles, fits)
    # the hand's one Tab stop: the tile focus was kept on after the last play, else the
    # first that fits
    page.locator("#tools button").first.focus()
    now = tab_to(page, lambda f: f["where"] == "hand")
    stops = page.eval_on_selector_all(
        '#hand .tile-button[tabindex="0"]', "ns => ns.map((n) => n.dataset.tile)"
    )
    assert stops == [now["tile"]], (stops, now)
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUS)["where"] != "hand", "each tile is a Tab stop"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUS)["tile"] == now["tile"]

    def at(key: str) -> str:
        page.keyboard.press(key)
        return page.evaluate(FOCUS)["tile"]

    assert at("Home") == tiles[0]
    assert at("ArrowRight") == tiles[1]
    assert at("End") == tiles[-1]
    assert at("ArrowRight") == tiles[-1]  # the hand's end: no further
    assert at("ArrowLeft") == tiles[-2]
    assert not page.locator("#hand .selected").count(), "an arrow picked a tile"
    # away and back by Tab: the tile left is the hand's Tab stop
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUS)["where"] != "hand"
    assert at("Shift+Tab") == tiles[-2]
    assert page.locator('#hand .tile-button[tabindex="0"]').count() == 1
    # Enter picks the tile focused, as a click does, and focus stays on it
    tile = to_a_tile_that_fits(page)["tile"]
    page.keyboard.press("Enter")
    page.wait_for_selector(f'#hand [data-tile="{tile}"].selected')
    assert page.evaluate(FOCUS)["tile"] == tile


def test_a_dialog_keeps_tab_in_it_and_escape_closes_only_a_harmless_one(live, open_page):
    server, casual, _ = live
    code = casual.table("modal", {1: "modal"})
    page = person_page(open_page, server.url, "modal")
    open_table(page, server.url, code)
    page.click('#tools [data-tool="leave"]')  # "Leave the table?" Yes / No
    page.wait_for_selector('#dialog [data-dialog="confirm"]')
    seen = []
    for key in ["Tab"] * 5 + ["Shift+Tab"] * 5:
        page.keyboard.press(key)
        now = page.evaluate(FOCUS)
        assert now["where"] == "dialog", f"{key} left the dialog: {now}"
        seen.append(now["action"])
    assert set(seen) == {"yes", "no"}, seen
    # focus sent behind it (a screen reader's, a script's) comes back in
    page.evaluate("() => document.querySelector('#tools button').focus()")
    assert page.evaluate(FOCUS)["where"] == "dialog"
    page.keyboard.press("Escape")  # a question: Escape is No
    page.wait_for_selector("#dialog", state="hidden")
    assert page.evaluate("() => document.getElementById('play').dataset.state") == "ready"


def test_a_skip_link_takes_a_keyboard_past_the_header_to_the_table(live, open_page):
    server, casual, _ = live
    code = casual.table("skipper", {1: "skipper"})
    page = person_page(open_page, server.url, "skipper")
    open_table(page, server.url, code)
    page.locator("body").focus()
    page.keyboard.press("Tab")
    link = page.evaluate(
        "() => { const a = document.activeElement, box = a.getBoundingClientRect();"
        " return { skip: a.matches('.skip-link'), text: a.textContent,"
        " shown: box.top >= 0 && box.bottom <= innerHeight && box.width > 1 }; }"
    )
    assert link["skip"] and link["shown"], link
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "play-title"
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUS)["inTable"], page.evaluate(FOCUS)
    # hidden while not focused
    assert page.evaluate(
        "() => document.querySelector('.skip-link').getBoundingClientRect().bottom <= 0"
    )
    # the site's other pages: past the header to their content
    page.goto(f"{server.url}/")
    page.locator("body").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.matches('.skip-link')")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"


# The prompt as shown and as said, text by text (before the page's scripts run).
PROMPTS = """
(() => {
  window.__prompt = { shown: [], said: [] };
  new MutationObserver((changes) => {
    for (const change of changes) {
      const node = change.target.nodeType === 1 ? change.target : change.target.parentElement;
      const box = node && node.closest && node.closest('#prompt, #prompt-said');
      if (!box) continue;
      const list = window.__prompt[box.id === 'prompt' ? 'shown' : 'said'];
      if (box.textContent && list[list.length - 1] !== box.textContent) list.push(box.textContent);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""


def test_the_prompt_is_said_when_it_concerns_the_reader_not_at_each_computer_move(live, open_page):
    server, casual, _ = live
    code = casual.table("quiet", {1: "quiet"})
    page = person_page(open_page, server.url, "quiet")
    page.add_init_script(PROMPTS)
    open_table(page, server.url, code)
    words = json.loads(page.text_content("#play-setup"))["words"]
    waiting = re.compile(re.escape(words["waiting_for"]).replace(r"%\(n\)s", "[1-4]"))
    rng = random.Random(11)
    deadline = time.monotonic() + 240
    while sum(1 for t in page.evaluate("window.__prompt.shown") if waiting.fullmatch(t)) < 4:
        assert time.monotonic() < deadline, page.evaluate("window.__prompt")
        if step(page, rng) is None:
            page.wait_for_timeout(50)
    prompt = page.evaluate("window.__prompt")
    quiet = {words["sent"], words["accepted_wait"]}
    assert not [t for t in prompt["said"] if waiting.fullmatch(t) or t in quiet], prompt
    assert words["accept_prompt"] in prompt["said"], prompt
    assert {words["your_turn"], words["must_open"]} & set(prompt["said"]), prompt
    # the prompt a sighted player reads is not itself a live region
    assert page.evaluate(
        "() => { const p = document.getElementById('prompt');"
        " return !p.getAttribute('aria-live') && !p.getAttribute('role'); }"
    )


# Every presence mark a computer seat's card showed (before the page's scripts run).
BOT_MARKS = """
(() => {
  window.__marks = [];
  new MutationObserver(() => {
    for (const card of document.querySelectorAll('#board .seat-card, #dock .seat-card')) {
      if (!card.querySelector('.tag')) continue;  // a person's seat
      const mark = card.querySelector('.presence');
      window.__marks.push(card.dataset.seat + ':' + (mark ? mark.className : ''));
    }
  }).observe(document, { subtree: true, childList: true });
})();
"""


def test_a_computer_seat_is_not_shown_away_before_it_comes_to_a_new_table(live, open_page):
    # A computer seat's presence is its player's requests, which start only when the
    # computers' runner finds the new table: until then the answer says it is away since
    # the table's creation. The page shows no mark for it then, not "away".
    server, casual, _ = live
    owner = casual.person("arriving")
    owner.register_bot("arriving-bot")  # nobody runs it: it never comes
    bots = {2: "arriving-bot", 3: HOUSE_BOT, 4: HOUSE_BOT}
    table = owner.create_table({1: "human", 2: "bot", 3: "bot", 4: "bot"}, join=[1], bots=bots)
    page = person_page(open_page, server.url, "arriving")
    page.add_init_script(BOT_MARKS)
    open_table(page, server.url, table.code)
    # the house bot comes to seats 3 and 4: here
    for seat in (3, 4):
        page.wait_for_selector(f'.seat-card[data-seat="{seat}"] .presence.here')
    assert page.locator('.seat-card[data-seat="1"] .presence.here').count() == 1
    # seat 2's computer never came: no mark, not "away"
    assert not page.locator('.seat-card[data-seat="2"] .presence').count()
    marks = page.evaluate("window.__marks")
    assert not [m for m in marks if "away" in m], marks
