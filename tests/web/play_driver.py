"""Driving the browser table (``/tables/<code>/play``) in Chromium as players would, and
watching what it receives: every answer of the API and every WebSocket frame the page
gets (recorded by an init script, before the page's own scripts run) and its DOM.

``hidden_at`` tells which tiles a seat may not see at a version, from the table's log as
it reads once the match is over (every deal whole, voided and undone ones included,
RECORDS.md) or, for a match still going, as the live server stored it (``stored_deals``:
the test reads the server's database file, no page or API does): the other seats' tiles
of the deal in play at that version, less the tiles laid on the line by then.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from clients.sdk import DekabesClient
from tests.web.browser import screenshot

TILE_TEXT = re.compile(r"(?<![\d.-])[0-6]-[0-6](?![\d-])")
TILES = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
PUBLIC_KEYS = ("last_hand", "results", "last_tile_ends")  # the previous hand: all shown
PLAYING = ("accept", "choose_opener", "play")  # phases in which others' tiles are hidden

# Records every fetch answer and socket frame the page receives (not a change to the page).
SPY = """
(() => {
  const seen = (window.__seen = []);
  const fetch0 = window.fetch;
  window.fetch = async (...args) => {
    const response = await fetch0(...args);
    response.clone().text().then((text) => seen.push({ kind: "http", url: String(args[0]), text }), () => {});
    return response;
  };
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => seen.push({ kind: "ws", url: String(args[0]), text: String(event.data) }));
    }
  };
})();
"""


def open_table(page, url: str, code: str) -> None:
    page.add_init_script(SPY)
    page.goto(f"{url}/tables/{code}/play")
    page.wait_for_selector("#play[data-state=ready]")


@dataclass
class Watch:
    """What one page received, and its DOM at moments, for one person's seats."""

    page: Any  # a Playwright page
    seats: tuple[int, ...]
    received: list[dict] = field(default_factory=list)
    doms: list[dict] = field(default_factory=list)

    def drain(self) -> None:
        self.received += self.page.evaluate("window.__seen ? window.__seen.splice(0) : []")

    def look(self) -> None:
        """The DOM now: the tiles drawn outside the end-of-hand reveal, and the text."""
        self.drain()
        self.doms.append(
            self.page.evaluate(
                """() => {
                  const root = document.getElementById('play');
                  const dialog = document.querySelector('#dialog .dialog-body');
                  const reveal = dialog && dialog.dataset.dialog === 'reveal';
                  const tiles = [...root.querySelectorAll('[data-tile]')]
                    .filter((n) => !(reveal && dialog.contains(n)))
                    .map((n) => n.dataset.tile);
                  const clone = root.cloneNode(true);
                  const d = clone.querySelector('#dialog .dialog-body[data-dialog=reveal]');
                  if (d) d.remove();
                  clone.querySelectorAll('script, template').forEach((n) => n.remove());
                  const line = [...document.querySelectorAll('#line [data-tile]')].map((n) => n.dataset.tile);
                  const hand = [...document.querySelectorAll('#hand [data-tile]')].map((n) => n.dataset.tile);
                  return {seat: Number(root.dataset.seat), version: Number(root.dataset.version),
                          phase: root.dataset.phase, handoff: root.dataset.handoff === 'true',
                          tiles, line, hand, text: clone.textContent};
                }"""
            )
        )


def seat_answers(received: list[dict]):
    """Every seat answer in what a page received: views, pushed views, refusals' views."""
    for item in received:
        try:
            body = json.loads(item["text"])
        except ValueError:
            continue
        if not isinstance(body, dict):
            continue
        if body.get("type") == "answer" and isinstance(body.get("body"), dict):
            body = body["body"]  # a decision's answer over the socket: REST's body
        if body.get("code") == "stale_version" and isinstance(body.get("view"), dict):
            body = body["view"]
        if "view" in body and "seat" in body and "version" in body:
            yield item, body


def sent_over(received: list[dict]) -> dict[str, int]:
    """How the page's decisions went: answers over the socket, POSTs of ``/actions``."""
    socket = http = 0
    for item in received:
        if item["kind"] == "http" and item["url"].endswith("/actions"):
            http += 1
        elif item["kind"] == "ws" and item["text"].startswith('{"type":"answer"'):
            socket += 1
    return {"socket": socket, "http": http}


