"""Long-polls against a live Daphne (issue 10.4, 11.3): hundreds of them hang on the event
loop, not on threads, so another player's action and long-poll are answered at once."""

from __future__ import annotations

import json
import socket
import uuid

import pytest
import requests

from tests.conftest import LiveServer

PASSWORD = "a long enough password 42"
ACCOUNTS = 5
POLLS_EACH = 40  # 200 hanging long-polls in all, more than the old 128-thread pool


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("long-polls"), env={"DEKABES_MAX_LONG_POLLS": str(POLLS_EACH)}
    ).start()
    try:
        yield live
    finally:
        live.stop()


class Player:
    """An account with a table of its own (it holds all four human seats)."""

    def __init__(self, url: str):
        self.url = url
        name = f"lp{uuid.uuid4().hex[:10]}"
        token = requests.post(
            url + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=60
        ).json()["token"]
        self.token = token
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        self.code = self.session.post(
            url + "/api/tables",
            json={"seats": {str(n): "human" for n in (1, 2, 3, 4)}, "join": [1, 2, 3, 4]},
            timeout=60,
        ).json()["code"]

    def seat(self, n: int, **params) -> requests.Response:
        return self.session.get(
            f"{self.url}/api/tables/{self.code}/seats/{n}", params=params, timeout=60
        )

    def accept(self, n: int) -> requests.Response:
        version = self.seat(n).json()["version"]
        return self.session.post(
            f"{self.url}/api/tables/{self.code}/seats/{n}/actions",
            json={"type": "accept", "expected_version": version},
            timeout=60,
        )


def hanging_long_poll(port: int, player: Player, after: int) -> socket.socket:
    """A long-poll sent over a raw socket and left unread: no client thread per poll."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        f"GET /api/tables/{player.code}/seats/1?wait=30&after={after} HTTP/1.1\r\n"
        f"Host: 127.0.0.1\r\nAuthorization: Token {player.token}\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    return sock


def read_answer(sock: socket.socket, timeout: float) -> tuple[int, dict]:
    sock.settimeout(timeout)
    data = b""
    while True:
        more = sock.recv(65536)
        if not more:
            break
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_200_hanging_long_polls_do_not_delay_another_player(server):
    players = [Player(server.url) for _ in range(ACCOUNTS)]
    bystander = Player(server.url)
    hanging = []
    try:
        for player in players:
            version = player.seat(1).json()["version"]
            hanging += [
                (player, hanging_long_poll(server.port, player, version)) for _ in range(POLLS_EACH)
            ]
        # The server has parked them (a plain read answers only after the requests
        # before it on the quick thread), and none is answered: nothing moved.
        assert bystander.seat(1).status_code == 200
        for _, sock in hanging:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
            sock.setblocking(True)

        # Another player acts, and its own long-poll is answered when its table moves:
        # with the old pool of 128 threads it queued behind the 200 for up to 30 s.
        assert bystander.accept(1).status_code == 200
        version = bystander.seat(2).json()["version"]
        own_poll = hanging_long_poll(server.port, bystander, version)
        assert bystander.accept(2).status_code == 200
        status, body = read_answer(own_poll, timeout=15)  # half the hanging polls' wait
        assert status == 200 and body["version"] == version + 1
        own_poll.close()

        # A commit wakes the long-polls of its table, and only those.
        first = players[0]
        assert first.accept(2).status_code == 200
        for _, sock in hanging[:POLLS_EACH]:
            status, body = read_answer(sock, timeout=15)
            assert status == 200 and body["view"]["accepted"]["2"] is True
        for _, sock in hanging[POLLS_EACH:]:
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for _, sock in hanging:
            sock.close()
