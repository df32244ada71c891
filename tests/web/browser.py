"""Playwright for Python driving Debian's Chromium (never a downloaded browser).

``make browser`` / ``.ci/run`` install Debian's ``chromium-headless-shell`` (the tests'
browser) and ``chromium`` (the benches') when they are missing; without a browser the
browser tests fail and name that command.
"""

from __future__ import annotations

import os
from pathlib import Path

# The whole browser, as members run it: the benches time pages in it (bench/web_table.py).
FULL_CHROMIUM = "/usr/bin/chromium"
# The tests drive Chromium's headless shell, the same Blink and V8 without the full
# browser's windowing, GPU and compositor processes (Playwright's own default for
# headless runs). Chromium's CPU on two browser test files, twice each: 19-24 s against
# 71-77 s; over the SQLite run 117 s against 221 s (docs/web.md). Without it (a machine
# set up before ``make browser`` installed it): the whole browser.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("DEKABES_CHROMIUM") or (
    HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else FULL_CHROMIUM
)
# Without the background-networking flags Chromium keeps dialling out on this closed
# network at every start.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "test-artifacts" / "web"
PHONE = {"width": 390, "height": 844}
# What a browser on such a phone leaves to the page with its bars shown (Safari on a
# 390 x 844 iPhone: 664): the height a player's first screen really has.
PHONE_SCREEN = {"width": 390, "height": 664}
PHONE_SIDEWAYS = {"width": 844, "height": 390}  # the same phone held sideways
DESKTOP = {"width": 1280, "height": 900}
# Generous: two cores shared with other work.
ACTION_TIMEOUT_MS = 30_000


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


def screenshot(page, name: str, full_page: bool = True) -> Path:
    """The whole page (``full_page=False``: only what its screen shows, as it is scrolled)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


# The controls a player needs now that are not wholly on the screen as it stands
# (scrolled where the page left it), or that something else covers at their centre.
OFF_SCREEN = """(selectors) => {
  const out = [];
  for (const selector of selectors) {
    for (const node of document.querySelectorAll(selector)) {
      const box = node.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const label = selector + ' ' + (node.dataset.tile || node.dataset.action || '');
      if (box.top < 0 || box.bottom > window.innerHeight) out.push(label + ' off the screen');
      else {
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (!(hit === node || node.contains(hit))) out.push(label + ' covered');
      }
    }
  }
  return out;
}"""


def off_screen(page, *selectors: str) -> list[str]:
    """Which of these controls a player would have to scroll to (or could not tap)."""
    return page.evaluate(OFF_SCREEN, list(selectors))


def horizontal_overflow(page) -> int:
    """How many CSS pixels the page is wider than the viewport (0: none)."""
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def seeded_live_server(workdir: Path, seed_module: str):
    """A live Daphne (``tests.conftest.LiveServer``, started) over a database that
    ``python -m seed_module FACTS`` filled before it started; returns it and the seed's
    facts (the JSON it wrote). Every browser test signs in afresh from one address, as a
    handful of names: the login and registration limits are lifted (their sharing with
    the API is tested in-process). The caller stops the server."""
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT, LiveServer

    server = LiveServer(
        workdir,
        env={
            "DEKABES_RATE_LOGIN_ADDRESS": "100000/minute",
            "DEKABES_RATE_LOGIN_NAME": "100000/minute",
            "DEKABES_RATE_REGISTER_ADDRESS": "100000/hour",
        },
    )
    server.prepare()
    facts = workdir / "facts.json"
    subprocess.run(
        [sys.executable, "-m", seed_module, str(facts)],
        cwd=ROOT,
        env=server.env,
        check=True,
        timeout=600,
    )
    server.start()
    return server, json.loads(facts.read_text())
