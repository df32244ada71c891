"""The ladder on PostgreSQL + Redis under ``server.run --workers 2`` (the backend run):
eight bots — three house anchors played by the server's own host, and five SDK bots of
five owners as separate processes (``python -m clients.bots --ladder``) — play the
rounds the first worker's tick draws. No bot exceeds its daily quota, every whole match's
legs share their deals with the seats turned, a bot killed mid-match is substituted and
counted as lost, the others play on to their quota, and each bot's rating moved the way
its results went."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict

import pytest
import requests

from clients.sdk import DekabesClient
from server.league.ratings import MU
from tests.conftest import ROOT, free_port
from tests.league.test_substitutes_workers import _admin, _database

pytestmark = [
    pytest.mark.backend,
    pytest.mark.timeout(1200),  # a few hundred HTTP moves a leg, on a busy machine
    pytest.mark.skipif(
        not (
            os.environ.get("DATABASE_URL", "").startswith("postgres")
            and os.environ.get("REDIS_URL")
        ),
        reason="two workers run on PostgreSQL + Redis (DATABASE_URL, REDIS_URL)",
    ),
]
PASSWORD = "a long enough password 42"
# One pair (two legs) a day: the quota is reached after one pair and must stop the next
# draw just as well as after two; a second pair a bot would be two more whole matches
# played one after the other, half of this test's time.
PER_DAY = 2


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(requests.RequestException):
            value = condition()
            if value:
                return value
        time.sleep(1)
    raise AssertionError(f"not within {seconds} s: {what}")


def record(reader: DekabesClient, match: int) -> str:
    return reader.request("GET", f"/api/matches/{match}/record", raw_text=True)


def stop(process: subprocess.Popen, sig=signal.SIGTERM) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def outcome(pair: dict, seat: dict) -> str:
    """What a rated pair did to one of its seats' rating: "kept" for the partner of a
    substituted bot (it keeps its rating), else "tie", "won" or "lost"."""
    out = {s["team"] for s in pair["seats"] if s["substituted"]}
    if seat["team"] in out and not seat["substituted"]:
        return "kept"
    if pair["result"] == "tie":
        return "tie"
    return "won" if pair["result"] == seat["team"] else "lost"


def test_eight_bots_on_two_workers(tmp_path):
    name = f"ladder_live_{uuid.uuid4().hex[:8]}"
    _admin(f"CREATE DATABASE {name}")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(
        os.environ,
        DATABASE_URL=_database(name),
        DEKABES_CHANNEL_PREFIX=name,  # the run's own keys on the suite's Redis
        DEKABES_VAR_DIR=str(tmp_path),
        PYTHONUNBUFFERED="1",
        DEKABES_RATE_REGISTER_ADDRESS="100000/hour",
        DEKABES_RATE_LOGIN_ADDRESS="100000/hour",
        DEKABES_TICK_SECONDS="1",
        DEKABES_LADDER_LEVELS="random,greedy,medium",
        DEKABES_LADDER_MOVE_SECONDS="20",
    )
    processes: list[subprocess.Popen] = []
    log = open(tmp_path / "serve.log", "wb")
    try:
        serve = subprocess.Popen(
            [sys.executable, "-m", "server.run", "--port", str(port), "--workers", "2",
             "--delay", "0", "--no-analyser"],
            cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
        processes.append(serve)
        reader = DekabesClient(url)
        wait_for(
            lambda: requests.get(url + "/api/me", timeout=10).status_code == 401, 180, "workers"
        )
        levels = {}
        bots = {}
        for level in ("medium", "medium", "random", "random", "greedy"):
            owner = DekabesClient(url)
            owner.register(f"own{uuid.uuid4().hex[:8]}", PASSWORD)
            bot = owner.register_bot(f"{level}{uuid.uuid4().hex[:6]}")
            levels[bot.username] = level
            bot_env = dict(env, DEKABES_TOKEN=bot.token or "")
            bots[bot.username] = subprocess.Popen(
                [sys.executable, "-m", "clients.bots", "--server", url, "--level", level,
                 "--delay", "0", "--discover-every", "0.5", "--poll-wait", "5", "-q",
                 "--ladder", "v1", "--ladder-per-day", str(PER_DAY)],
                cwd=ROOT, env=bot_env, stdout=log, stderr=log, start_new_session=True,
            )  # fmt: skip
            processes.append(bots[bot.username])
            if len(bots) == 1:
                # The first opt-in makes the ladder (its club and house account); five at
                # once race to make it, and the loser's runner is refused for good
                # (409 username_taken: reported, a server fix), then never plays.
                first = bot.username
                wait_for(
                    lambda: any(r["bot"] == first for r in reader.ladder_standings()),
                    120,
                    "the ladder made by the first bot's opt-in",
                )
        doomed = next(b for b, lv in levels.items() if lv == "greedy")
        wait_for(
            lambda: any(p["status"] == "first" for p in reader.ladder_matches(bot=doomed)),
            240,
            "the greedy bot drawn",
        )
        stop(bots[doomed], signal.SIGKILL)

        def substituted():
            return [
                p for p in reader.ladder_matches(bot=doomed)
                if p["status"] == "done" and any(s["substituted"] for s in p["seats"])
            ]  # fmt: skip

        (lost,) = wait_for(substituted, 600, "the killed bot substituted")
        seat = next(s for s in lost["seats"] if s["bot"] == doomed)
        assert lost["result"] != seat["team"]

        others = [b for b in levels if b != doomed]

        def all_at_quota():
            return all(
                len([p for p in reader.ladder_matches(bot=b) if p["status"] in ("done", "void")])
                >= PER_DAY // 2
                for b in others
            )

        wait_for(all_at_quota, 900, "every bot at its daily quota")
        time.sleep(3)  # a few ticks more: none may draw a bot past its quota
        pairs = reader.ladder_matches()
        for bot in levels:
            assert len([p for p in pairs if bot in {s["bot"] for s in p["seats"]}]) <= PER_DAY // 2
        for pair in pairs:
            if pair["status"] != "done" or len(pair["legs"]) != 2:
                continue
            one, two = pair["legs"]
            records = [
                [json.loads(line) for line in record(reader, leg["match"]).splitlines()]
                for leg in (one, two)
            ]
            deals = [[e["hands"] for e in r if e.get("type") == "deal"] for r in records]
            assert deals[0] and deals[1]
            assert all(a == b for a, b in zip(*deals, strict=False))
            drawn = {
                s["seat"]: s["player"]
                for s in reader.request("GET", f"/api/matches/{two['match']}")["seats"]
            }
            for s in pair["seats"]:
                assert drawn[s["first_seat"] % 4 + 1] == s["bot"]
        # Ratings against results, bot by bot (entrants; anchors are fixed). Each entrant
        # started at the model's initial rating; under Plackett-Luce a won pair always
        # raises the winners' mu and a lost one always lowers the losers'. (Comparing the
        # levels' mean mu with their win shares is no invariant: a tie against lower-rated
        # anchors lowers a bot's mu, and with one pair a bot the levels' shares are noise.
        # That comparison failed once on a correct server: 0.75 against 0.5, mu 25.90
        # against 25.98.) The partner of a substituted bot keeps its rating: left out.
        outcomes = defaultdict(set)
        for pair in pairs:
            if not pair["rated"]:
                continue
            for s in pair["seats"]:
                if s["bot"] in others:
                    outcomes[s["bot"]].add(outcome(pair, s))
        mu = {row["bot"]: row["mu"] for row in reader.ladder_standings()}
        decided = 0
        for bot in others:
            seen = outcomes.get(bot, set())
            if not seen:
                assert mu[bot] == MU, (bot, mu[bot])  # never rated: where it started
            elif seen == {"won"}:
                assert mu[bot] > MU, (bot, mu[bot])
            elif seen == {"lost"}:
                assert mu[bot] < MU, (bot, mu[bot])
            decided += seen in ({"won"}, {"lost"})
        assert decided, outcomes  # a pair is a tie only when both legs' margins cancel
    finally:
        for process in reversed(processes):
            stop(process, signal.SIGINT if process is processes[0] else signal.SIGTERM)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1)
