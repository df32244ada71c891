"""Playwright for Python driving Debian's Chromium (never a downloaded browser).

``make browser`` / ``.ci/run`` install ``chromium`` from Debian when /usr/bin/chromium is
missing; without it the browser tests fail and name that command.
"""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = os.environ.get("DEKABES_CHROMIUM", "/usr/bin/chromium")
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
DESKTOP = {"width": 1280, "height": 900}
# Generous: two cores shared with other work.
ACTION_TIMEOUT_MS = 30_000


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


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
