"""SDK pieces that need no server: error mapping, URL building, JSON wrappers,
and the retry path when nothing listens."""

import http.server
import json
import socket
import threading
import time

import pytest

from clients.sdk import (
    ApiError,
    ConnectionLost,
    DekabesClient,
    IdempotencyKeyReused,
    NotAuthenticated,
    NotFound,
    NotYourSeat,
    Paused,
    RuleRejected,
    SeatState,
    StaleVersion,
    Table,
)
from clients.sdk.errors import RULE_REJECTION_CODES, error_from_response
from clients.sdk.push import ws_url
from engine.errors import REJECTION_CODES


def test_sdk_knows_exactly_the_engine_rejection_codes():
    assert RULE_REJECTION_CODES == frozenset(REJECTION_CODES)


@pytest.mark.parametrize(
    "code, status, cls",
    [
        ("stale_version", 409, StaleVersion),
        ("paused", 409, Paused),
        ("not_authenticated", 401, NotAuthenticated),
        ("not_your_seat", 403, NotYourSeat),
        ("idempotency_key_reused", 422, IdempotencyKeyReused),
        ("tile_not_in_hand", 400, RuleRejected),
        ("not_your_turn", 409, RuleRejected),
        ("something_new", 400, ApiError),
    ],
)
def test_error_class_follows_the_server_code(code, status, cls):
    error = error_from_response(status, {"code": code, "message": "text"})
    assert type(error) is cls
    assert (error.code, error.status, error.message) == (code, status, "text")


def test_stale_version_error_carries_the_fresh_view():
    body = {"code": "stale_version", "message": "behind", "view": {"version": 9}}
    error = error_from_response(409, body)
    assert isinstance(error, StaleVersion) and error.view == {"version": 9}


def test_error_without_json_body_gets_a_code_from_the_status():
    assert type(error_from_response(404, None, "<html>")) is NotFound
    assert error_from_response(502, None).code == "http_502"
    assert isinstance(error_from_response(401, "oops"), NotAuthenticated)


def test_websocket_url_follows_the_http_scheme():
    assert (
        ws_url("http://127.0.0.1:8000/", "K7Q2MX", 3)
        == "ws://127.0.0.1:8000/ws/tables/K7Q2MX?seat=3"
    )
    assert ws_url("https://club.example", "AB", None) == "wss://club.example/ws/tables/AB"


def test_seat_state_reads_the_seat_view_response():
    body = {
        "version": 12,
        "paused": False,
        "allowed": ["play", "undo"],
        "table": {
            "code": "K7Q2MX",
            "owner": "ann",
            "rated": False,
            "version": 12,
            "paused": False,
            "phase": "play",
            "seats": {
                "1": {"kind": "human", "player": "ann", "is_bot": False},
                "2": {"kind": "bot", "player": "hb", "is_bot": True},
                "3": {"kind": "bot", "player": "hb", "is_bot": True},
                "4": {"kind": "bot", "player": None, "is_bot": False},
            },
        },
        "view": {"seat": 2, "phase": "play", "to_act": 2, "legal": [{"type": "pass", "seat": 2}]},
    }
    state = SeatState.from_json(body, code="K7Q2MX", seat=2)
    assert (state.version, state.phase, state.to_act, state.paused) == (12, "play", 2, False)
    assert state.legal == [{"type": "pass", "seat": 2}]
    assert state.table.seats_held_by("hb") == [2, 3]
    assert isinstance(state.table, Table) and state.table.owner == "ann"
    assert not state.match_over


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_server_raises_connection_lost_after_retries():
    client = DekabesClient(
        f"http://127.0.0.1:{_closed_port()}", token="x", retries=2, backoff=0.01, timeout=1
    )
    with pytest.raises(ConnectionLost):
        client.act("K7Q2MX", 1, "accept", expected_version=3)
    assert client.request_count == 3  # the first try and two retries


class _SlowFirstRegistration(http.server.BaseHTTPRequestHandler):
    """A server whose first registration answers after the client gave up (it did create
    the account), so the retry is told the name is taken; signing in then works."""

    registrations = 0
    answered_after_timeout = threading.Event()

    def do_POST(self):  # noqa: N802 (http.server's name)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/api/auth/register":
            type(self).registrations += 1
            if type(self).registrations == 1:
                time.sleep(0.6)  # the client's timeout is 0.2 s
                type(self).answered_after_timeout.set()
                return self._answer(201, {"username": body["username"], "token": "first"})
            return self._answer(409, {"code": "username_taken", "message": "taken"})
        if self.path == "/api/auth/token" and body.get("password") == "right password 42":
            return self._answer(200, {"username": body["username"], "token": "signed-in"})
        return self._answer(400, {"code": "bad_credentials", "message": "no"})

    def _answer(self, status, payload):
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped waiting: that is the point

    def log_message(self, *args):
        pass


