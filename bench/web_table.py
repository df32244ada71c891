"""``python -m bench.web_table``: the browser table (``/tables/<code>/play``, issue #32)
in Chromium against a live Daphne on loopback.

Four people sit at one casual table, each in a browser page of their own (one a
390×844 touch phone), and play ``--hands`` hands (whole matches, as many as needed) by
clicking: a tile that fits, then its end. Measured, in the browsers' own clocks
(``performance.timeOrigin + performance.now()``, one clock for every page of the
browser):

- **first board**: navigation start to the page's first drawn board (its `#play` marked
  ready, the line and the hand drawn), over ``--loads`` fresh navigations;
- **own move**: the click on the play button to that tile drawn on the mover's line (at
  once, as a preview at the end chosen, until the server's answer draws the line as it
  is: *confirmed*, measured too);
- **other seats**: the same click to that tile drawn on each of the three other pages;
- **size**: the page's own JavaScript and CSS (``web/play/*.js``, ``play.css``, and the
  site's ``site.css`` + ``site.js`` it also loads), gzip-compressed (level 9).

The server is ``daphne server.asgi`` with ``tests.settings`` (fast password hashes) on a
fresh SQLite file, or on ``--database-url`` / ``--redis-url`` (PostgreSQL and Redis as in
production). Run it under load with ``stress --cpu 2 & python -m bench.web_table``.
Prints one line per figure, then one JSON object. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "server" / "web" / "static" / "web"
PASSWORD = "a long enough password 42"

# Times each click on a play button and each tile as it is drawn on the line.
PROBE = """
(() => {
  const now = () => performance.timeOrigin + performance.now();
  window.__clicks = [];
  window.__drawn = [];
  window.__confirmed = [];
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest('[data-action^="play"]');
    const picked = document.querySelector("#hand .tile-button.selected");
    if (button && picked) window.__clicks.push({ tile: picked.dataset.tile, at: now() });
  }, true);
  const seen = new Set();
  const watch = () => {
    const line = document.getElementById("line");
    if (!line) return setTimeout(watch, 5);
    new MutationObserver(() => {
      const fresh = [];
      const confirmed = [];
      for (const node of line.querySelectorAll(".laid")) {
        if (!seen.has(node.dataset.tile)) {
          seen.add(node.dataset.tile);
          fresh.push(node.dataset.tile);
        }
        if (!node.classList.contains("ghost") && !seen.has("!" + node.dataset.tile)) {
          seen.add("!" + node.dataset.tile);
          confirmed.push(node.dataset.tile);
        }
      }
      if (confirmed.length) requestAnimationFrame(() => confirmed.forEach((tile) => window.__confirmed.push({ tile, at: now() })));
      if (!line.querySelector(".laid")) seen.clear(); // a new hand
      // drawn: the frame that shows it
      if (fresh.length) requestAnimationFrame(() => fresh.forEach((tile) => window.__drawn.push({ tile, at: now() })));
    }).observe(line, { childList: true });
  };
  watch();
})();
"""


def sizes() -> dict[str, int]:
    own = sorted((STATIC / "play").glob("*.js")) + [STATIC / "play.css"]
    site = [STATIC / "site.css", STATIC / "site.js"]

    def packed(paths) -> int:
        return len(gzip.compress(b"".join(p.read_bytes() for p in paths), 9))

    return {
        "table_js_css_gzip": packed(own),
        "with_site_js_css_gzip": packed(own + site),
        "table_js_css_raw": sum(p.stat().st_size for p in own),
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(values), 1),
        "p95_ms": round(percentile(values, 0.95), 1),
        "max_ms": round(max(values), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=8, help="hands to play (default 8)")
    parser.add_argument("--loads", type=int, default=12, help="fresh navigations timed")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from clients.sdk import DekabesClient

    # The test suite's live server and browser settings, taken at run time: the suite is
    # not part of what mypy checks (bench/ is).
    LiveServer = importlib.import_module("tests.conftest").LiveServer
    browser_setup = importlib.import_module("tests.web.browser")
    # the whole browser members run (the tests use its lighter headless shell)
    CHROMIUM = os.environ.get("DEKABES_CHROMIUM") or browser_setup.FULL_CHROMIUM
    CHROMIUM_ARGS = browser_setup.CHROMIUM_ARGS
    DESKTOP, PHONE = browser_setup.DESKTOP, browser_setup.PHONE

    env = {
        "DEKABES_RATE_LOGIN_ADDRESS": "100000/minute",
        "DEKABES_RATE_LOGIN_NAME": "100000/minute",
        "DEKABES_RATE_REGISTER_ADDRESS": "100000/hour",
    }
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    if args.redis_url:
        env["REDIS_URL"] = args.redis_url
    rng = random.Random(args.seed)
    figures: dict = {"size": sizes()}
    with tempfile.TemporaryDirectory() as workdir:
        server = LiveServer(Path(workdir), env=env, port=args.port).start()
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            run = uuid.uuid4().hex[:6]
            names = [f"b{run}{n}" for n in range(4)]
            people = []
            for name in names:
                client = DekabesClient(server.url)
                client.register(name, PASSWORD)
                people.append(client)
            table = people[0].create_table({n: "human" for n in (1, 2, 3, 4)}, join=[1])
            for seat, client in enumerate(people[1:], start=2):
                client.join(table.code, seat)
            pages = []
            for seat, name in enumerate(names, start=1):
                phone = seat == 2  # one touch phone at the table
                size = PHONE if phone else DESKTOP
                context = browser.new_context(
                    viewport={"width": size["width"], "height": size["height"]},
                    has_touch=phone,
                    is_mobile=phone,
                )
                context.set_default_timeout(60_000)
                page = context.new_page()
                page.goto(server.url + "/signin")
                page.fill("input[name=username]", name)
                page.fill("input[name=password]", PASSWORD)
                page.click("form.stack button[type=submit]")
                page.wait_for_selector(".site-nav .who")
                page.add_init_script(PROBE)
                pages.append(page)
            figures["first_board"] = summary(
                first_boards(pages, server.url, table.code, args.loads)
            )
            own, confirmed, others, moves = play(pages, rng, args.hands)
            figures["own_move"] = summary(own)
            figures["own_move_confirmed"] = summary(confirmed)
            figures["other_seats"] = summary(others)
            figures["moves"] = moves
        finally:
            browser.close()
            playwright.stop()
            server.stop()
    size = figures["size"]
    print(f"first board after navigation: {figures['first_board']}")
    print(f"own move drawn after the click: {figures['own_move']}")
    print(f"own move confirmed by the server's answer: {figures['own_move_confirmed']}")
    print(f"other seats' pages drawn after the click: {figures['other_seats']}")
    print(
        f"JS+CSS gzip: table {size['table_js_css_gzip']} B, "
        f"with the site's {size['with_site_js_css_gzip']} B (raw {size['table_js_css_raw']} B)"
    )
    print(json.dumps(figures))
    return 0


def first_boards(pages, url: str, code: str, loads: int) -> list[float]:
    """Navigation start to the first board drawn, ``loads`` times over the pages. Every
    page is opened at least once (timed or not): the probe is in its play page only then."""
    times = []
    for n in range(max(loads, len(pages))):
        page = pages[n % len(pages)]
        page.goto(f"{url}/tables/{code}/play")
        page.wait_for_function("() => performance.getEntriesByName('dekabes-board-drawn').length")
        if n < loads:
            times.append(
                page.evaluate("performance.getEntriesByName('dekabes-board-drawn')[0].startTime")
            )
    return times


def play(
    pages, rng: random.Random, hands: int
) -> tuple[list[float], list[float], list[float], int]:
    """Click through ``hands`` hands; the delays from each play click to its tile drawn."""
    driver = importlib.import_module("tests.web.play_driver")
    phase, step = driver.phase, driver.step

    seen_hands = 0
    moves = 0
    deadline = time.monotonic() + 60 * hands
    while seen_hands < hands and time.monotonic() < deadline:
        moved = False
        for page in pages:
            did = step(page, rng)
            seen_hands += did == "continue" and page is pages[0]
            moves += did == "play"
            moved = moved or bool(did)
        first = pages[0]
        if phase(first) == "match_over" and not first.is_visible("#dialog"):
            # another match: a request the others agree to (``step`` answers it)
            first.click('[data-tool="new_match"]')
            first.click('#dialog [data-action="yes"]')
            moved = True
        if not moved:
            first.wait_for_timeout(20)
    own: list[float] = []
    confirmed: list[float] = []
    others: list[float] = []
    records = [
        page.evaluate("({clicks: __clicks, drawn: __drawn, confirmed: __confirmed})")
        for page in pages
    ]
    for index, record in enumerate(records):
        for click in record["clicks"]:
            for other_index, other in enumerate(records):
                drawn = [
                    d["at"] - click["at"]
                    for d in other["drawn"]
                    if d["tile"] == click["tile"] and 0 <= d["at"] - click["at"] < 5000
                ]
                if not drawn:
                    continue
                (own if other_index == index else others).append(min(drawn))
            sure = [
                d["at"] - click["at"]
                for d in record["confirmed"]
                if d["tile"] == click["tile"] and 0 <= d["at"] - click["at"] < 5000
            ]
            confirmed += sure[:1]
    return own, confirmed, others, moves


if __name__ == "__main__":
    sys.exit(main())
