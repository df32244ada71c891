"""A socket action against a real Daphne process killed (SIGKILL) between the action's
commit and its answer: the answer never came, and the retry with the same
``command_id`` — over the socket once the server is back, or over REST — answers the
committed result and appends nothing."""

from __future__ import annotations

import json

import pytest
import websocket

from clients.sdk.push import ws_url
from tests.conftest import LiveServer
from tests.server.conftest import owner_with_bot_table


def open_seat_socket(url: str, code: str, seat: int, token: str) -> websocket.WebSocket:
    return websocket.create_connection(
        ws_url(url, code, seat), timeout=30, header=[f"Authorization: Token {token}"]
    )


def answer_of(sock: websocket.WebSocket) -> dict:
    """The next answer frame (views, presence and pings may come first)."""
    while True:
        frame = json.loads(sock.recv())
        if frame["type"] == "answer":
            return frame


@pytest.mark.backend
def test_the_retry_after_a_kill_between_commit_and_answer_answers_the_commit(tmp_path):
    flag = tmp_path / "die-after-commit"
    server = LiveServer(
        tmp_path,
        env={"DEKABES_DIE_AFTER_COMMIT": str(flag)},
        application="tests.server.dying_asgi:application",
    )
    sock = None
    try:
        server.start()
        owner, _, code = owner_with_bot_table(server.url, retries=0)
        before = owner.seat_view(code, 1)
        message = {
            "type": "action",
            "action": "accept",
            "expected_version": before.version,
            "command_id": "accept-once",
        }
        sock = open_seat_socket(server.url, code, 1, owner.token or "")
        flag.touch()
        sock.send(json.dumps(message))
        with pytest.raises((websocket.WebSocketException, OSError)):
            while True:  # frames until the connection drops; never an answer
                frame = sock.recv()
                assert not frame or json.loads(frame)["type"] != "answer", frame
        assert server.process is not None
        assert server.process.wait(30) == -9  # killed, not stopped
        assert not flag.exists()  # it died after a commit
        sock.close()
        server.start()  # same port, same database file
        sock = open_seat_socket(server.url, code, 1, owner.token or "")
        sock.send(json.dumps(message))
        again = answer_of(sock)
        assert again["command_id"] == "accept-once" and again["status"] == 200, again
        committed = again["body"]
        assert committed["version"] == before.version + 1
        assert committed["view"]["accepted"]["1"] is True
        over_rest = owner.act(code, 1, "accept", before.version, key="accept-once")
        assert over_rest.raw == committed
        accepts = [e for e in owner.all_events(code, 1) if e["type"] == "accept"]
        assert len(accepts) == 1 and owner.seat_view(code, 1).version == committed["version"]
    finally:
        if sock is not None:
            sock.close()
        server.stop()
