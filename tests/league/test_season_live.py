"""A whole season through the API against a live Daphne, the matches played by the real
bot runner (nine bot accounts, each with its own token and ``Runner``). Standings and
ratings are then recomputed here, independently, from the match records."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict

import pytest
import requests
import websocket
from openskill.models import PlackettLuce

from clients.bots.runner import Runner, RunnerOptions
from clients.sdk import DekabesClient
from engine import Match, load_record
from tests.conftest import LiveServer

PASSWORD = "a long enough password 42"
BOTS = 9
ROUNDS = 2
ROUND_TIMEOUT = 300


class Api:
    def __init__(self, url: str, token: str | None = None):
        self.url, self.session = url, requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, body=None, status=200, **params):
        response = self.session.request(
            method, self.url + path, json=body, params=params, timeout=60
        )
        assert response.status_code == status, (path, response.status_code, response.text)
        return (
            response.json() if "json" in response.headers.get("Content-Type", "") else response.text
        )


def register(url: str, name: str) -> Api:
    body = requests.post(
        url + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=60
    ).json()
    return Api(url, body["token"])


@pytest.fixture
def live(tmp_path):
    server = LiveServer(tmp_path).start()
    yield server
    server.stop()


def test_a_season_played_by_the_bot_runner(live):
    url = live.url
    organizer = register(url, "organizer")
    organizer.call("POST", "/api/clubs", {"slug": "live", "name": "Live club"}, status=201)
    code = organizer.call("POST", "/api/clubs/live/invites", {}, status=201)["code"]
    bots = []
    for n in range(BOTS):
        owner = register(url, f"owner{n}")
        owner.call("POST", "/api/clubs/live/join", {"code": code}, status=201)
        bot = owner.call("POST", "/api/bots", {"name": f"robot{n}"}, status=201)
        owner.call("POST", "/api/clubs/live/members", {"bot": bot["username"]}, status=201)
        bots.append(bot)
    season = organizer.call(
        "POST",
        "/api/clubs/live/seasons",
        {"name": "Live season", "format": "individual", "seed": 11},
        status=201,
    )
    base = f"/api/clubs/live/seasons/{season['id']}"
    options = RunnerOptions(delay=0.0, discover_every=0.5, poll_wait=5.0, linger=0.5)
    runners = [Runner(DekabesClient(url, b["token"]), options).start() for b in bots]
    lobby = Lobby(url, bots[0]["token"])
    try:
        for number in range(1, ROUNDS + 1):
            organizer.call("POST", base + "/rounds", status=201)
            organizer.call(
                "POST",
                base + f"/rounds/{number}/checkin",
                {"players": [b["username"] for b in bots]},
            )
            before = lobby.pushes()
            round_ = organizer.call("POST", base + f"/rounds/{number}/start")
            assert len(round_["tables"]) == 2 and len(round_["byes"]) == 1
            seated = {s["player"] for t in round_["tables"] for s in t["seats"]}
            if bots[0]["username"] in seated:
                lobby.wait_for(lambda pushes: any(p["tables"] for p in pushes[len(before) :]))
            wait_for_round(organizer, base + f"/rounds/{number}")
        annul_a_round_the_runners_are_playing(organizer, base, runners)
    finally:
        for runner in runners:
            runner.stop_event.set()
        for runner in runners:
            runner.stop(timeout=15)
        lobby.close()
    assert sum(r.stats.rejected for r in runners) == 0
    check_against_records(organizer, base, bots)


def annul_a_round_the_runners_are_playing(api: Api, base: str, runners: list[Runner]) -> None:
    """Round 3 is annulled table by table: the runners let those tables go."""
    number = ROUNDS + 1
    api.call("POST", base + "/rounds", status=201)
    api.call(
        "POST", base + f"/rounds/{number}/checkin", {"players": [f"robot{n}" for n in range(BOTS)]}
    )
    tables = api.call("POST", base + f"/rounds/{number}/start")["tables"]
    codes = {t["table"] for t in tables}
    served = lambda: {code for r in runners for code in r.workers} & codes
    wait_until(lambda: served() == codes, "the runners never picked up round 3")
    for table in tables:
        annulled = api.call("POST", f"/api/matches/{table['id']}/annul", {"reason": "test"})
        assert annulled["status"] == "annulled"
    wait_until(lambda: not served(), "a runner kept serving an annulled table")
    assert api.call("GET", base + f"/rounds/{number}")["status"] == "finished"


def wait_until(predicate, message: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(message)


def wait_for_round(api: Api, path: str) -> None:
    deadline = time.monotonic() + ROUND_TIMEOUT
    while time.monotonic() < deadline:
        if api.call("GET", path)["status"] == "finished":
            return
        time.sleep(0.5)
    raise AssertionError(f"{path} did not finish in {ROUND_TIMEOUT} s")


class Lobby:
    """``/ws/me`` in a thread: the league_tables pushes one account receives."""

    def __init__(self, url: str, token: str):
        self.ws = websocket.create_connection(
            url.replace("http", "ws") + "/ws/me",
            header=[f"Authorization: Token {token}"],
            timeout=60,
        )
        self.received: list[dict] = []
        self.lock = threading.Lock()
        self.stopped = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while not self.stopped:
            try:
                message = json.loads(self.ws.recv())
            except Exception:
                return
            if message.get("type") == "league_tables":
                with self.lock:
                    self.received.append(message)

    def pushes(self) -> list[dict]:
        with self.lock:
            return list(self.received)

    def wait_for(self, predicate, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.pushes()):
                return
            time.sleep(0.05)
        raise AssertionError(f"no lobby push: {self.pushes()}")

    def close(self):
        self.stopped = True
        self.ws.close()


# -- the independent computation -------------------------------------------------------------
def check_against_records(api: Api, base: str, bots: list[dict]) -> None:
    matches = api.call("GET", "/api/matches?club=live&status=finished&page_size=200")["results"]
    assert len(matches) == 2 * ROUNDS and all(m["status"] == "finished" for m in matches)
    tally = defaultdict(lambda: defaultdict(int))
    finished = []
    for match in matches:
        fold = Match.from_events(load_record(api.call("GET", f"/api/matches/{match['id']}/record")))
        summary = fold.summary()
        assert summary["phase"] == "match_over" and summary["scores"] == match["score"]
        seats = {s["seat"]: s["player"] for s in match["seats"]}
        teams = {"A": (seats[1], seats[3]), "B": (seats[2], seats[4])}
        for team, players in teams.items():
            other = "B" if team == "A" else "A"
            for player in players:
                row = tally[player]
                row["played"] += 1
                row["wins"] += summary["winner"] == team
                for hand in summary["results"]:
                    row["hands_won"] += hand["team"] == team
                    row["hands_lost"] += hand["team"] == other
                    row["ties"] += hand["result"] == "tie"
                    row["points"] += hand["points"] if hand["team"] == team else 0
                    row["dekabes"] += bool(hand["dekabes"]) and hand["team"] == team
        finished.append((match["finished_at"], match["id"], teams, summary["winner"]))
    for number in range(1, ROUNDS + 2):  # the annulled round's bye counts too
        for bye in api.call("GET", base + f"/rounds/{number}")["byes"]:
            tally[bye["player"]["username"]]["byes"] += 1
            tally[bye["player"]["username"]]["wins"] += 1  # a bye counts as a match won
    rows = api.call("GET", base + "/standings")["results"]
    assert len(rows) == BOTS
    for row in rows:
        expected = tally[row["player"]["username"]]
        for name in (
            "played",
            "wins",
            "byes",
            "hands_won",
            "hands_lost",
            "points",
            "dekabes",
            "ties",
        ):
            assert row[name] == expected[name], (row, dict(expected))
        assert row["player"]["is_bot"] is True
    keys = [(r["wins"], r["hands_won"] - r["hands_lost"], r["points"]) for r in rows]
    assert keys == sorted(keys, reverse=True)
    # Ratings: openskill's Plackett-Luce (docs/league.md) over the matches in finishing order.
    model = PlackettLuce(mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, kappa=0.0001, tau=25.0 / 300)
    ratings = {}
    for _, _, teams, winner in sorted(finished):
        groups = [[ratings.get(p) or model.rating(name=p) for p in teams[t]] for t in ("A", "B")]
        new = model.rate(groups, ranks=[1, 2] if winner == "A" else [2, 1])
        for team, players in zip(new, (teams["A"], teams["B"]), strict=True):
            for rating, player in zip(team, players, strict=True):
                ratings[player] = rating
    listed = api.call("GET", "/api/clubs/live/ratings")["results"]
    assert {r["player"] for r in listed} == set(ratings)
    for r in listed:
        assert r["mu"] == pytest.approx(ratings[r["player"]].mu, abs=1e-9)
        assert r["sigma"] == pytest.approx(ratings[r["player"]].sigma, abs=1e-9)
        assert r["ordinal"] == pytest.approx(ratings[r["player"]].ordinal(), abs=1e-9)
        assert r["is_bot"] is True
    ordinals = [r["ordinal"] for r in listed]
    assert ordinals == sorted(ordinals, reverse=True)
    profile = api.call("GET", f"/api/players/{listed[0]['player']}")
    history = profile["ratings"][0]["history"]
    assert len(history) == listed[0]["matches"] and history[-1]["ordinal"] == listed[0]["ordinal"]
