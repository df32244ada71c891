"""The ticking driver in a real server process (``DEKABES_TICK_SECONDS``, which
``server.run`` sets): once a round's deadline has passed it hands the seat that is away
to a computer player, and only that one, with no request of anyone's. The three players
who opened their seat views are present in the server's memory (no Redis): a tick run in
another process would see them away too, and substitute all four."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import time
import uuid
from pathlib import Path

import requests

from tests.conftest import LiveServer

PASSWORD = "a long enough password 42"


class Api:
    def __init__(self, url: str, token: str | None = None):
        self.url, self.session = url, requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, body: dict | None = None, status: int = 200) -> dict:
        answer = self.session.request(method, self.url + path, json=body, timeout=30)
        assert answer.status_code == status, (path, answer.status_code, answer.text)
        return answer.json()


def handovers(database: Path) -> list[dict]:
    with sqlite3.connect(database, timeout=30) as db:
        rows = db.execute(
            "SELECT payload FROM tables_event WHERE type = 'seat_handover' ORDER BY seq"
        ).fetchall()
    return [json.loads(payload) for (payload,) in rows]


def test_the_server_ticks_and_substitutes_only_the_seat_that_is_away(tmp_path):
    server = LiveServer(tmp_path, env={"DEKABES_TICK_SECONDS": "0.5"})
    database = Path(server.env["DEKABES_SQLITE_PATH"])
    try:
        server.start()
        tag = uuid.uuid4().hex[:6]
        tokens = {}
        for name in ["org", "m1", "m2", "m3", "m4"]:
            made = Api(server.url).call(
                "post",
                "/api/auth/register",
                {"username": f"{name}-{tag}", "password": PASSWORD},
                status=201,
            )
            tokens[f"{name}-{tag}"] = made["token"]
        organizer, *members = tokens
        org = Api(server.url, tokens[organizer])
        slug = f"tick-{tag}"
        org.call("post", "/api/clubs", {"slug": slug, "name": "Tick"}, status=201)
        for member in members:
            code = org.call("post", f"/api/clubs/{slug}/invites", {}, status=201)["code"]
            Api(server.url, tokens[member]).call(
                "post", f"/api/clubs/{slug}/join", {"code": code}, status=201
            )
        season = org.call(
            "post",
            f"/api/clubs/{slug}/seasons",
            {"name": "Auto", "format": "individual", "seed": 3, "auto_substitute_after": 1},
            status=201,
        )["id"]
        rounds = f"/api/clubs/{slug}/seasons/{season}/rounds"
        org.call("post", rounds, status=201)
        org.call("post", f"{rounds}/1/checkin", {"players": members})
        table = org.call("post", f"{rounds}/1/start")["tables"][0]
        holders = {s["seat"]: s["player"] for s in table["seats"]}
        # The table was made ten minutes ago: a seat never opened since is away that long.
        made = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=10)
        with sqlite3.connect(database, timeout=30) as db:
            db.execute(
                "UPDATE tables_table SET created_at = ? WHERE code = ?",
                (made.strftime("%Y-%m-%d %H:%M:%S.%f"), table["table"]),
            )
        for seat in (1, 2, 3):  # present: each opens their seat view (a 60 s lease)
            Api(server.url, tokens[holders[seat]]).call(
                "get", f"/api/tables/{table['table']}/seats/{seat}"
            )
        past = (dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)).isoformat()
        org.call("patch", f"{rounds}/1", {"deadline": past})
        # No one reads anything now: the server's own tick does it. Seats are walked in
        # order, so seat 4's handover comes after any of seats 1-3 in the same tick.
        deadline = time.monotonic() + 120
        while not handovers(database) and time.monotonic() < deadline:
            time.sleep(0.2)
        done = handovers(database)
        assert [(h["seat"], h["from"], h["reason"]) for h in done] == [
            (4, holders[4], "auto_substitute")
        ]
    finally:
        server.stop()
