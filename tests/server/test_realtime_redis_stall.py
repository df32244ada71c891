"""A seat socket on the Redis channel layer outlives a Redis stall and still gets every
version (docs/server.md, "Production layout": Redis stalls).

The stall is made by a relay between the server and the real Redis (``redis_stall``), not
by ``CLIENT PAUSE``: that pauses the one Redis every test process and checkout shares,
and a pause past their 5 s read timeouts would make their sockets fail. The relay holds
only this server's connections, both ways, for ``STALL_SECONDS``: longer than redis-py's
default read timeout (5 s, which channels_redis's connections had), shorter than the
channel layer's (5 s + ``DEKABES_REDIS_STALL_SECONDS``, ``server.settings``). Before
that setting, both tests failed: the socket closed ("Timeout reading from ...", then
"Connection closed by server." in the server's log).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass

import pytest
import redis
import websocket

from clients.sdk import DekabesClient
from clients.sdk.push import ws_url
from tests.conftest import LiveServer
from tests.server.conftest import owner_with_bot_table
from tests.server.redis_stall import StallingRelay

pytestmark = pytest.mark.backend

STALL_SECONDS = 7.0


@pytest.fixture
def stalled_server(tmp_path):
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL not set: Redis channel layer not tested")
    relay = StallingRelay(url)
    prefix = f"t{uuid.uuid4().hex[:8]}"
    server = LiveServer(
        tmp_path,
        env={
            "REDIS_URL": relay.url,
            "DEKABES_CHANNEL_PREFIX": prefix,
            "DEKABES_WS_PING_SECONDS": "1",  # pings (and their lease renewals) go on
        },
    )
    try:
        server.start()
        yield server, relay, prefix
    finally:
        server.stop()
        relay.close()


def read(sock) -> dict:
    text = sock.recv()
    if not text:  # a close frame
        raise AssertionError("the server closed the socket")
    return json.loads(text)


def frames_until(sock, done, within: float) -> list[dict]:
    """The frames read until ``done(frame)`` (or ``within`` seconds: a timeout then)."""
    seen: list[dict] = []
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            frame = read(sock)
        except websocket.WebSocketTimeoutException:
            continue
        seen.append(frame)
        if done(frame):
            return seen
    raise AssertionError(f"not within {within} s; frames: {[f['type'] for f in seen]}")


@dataclass
class Seated:
    owner: DekabesClient
    bot: DekabesClient  # the bot's grant: it plays seats 2-4
    code: str
    sock: websocket.WebSocket  # the owner's seat socket (seat 1), open


@pytest.fixture
def seated(stalled_server):
    """A table of the owner's at the server, and its seat socket, open: its socket lease
    is in Redis (the last thing a socket does on opening, after its process's hub joined
    the table's group)."""
    server, relay, prefix = stalled_server
    owner, bot, code = owner_with_bot_table(server.url)
    sock = websocket.create_connection(
        ws_url(server.url, code, 1), header=[f"Authorization: Token {owner.token}"], timeout=1
    )
    direct = redis.Redis.from_url(os.environ["REDIS_URL"])  # the test's own, not relayed
    try:
        deadline = time.monotonic() + 20
        while not any(
            b"|socket." in member
            for key in direct.scan_iter(f"{prefix}:presence:*")
            for member in direct.zrange(key, 0, -1)
        ):
            assert time.monotonic() < deadline, "the socket never took its lease"
            frames_until(sock, lambda f: f["type"] == "ping", within=10)
        yield Seated(owner, DekabesClient(server.url, bot.token), code, sock)
    finally:
        sock.close()
        direct.close()


def next_version_pushed(seated: Seated) -> None:
    """The bot accepts its seat: the socket gets the view of the version after, and is
    still pinged after (its pings renew its lease in Redis: they went on)."""
    start = seated.owner.seat_view(seated.code, 1)
    seated.bot.act(seated.code, 2, "accept", expected_version=start.version)
    after = frames_until(
        seated.sock, lambda f: f["type"] == "view" and f["version"] > start.version, within=30
    )
    assert after[-1]["version"] == start.version + 1
    assert after[-1]["view"]["accepted"]["2"] is True
    frames_until(seated.sock, lambda f: f["type"] == "ping", within=10)
    assert seated.sock.connected


def test_a_seat_socket_outlives_a_redis_stall_and_gets_the_next_version(stalled_server, seated):
    _, relay, _ = stalled_server
    relay.stall()
    try:
        ends = time.monotonic() + STALL_SECONDS
        while time.monotonic() < ends:  # the stall lasts this long, whatever comes
            try:
                read(seated.sock)  # pings still come (they wait on no Redis)
            except websocket.WebSocketTimeoutException:
                pass
    finally:
        relay.resume()
    assert relay.held > 0  # the server did wait on Redis meanwhile
    next_version_pushed(seated)


def test_a_seat_socket_outlives_its_redis_connections_reset(stalled_server, seated):
    _, relay, _ = stalled_server
    relay.cut()  # as a Redis restart: the connections reading (and the others) reset
    next_version_pushed(seated)


def close_code_within(sock, within: float) -> int:
    """The code ``sock`` is closed with (the frames before it skipped)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            opcode, data = sock.recv_data(control_frame=True)
        except websocket.WebSocketTimeoutException:
            continue
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            return int.from_bytes(data[:2], "big")
    raise AssertionError(f"not closed within {within} s")


def test_a_seat_socket_closes_4503_when_redis_stays_away_and_a_new_one_hears_again(
    stalled_server, seated
):
    """Redis refusing connections past the channel layer's retries: the process's hub
    stops hearing the table, and what is sent meanwhile is lost. So its sockets close
    with 4503 (docs/api.md: reconnect, read the view again), as a socket whose own
    receive failed closed before sockets listened through the hub. Once Redis is back,
    a new socket gets the next version."""
    server, relay, _ = stalled_server
    relay.refuse()
    try:
        code = close_code_within(seated.sock, within=60)
    finally:
        relay.resume()
    assert code == 4503
    seated.sock.close()
    seated.sock = websocket.create_connection(
        ws_url(server.url, seated.code, 1),
        header=[f"Authorization: Token {seated.owner.token}"],
        timeout=1,
    )
    next_version_pushed(seated)
