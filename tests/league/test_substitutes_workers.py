"""Substitutes and forfeits against ``server.run --workers 2`` on PostgreSQL + Redis (the
backend run, issue #22). Every request opens a fresh connection, so the kernel hands
each to either worker: the handover written by one worker is obeyed by the other.

Round 1: one human never moves (the match stalls at the first accept); the organizer
substitutes a member who sits the round out, who plays the match to its end. Round 2:
another human never moves; after the deadline the organizer ends the match by forfeit.
The records replay; ``manage.py rebuild_league`` gives the same standings and ratings."""

from __future__ import annotations

import datetime as dt
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

from tests.conftest import ROOT, free_port
from tests.records import replay_summary

pytestmark = [
    pytest.mark.backend,
    pytest.mark.skipif(
        not (
            os.environ.get("DATABASE_URL", "").startswith("postgres")
            and os.environ.get("REDIS_URL")
        ),
        reason="two workers run on PostgreSQL + Redis (DATABASE_URL, REDIS_URL)",
    ),
]
PASSWORD = "a long enough password 42"


def _database(name: str) -> str:
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path="/" + name))


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(_database("postgres"), autocommit=True) as connection:
        connection.execute(sql)


@pytest.fixture
def two_workers(tmp_path):
    """A private database, migrated; ``server.run --workers 2 --no-bots`` on it."""
    name = f"subst_live_{uuid.uuid4().hex[:8]}"
    _admin(f"CREATE DATABASE {name}")
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL=_database(name),
        # the run's own keys on the suite's Redis (a fixed database number was shared
        # with any other checkout's run on the machine, under the same key prefix)
        DEKABES_CHANNEL_PREFIX=name,
        DEKABES_VAR_DIR=str(tmp_path),
        PYTHONUNBUFFERED="1",
        DEKABES_RATE_REGISTER_ADDRESS="100000/hour",
        DEKABES_RATE_LOGIN_ADDRESS="100000/hour",
    )
    serve = None
    log = open(tmp_path / "serve.log", "wb")
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=300,
        )
        serve = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.run",
                "--port",
                str(port),
                "--no-bots",
                "--workers",
                "2",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while True:
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            try:
                requests.get(url + "/api/me", timeout=10)
                break
            except requests.RequestException:
                assert time.monotonic() < deadline, "the workers never answered"
                time.sleep(0.3)
        yield url, env
    finally:
        if serve is not None and serve.poll() is None:
            os.killpg(serve.pid, signal.SIGINT)
            try:
                serve.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(serve.pid, signal.SIGKILL)
                serve.wait(10)
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