@pytest.mark.stand_in_server
def test_a_registration_retried_after_a_timeout_signs_in_when_the_first_attempt_made_the_account():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowFirstRegistration)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        client = DekabesClient(url, retries=3, backoff=0.01, timeout=0.2)
        account = client.register("ann", "right password 42")
        assert account.token == "signed-in" == client.token
        assert _SlowFirstRegistration.registrations == 2
        # Without a retry, a taken name is the caller's answer, not a sign-in attempt.
        with pytest.raises(ApiError) as taken:
            DekabesClient(url, retries=3, backoff=0.01, timeout=5).register("ann", "other one 42")
        assert taken.value.code == "username_taken"
        assert _SlowFirstRegistration.answered_after_timeout.wait(5)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


# -- the push socket's text frames, against a bare WebSocket server ---------------------------
def _ws_handshake(conn: socket.socket) -> None:
    import base64
    import hashlib

    request = b""
    while b"\r\n\r\n" not in request:
        request += conn.recv(4096)
    key = next(
        line.split(b":", 1)[1].strip()
        for line in request.split(b"\r\n")
        if line.lower().startswith(b"sec-websocket-key:")
    )
    accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
    conn.sendall(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
    )


def _text_frame(payload: bytes) -> bytes:  # a server's frame: unmasked
    size = len(payload)
    head = bytes([0x81, size]) if size < 126 else bytes([0x81, 126]) + size.to_bytes(2, "big")
    return head + payload


def _read_client_frame(conn: socket.socket) -> bytes:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            assert chunk, "the client closed"
            data += chunk
        return data

    _, second = exactly(2)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(exactly(2), "big")
    elif size == 127:
        size = int.from_bytes(exactly(8), "big")
    mask = exactly(4)
    return bytes(b ^ mask[i % 4] for i, b in enumerate(exactly(size)))


def test_push_socket_reads_utf8_and_fails_the_connection_on_a_frame_that_is_not():
    """Pushes skip websocket-client's byte-by-byte UTF-8 check (slow in Python): text is
    still decoded strictly, so an answer in any language arrives whole, and a text frame
    that is not UTF-8 ends that connection (RFC 6455 §8.1) and the thread reconnects,
    dropping whatever that connection sent after it."""
    from clients.sdk.push import PushSubscription

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(2)
    listener.settimeout(20)
    port = listener.getsockname()[1]
    second_connection = threading.Event()
    problems: list[BaseException] = []

    def serve() -> None:
        try:
            first, _ = listener.accept()
            with first:
                _ws_handshake(first)
                action = json.loads(_read_client_frame(first))
                answer = {
                    "type": "answer",
                    "command_id": action["command_id"],
                    "status": 200,
                    "body": {"note": "Dékabès ♠ 双六", "pad": "é" * 300},
                }
                first.sendall(_text_frame(json.dumps(answer, ensure_ascii=False).encode()))
                first.sendall(_text_frame(b'{"type": "presence", "x": "\xff\xfe"}'))
                first.sendall(_text_frame(b'{"type": "presence"}'))  # after it: dropped
                second, _ = listener.accept()
                with second:
                    _ws_handshake(second)
                    second_connection.set()
                    second.settimeout(20)
                    try:
                        second.recv(1)  # until the client leaves
                    except OSError:
                        pass
        except BaseException as problem:  # shown by the test's own assertions
            problems.append(problem)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    subscription = PushSubscription(f"http://127.0.0.1:{port}", "t0ken", "K7Q2MX", seat=1)
    try:
        subscription.start()
        assert subscription.connected.wait(20)
        status, body = subscription.send_action(
            1, {"type": "pass", "expected_version": 3}, "c1", timeout=20
        )
        assert (status, body["note"], body["pad"]) == (200, "Dékabès ♠ 双六", "é" * 300)
        assert second_connection.wait(20), problems
        kinds = []
        while (push := subscription.get(timeout=20)) is not None:
            kinds.append(push.reason)
            if push.reason == "reconnected":
                break
        assert kinds == ["connected", "reconnected"]  # the presence frames never arrived
        assert subscription.connections == 2 and not problems
    finally:
        subscription.close()
        listener.close()
        server.join(timeout=10)
