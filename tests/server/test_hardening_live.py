"""Against a live Daphne (issue 11.1, 11.2, 11.10): oversized bodies refused as they
arrive without growing the server, real WebSocket close codes, login throttles."""

from __future__ import annotations

import json
import socket
import uuid
from pathlib import Path

import pytest
import requests
import websocket

from tests.conftest import LiveServer

PASSWORD = "a long enough password 42"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("hardening"),
        env={"DEKABES_RATE_LOGIN_NAME": "3/minute", "DEKABES_RATE_LOGIN_ADDRESS": "1000/minute"},
    ).start()
    try:
        yield live
    finally:
        live.stop()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def read_response(sock: socket.socket) -> tuple[int, dict, bytes]:
    data = b""
    sock.settimeout(60)
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        if not more:
            break
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        more = sock.recv(65536)
        if not more:
            break
        body += more
    return int(lines[0].split()[1]), headers, body


def test_a_400_mb_announced_body_is_refused_at_once_with_json_413(server):
    before = rss_kb(server.process.pid)
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST /api/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 400000000\r\n\r\n" + b"x" * 65536
        )
        status, headers, body = read_response(sock)
    assert status == 413 and headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "body_too_large"
    assert rss_kb(server.process.pid) - before < 20_000
    assert requests.get(server.url + "/api/me", timeout=30).status_code == 401  # still serving


def test_a_chunked_body_is_cut_off_at_the_limit_without_growing_the_server(server):
    before = rss_kb(server.process.pid)
    sent = 0
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b"y" * (1 << 20))
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST /api/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        try:
            for _ in range(200):  # up to 200 MB, if the server kept reading
                sock.sendall(chunk)
                sent += 1
        except OSError:
            pass  # the server answered and closed
        status, _, body = read_response(sock)
    assert status == 413 and json.loads(body)["code"] == "body_too_large"
    assert sent < 200
    assert rss_kb(server.process.pid) - before < 20_000


def test_websocket_refusals_arrive_as_the_documented_close_codes(server):
    sock = websocket.create_connection(
        server.url.replace("http", "ws") + "/ws/tables/ABCDEF", timeout=30
    )
    try:
        opcode, frame = sock.recv_data(control_frame=True)
    finally:
        sock.close()
    assert opcode == websocket.ABNF.OPCODE_CLOSE
    assert int.from_bytes(frame[:2], "big") == 4401


def test_failed_logins_on_one_name_get_429_with_retry_after(server):
    name = f"flood{uuid.uuid4().hex[:8]}"
    made = requests.post(
        server.url + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=60
    )
    assert made.status_code == 201
    answers = [
        requests.post(
            server.url + "/api/auth/token",
            json={"username": name, "password": "wrong password here"},
            timeout=60,
        )
        for _ in range(5)
    ]
    assert [a.status_code for a in answers] == [401, 401, 401, 429, 429]
    assert (
        answers[-1].json()["code"] == "throttled" and int(answers[-1].headers["Retry-After"]) >= 1
    )
    # The account itself is untouched: its token still works.
    me = requests.get(
        server.url + "/api/me",
        headers={"Authorization": f"Token {made.json()['token']}"},
        timeout=60,
    )
    assert me.status_code == 200


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"THIS IS NOT HTTP\r\n\r\n",  # a request line Twisted cannot parse
        b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n",  # a bad header
        b"GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Name: x\r\n\r\n",  # Daphne's check
        b"GET /api/\xff HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  # a path that is not ASCII
    ],
)
def test_a_malformed_request_gets_a_json_400(server, request_bytes):
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(request_bytes)
        status, headers, body = read_response(sock)
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "bad_request"