def deals_of(client: DekabesClient, code: str, seat: int) -> list[tuple[int, dict]]:
    """(seq, hands) of every deal in the log, read once the match is over (all shown)."""
    deals, after = [], 0
    while True:
        page = client.events(code, seat, after=after)
        for entry in page["events"]:
            if entry["type"] == "deal":
                hands = entry["event"]["hands"]
                assert all(h is not None for h in hands.values()), "the match is not over"
                deals.append((entry["seq"], hands))
        if not page["events"]:
            return deals
        after = page["events"][-1]["seq"]


def stored_deals(server, code: str) -> list[tuple[int, dict]]:
    """(seq, hands) of every deal of table ``code`` so far, whole, as the live server
    (``tests.conftest.LiveServer``, SQLite) stored them: the truth a match still going
    is checked against (read-only; the pages and the API never see it)."""
    path = server.env["DEKABES_SQLITE_PATH"]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as db:
        rows = db.execute(
            "SELECT e.seq, e.payload FROM tables_event e JOIN tables_table t ON t.id = e.table_id"
            " WHERE t.code = ? AND e.type = 'deal' ORDER BY e.seq",
            (code,),
        ).fetchall()
    deals = [(seq, json.loads(payload)["hands"]) for seq, payload in rows]
    assert deals and all(h for _, hands in deals for h in hands.values()), deals
    return deals


def hidden_at(deals, seat: int, version: int, laid: set[str]) -> set[str]:
    current = [hands for seq, hands in deals if seq <= version]
    if not current:
        return set()
    hands = current[-1]
    return {t for n, tiles in hands.items() if int(n) != seat for t in tiles} - laid


def check_privacy(watch: Watch, deals) -> int:
    """No answer, frame or DOM the page had shows a tile hidden from its seat then.
    Returns how many seat answers and DOM states were checked."""
    watch.drain()
    checked = 0
    for item, body in seat_answers(watch.received):
        view = body["view"]
        assert body["seat"] in watch.seats, f"an answer of seat {body['seat']} reached the page"
        if view["phase"] not in PLAYING:
            continue
        laid = {t["tile"] for t in view["line"]}
        hidden = hidden_at(deals, body["seat"], body["version"], laid)
        current = {k: v for k, v in body.items() if k != "view"}
        current["view"] = {k: v for k, v in view.items() if k not in PUBLIC_KEYS}
        current.pop("last_tile_ends", None)
        text = json.dumps(current)
        leaked = {t for t in TILES if f'"{t}"' in text} & hidden
        assert not leaked, f"seat {body['seat']} received {sorted(leaked)} ({item['url']})"
        checked += 1
    for dom in watch.doms:
        if dom["handoff"]:
            assert not dom["hand"], f"tiles shown during a hand-off: {dom}"
        if not dom["seat"] or not dom["version"] or dom["phase"] not in PLAYING:
            continue
        line = set(dom["line"])  # laid: public
        hidden = hidden_at(deals, dom["seat"], dom["version"], line)
        shown = (set(dom["tiles"]) | set(TILE_TEXT.findall(dom["text"]))) - line
        assert not shown & hidden, f"seat {dom['seat']} shown {sorted(shown & hidden)}: {dom}"
        checked += 1
    return checked


# -- playing ------------------------------------------------------------------------------
LAST_PLAYED: dict = {}  # page -> the tile its last "play" step sent


def _click(locator) -> bool:
    try:
        locator.click(timeout=2000)
        return True
    except Exception:  # redrawn under the finger: look again
        return False


def _pick(locator, rng: random.Random) -> bool:
    count = locator.count()
    return bool(count) and _click(locator.nth(rng.randrange(count)))


