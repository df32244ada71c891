"""Socket actions racing REST actions on two live server processes sharing one
PostgreSQL database and one Redis (issue #37, "REST's exact semantics"): the same
decision sent at the same moment over a seat's socket at one process and over REST at
the other.

- Two decisions for one version: exactly one is applied, the other answers
  ``409 stale_version``, and the table moves on by the winner's events only.
- One decision sent twice under one key (``command_id`` = ``Idempotency-Key``): it is
  applied once, and both paths answer the same result.
"""

from __future__ import annotations

import json
import threading
import uuid

import requests
import websocket

from clients.sdk.push import ws_url

# Processes A and B, each on a port of its own, on a private PostgreSQL database and the
# suite's Redis: the league races' servers and their skip when either is missing.
from tests.league.test_races import PASSWORD, pg, pytestmark, servers  # noqa: F401

RACES = 12


class Racers:
    """A table whose four seats one account holds: a socket per seat at process A,
    REST at process B."""

    def __init__(self, a: str, b: str):
        self.a, self.b = a, b
        name = f"race{uuid.uuid4().hex[:8]}"
        answer = requests.post(
            f"{b}/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=60
        )
        answer.raise_for_status()
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {answer.json()['token']}"
        created = self.session.post(
            f"{a}/api/tables",
            json={"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]},
            timeout=60,
        )
        created.raise_for_status()
        self.code = created.json()["code"]
        token = self.session.headers["Authorization"].split()[1]
        self.sockets = {
            n: websocket.create_connection(
                ws_url(a, self.code, n),
                timeout=60,
                header=[f"Authorization: Token {token}"],
                skip_utf8_validation=True,
            )
            for n in (1, 2, 3, 4)
        }

    def close(self) -> None:
        for sock in self.sockets.values():
            sock.close()

    def view(self, seat: int, url: str | None = None) -> dict:
        answer = self.session.get(
            f"{url or self.b}/api/tables/{self.code}/seats/{seat}", timeout=60
        )
        answer.raise_for_status()
        return answer.json()

    def over_socket(self, seat: int, body: dict, key: str) -> tuple[int, dict]:
        message = {k: v for k, v in body.items() if k != "type"}
        message.update(type="action", action=body["type"], seat=seat, command_id=key)
        sock = self.sockets[seat]
        sock.send(json.dumps(message))
        while True:  # views, presence and pings may come first
            frame = json.loads(sock.recv())
            if frame["type"] == "answer" and frame["command_id"] == key:
                return frame["status"], frame["body"]

    def over_rest(self, seat: int, body: dict, key: str) -> tuple[int, dict]:
        answer = self.session.post(
            f"{self.b}/api/tables/{self.code}/seats/{seat}/actions",
            json=body,
            headers={"Idempotency-Key": key},
            timeout=60,
        )
        return answer.status_code, answer.json()

    def race(self, seat: int, by_socket: tuple, by_rest: tuple) -> list[tuple[int, dict]]:
        """Both sent at once (a barrier), each from its own thread; their answers."""
        start = threading.Barrier(2)
        results: list = [None, None]

        def run(index, send, args):
            start.wait(timeout=60)
            try:
                results[index] = send(seat, *args)
            except Exception as problem:  # reported below, in the test's thread
                results[index] = problem

        threads = [
            threading.Thread(target=run, args=(0, self.over_socket, by_socket)),
            threading.Thread(target=run, args=(1, self.over_rest, by_rest)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        for result in results:
            if not isinstance(result, tuple):
                raise AssertionError(f"a racer failed: {result!r}")
        return results


def to_act(view: dict) -> int:
    """The seat that decides next: the one to act, or the first that has not accepted."""
    if view["to_act"]:
        return view["to_act"]
    return next(n for n in (1, 2, 3, 4) if not view["accepted"][str(n)])


def test_two_decisions_for_one_version_one_is_applied_whichever_path(servers):  # noqa: F811
    a, b = servers
    racers = Racers(a, b)
    try:
        seat, wins = 1, {"socket": 0, "rest": 0}
        for _ in range(RACES):
            now = racers.view(seat)
            seat = to_act(now["view"])
            now = racers.view(seat)
            legal = [{k: v for k, v in e.items() if k != "seat"} for e in now["view"]["legal"]]
            assert legal, now["view"]
            version = now["version"]
            first, second = legal[0], legal[-1]  # two decisions where there are two
            results = racers.race(
                seat,
                ({**first, "expected_version": version}, uuid.uuid4().hex),
                ({**second, "expected_version": version}, uuid.uuid4().hex),
            )
            statuses = sorted(status for status, _ in results)
            assert statuses == [200, 409], results
            winner = next(body for status, body in results if status == 200)
            loser = next(body for status, body in results if status == 409)
            assert loser["code"] == "stale_version", loser
            wins["socket" if results[0][0] == 200 else "rest"] += 1
            assert winner["version"] > version
            # nothing but the winner's events: both processes read its version
            for url in (a, b):
                assert racers.view(seat, url)["version"] == winner["version"]
            seat = to_act(winner["view"])
        assert sum(wins.values()) == RACES
    finally:
        racers.close()


def test_one_decision_under_one_key_on_both_paths_is_applied_once(servers):  # noqa: F811
    a, b = servers
    racers = Racers(a, b)
    try:
        seat = 1
        for _ in range(RACES):
            now = racers.view(seat)
            seat = to_act(now["view"])
            now = racers.view(seat)
            version = now["version"]
            decision = {k: v for k, v in now["view"]["legal"][0].items() if k != "seat"}
            body = {**decision, "expected_version": version}
            key = uuid.uuid4().hex
            results = racers.race(seat, (body, key), (body, key))
            assert [status for status, _ in results] == [200, 200], results
            (_, by_socket), (_, by_rest) = results
            assert by_socket == by_rest  # the same answer, whichever came second
            after = by_socket["version"]
            events = racers.session.get(
                f"{b}/api/tables/{racers.code}/seats/{seat}/events",
                params={"after": version},
                timeout=60,
            ).json()["events"]
            # the log's sequence numbers are its versions: what came after the race
            assert [e["seq"] for e in events] == list(range(version + 1, after + 1))
            assert [e["type"] for e in events].count(decision["type"]) == 1, events
            for url in (a, b):
                assert racers.view(seat, url)["version"] == after
            seat = to_act(by_socket["view"])
    finally:
        racers.close()