class Api:
    """One account; every request on a fresh connection (either worker answers)."""

    def __init__(self, url: str, token: str | None = None):
        self.url, self.token = url, token

    def call(self, method, path, body=None, status=200):
        headers = {"Connection": "close"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        response = requests.request(method, self.url + path, json=body, headers=headers, timeout=60)
        assert response.status_code == status, (method, path, response.status_code, response.text)
        kind = response.headers.get("Content-Type", "")
        return response.json() if "json" in kind else response.text


def register(url: str, name: str) -> Api:
    body = Api(url).call(
        "POST", "/api/auth/register", {"username": name, "password": PASSWORD}, 201
    )
    return Api(url, body["token"])


def play_to_the_end(apis: dict[int, Api], code: str, rng: random.Random, limit: int = 3000):
    """Random legal moves by each seat's holder until the match is over."""
    for _ in range(limit):
        body = apis[1].call("GET", f"/api/tables/{code}/seats/1")
        if body["view"]["phase"] == "match_over":
            return
        seat = body["seats_to_act"][0]
        view = body if seat == 1 else apis[seat].call("GET", f"/api/tables/{code}/seats/{seat}")
        legal = [e for e in view["view"]["legal"] if e["type"] != "claim_redeal"]
        event = rng.choice(legal or view["view"]["legal"])
        action = {k: v for k, v in event.items() if k != "seat"}
        response = requests.post(
            f"{apis[seat].url}/api/tables/{code}/seats/{seat}/actions",
            json={**action, "expected_version": view["version"]},
            headers={"Authorization": f"Token {apis[seat].token}", "Connection": "close"},
            timeout=60,
        )
        assert response.status_code in (200, 409), response.text  # 409: stale, ask again
    raise AssertionError("the match did not end")


def projections(api: Api, club: str, season: int):
    standings = api.call("GET", f"/api/clubs/{club}/seasons/{season}/standings")["results"]
    ratings = api.call("GET", f"/api/clubs/{club}/ratings")["results"]
    return standings, ratings


def test_two_workers_substitute_and_forfeit_and_rebuild_agrees(two_workers, tmp_path):
    url, env = two_workers
    tag = uuid.uuid4().hex[:6]
    org = register(url, f"org{tag}")
    slug = f"w{tag}"
    org.call("POST", "/api/clubs", {"slug": slug, "name": "Workers"}, 201)
    club = f"/api/clubs/{slug}"
    people = {}
    for n in range(5):
        name = f"p{n}{tag}"
        people[name] = register(url, name)
        code = org.call("POST", club + "/invites", {}, 201)["code"]
        people[name].call("POST", club + "/join", {"code": code}, 201)
    names = sorted(people)
    season = org.call(
        "POST", club + "/seasons", {"name": "S", "format": "individual", "seed": 5}, 201
    )["id"]
    rounds = f"{club}/seasons/{season}/rounds"
    rng = random.Random(7)

    # -- round 1: four play, one sits out; the absentee is substituted by the one out
    org.call("POST", rounds, status=201)
    org.call("POST", rounds + "/1/checkin", {"players": names[:4]})
    match = org.call("POST", rounds + "/1/start")["tables"][0]
    code = match["table"]
    holders = {s["seat"]: people[s["player"]] for s in match["seats"]}
    absent_seat = 4
    absentee = holders[absent_seat]
    absent_name = next(s["player"] for s in match["seats"] if s["seat"] == absent_seat)
    for seat in (1, 2, 3):  # everyone accepts but the absentee: the match waits for them
        view = holders[seat].call("GET", f"/api/tables/{code}/seats/{seat}")
        if "accept" in view["allowed"]:
            holders[seat].call(
                "POST",
                f"/api/tables/{code}/seats/{seat}/actions",
                {"type": "accept", "expected_version": view["version"]},
            )
    # every worker has read (and may keep) the full table's seats
    for _ in range(6):
        absentee.call("GET", f"/api/tables/{code}/seats/{absent_seat}")
    substitute = names[4]
    answer = org.call(
        "POST",
        f"/api/matches/{match['id']}/substitute",
        {"seat": absent_seat, "by": {"username": substitute}, "reason": "never came"},
    )
    assert answer["status"] == "playing"
    for _ in range(6):  # both workers: the former holder refused, the substitute served
        absentee.call("GET", f"/api/tables/{code}/seats/{absent_seat}", status=403)
        people[substitute].call("GET", f"/api/tables/{code}/seats/{absent_seat}")
    holders[absent_seat] = people[substitute]
    play_to_the_end(holders, code, rng)
    one = org.call("GET", f"/api/matches/{match['id']}")
    assert one["status"] == "finished" and one["forfeited_by"] is None
    assert {s["player"] for s in one["seats"]} == set(names[:4])  # the drawn four
    replay_summary(org.call("GET", f"/api/matches/{match['id']}/record"), tmp_path)
    assert org.call("GET", rounds + "/1")["status"] == "finished"

    # -- round 2: one human never moves; after the deadline, a forfeit
    org.call("POST", rounds, status=201)
    org.call("POST", rounds + "/2/checkin", {"players": names[1:]})
    match = org.call("POST", rounds + "/2/start")["tables"][0]
    refused = org.call(
        "POST", f"/api/matches/{match['id']}/forfeit", {"seat": 2, "reason": "gone"}, status=409
    )
    assert refused["code"] == "deadline_not_passed"
    past = (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)).isoformat()
    org.call("PATCH", rounds + "/2", {"deadline": past})
    two = org.call("POST", f"/api/matches/{match['id']}/forfeit", {"seat": 2, "reason": "gone"})
    assert two["status"] == "finished" and two["forfeited_by"] == "B" and two["winner"] == "A"
    assert org.call("GET", rounds + "/2")["status"] == "finished"
    replay_summary(org.call("GET", f"/api/matches/{match['id']}/record"), tmp_path)
    verbs = [e["verb"] for e in org.call("GET", club + "/log?page_size=200")["results"]]
    assert {"match.substitute", "round.deadline", "match.forfeit"} <= set(verbs)

    # -- the projections are what a rebuild from the logs gives
    before = projections(org, slug, season)
    assert sum(row["forfeits"] for row in before[0]) == 2  # seat 2's team: two players
    # the seat is rated for whoever played at least half of the hands (docs/league.md,
    # "Who really played"): the substitute, who took it before the first tile; never the
    # absentee (their round-2 match is a forfeit, not rated)
    rated = {r["player"] for r in before[1]}
    assert substitute in rated and absent_name not in rated
    done = subprocess.run(
        [sys.executable, "manage.py", "rebuild_league"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert projections(org, slug, season) == before