# What the page shows now, read in one round trip: whether it offers anything to do (a
# dialog, a hand-off, a decision, a tile that fits) and whether its match is over. A page
# waiting for the others answers this one question instead of one per control.
SHOWS = """() => {
  const shown = (n) => {
    if (!n) return false;
    const box = n.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(n).visibility !== 'hidden';
  };
  const play = document.getElementById('play');
  const body = document.querySelector('#dialog .dialog-body');
  return {
    phase: play ? play.dataset.phase : null,
    dialog: shown(document.getElementById('dialog')),
    kind: body ? body.dataset.dialog : null,
    handoff: !!play && play.dataset.handoff === 'true',
    asked: document.querySelectorAll(
      '#actions [data-action="accept"], #actions [data-action="choose_opener"]').length,
    fits: document.querySelectorAll('#hand .tile-button.fits').length,
  };
}"""


def shows(page) -> dict:
    return page.evaluate(SHOWS)


def step(
    page, rng: random.Random, takeback: str | None = "accept", reveal: bool = True
) -> str | None:
    """One thing a player does on this page now (None: nothing to do for now).
    ``takeback``: how another's takeback request is answered ("accept"/"decline"/None);
    ``reveal=False``: a hand's reveal is left open (nothing to do), not continued."""
    now = shows(page)
    if not (now["dialog"] and now["kind"]) and not (now["handoff"] or now["asked"] or now["fits"]):
        return None  # nothing offered: the others' turn (looked at each control below)
    dialog = page.locator("#dialog .dialog-body")
    if page.is_visible("#dialog") and dialog.count():
        kind = dialog.first.get_attribute("data-dialog")
        if kind == "reveal":
            if not reveal:
                return None
            return "continue" if _click(page.locator('[data-action="continue"]')) else None
        if kind == "match-over":
            return "close" if _click(page.locator('#dialog [data-action="close"]')) else None
        if kind == "takeback" and takeback:
            name = f'[data-action="{takeback}_takeback"]'
            return f"{takeback}_takeback" if _click(page.locator(name)) else None
        return None
    if page.get_attribute("#play", "data-handoff") == "true":
        return "show" if _click(page.locator('[data-action="show"]')) else None
    for action in ("accept", "choose_opener"):
        if _pick(page.locator(f'#actions [data-action="{action}"]'), rng):
            return action
    if not _pick(page.locator("#hand .tile-button.fits"), rng):
        return None
    plays = page.locator('#actions [data-action^="play"]')
    try:
        plays.first.wait_for(timeout=2000)
        tile = page.get_attribute("#hand .tile-button.selected", "data-tile", timeout=2000)
    except Exception:
        return None
    if not _pick(plays, rng):
        return None
    LAST_PLAYED[page] = tile
    return "play"


def phase(page) -> str | None:
    return page.get_attribute("#play", "data-phase")


def _over(now: dict, until: str) -> bool:
    if until == "hand":  # the hand's end shown (its reveal, not closed), or the match's
        return (now["dialog"] and now["kind"] == "reveal") or now["phase"] == "match_over"
    return now["phase"] == "match_over" and not now["dialog"]


def play_to_the_end(
    watches: list[Watch],
    rng: random.Random,
    timeout: float = 420,
    look_first: bool = False,
    until: str = "match",
) -> int:
    """Every page plays what it may until each shows the match over (its dialog closed);
    ``until="hand"``: until each shows the end of the hand under way (its reveal, left
    open) or the match over. Returns the moves made. The DOM of each page is looked at
    after every move (``look_first``: and before)."""
    assert until in ("match", "hand")
    deadline = time.monotonic() + timeout
    moves = 0
    while time.monotonic() < deadline:
        done = True
        moved = False
        for watch in watches:
            page = watch.page
            if until == "hand" and _over(shows(page), until):
                continue  # this page is there: it waits for the others
            if look_first:  # the screen before each move too (a hand-off, say)
                watch.look()
            # until="hand": a reveal that shows up between the look above and the step is
            # left open too. Continued, its page went on to the next deal's accept, which
            # the others (stopped at their reveal) never gave: the hand "did not end" in
            # 420 s (seen once in the takeback test under load).
            did = step(page, rng, reveal=until != "hand")
            if did:
                moved = True
                moves += 1
                watch.look()
            if not _over(shows(page), until):
                done = False
        if done:
            return moves
        if not moved:
            watches[0].page.wait_for_timeout(50)  # waiting for the others (polling)
    for n, watch in enumerate(watches):
        screenshot(watch.page, f"play-stuck-{n}")
    raise AssertionError(f"the {until} did not end in time")
