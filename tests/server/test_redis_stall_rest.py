"""REST requests through a Redis stall (``server.redis_clients``): a seat's view and
action wait out a stall within ``DEKABES_REDIS_STALL_SECONDS`` and answer as usual; past
it they answer ``503 server_busy`` with ``Retry-After`` and write nothing, and the retry
with the same Idempotency-Key applies the action once. Before, both answered 500 after
redis-py's 5 s read timeout (the presence lease a seat request takes is in Redis).

The stall is the relay's of ``test_realtime_redis_stall`` (only this server's Redis
connections are held)."""

from __future__ import annotations

import os
import threading
import time
import uuid

import pytest
import requests

from tests.conftest import LiveServer
from tests.server.conftest import owner_with_bot_table
from tests.server.redis_stall import StallingRelay

pytestmark = pytest.mark.backend

STALL_SECONDS = 7.0  # past redis-py's default 5 s read timeout


def stalling_server(tmp_path, **env):
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("REDIS_URL not set: Redis not tested")
    relay = StallingRelay(url)
    server = LiveServer(
        tmp_path,
        env={"REDIS_URL": relay.url, "DEKABES_CHANNEL_PREFIX": f"t{uuid.uuid4().hex[:8]}", **env},
    )
    return server, relay


def seat_two(server, bot, code: str, method: str = "GET", **kwargs) -> requests.Response:
    path = f"{server.url}/api/tables/{code}/seats/2" + ("/actions" if method == "POST" else "")
    headers = {"Authorization": f"Token {bot.token}", **kwargs.pop("headers", {})}
    return requests.request(method, path, headers=headers, timeout=60, **kwargs)


def test_a_seat_view_and_action_wait_out_a_stall_within_the_bound(tmp_path):
    server, relay = stalling_server(tmp_path)  # the default bound: 10 s
    try:
        server.start()
        owner, bot, code = owner_with_bot_table(server.url)
        version = seat_two(server, bot, code).json()["version"]
        relay.stall()
        threading.Timer(STALL_SECONDS, relay.resume).start()
        started = time.monotonic()
        answer = seat_two(
            server, bot, code, "POST", json={"type": "accept", "expected_version": version}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == version + 1
        assert time.monotonic() - started >= STALL_SECONDS - 1  # it did wait on Redis
        assert relay.held > 0
        assert seat_two(server, bot, code).json()["version"] == version + 1
    finally:
        relay.resume()
        server.stop()
        relay.close()


def test_past_the_bound_an_action_answers_503_writes_nothing_and_its_retry_applies_once(
    tmp_path,
):
    server, relay = stalling_server(tmp_path, DEKABES_REDIS_STALL_SECONDS="2")
    try:
        server.start()
        owner, bot, code = owner_with_bot_table(server.url)
        version = seat_two(server, bot, code).json()["version"]
        action = {"json": {"type": "accept", "expected_version": version}}
        key = {"Idempotency-Key": uuid.uuid4().hex}
        relay.stall()
        busy = seat_two(server, bot, code, "POST", headers=key, **action)
        assert busy.status_code == 503, busy.text
        assert busy.json()["code"] == "server_busy"
        assert busy.headers["Retry-After"] == "1"
        assert "Traceback" not in busy.text and "redis" not in busy.text.lower()
        relay.resume()
        assert seat_two(server, bot, code).json()["version"] == version  # nothing written
        applied = seat_two(server, bot, code, "POST", headers=key, **action)
        assert applied.status_code == 200 and applied.json()["version"] == version + 1
        again = seat_two(server, bot, code, "POST", headers=key, **action)
        assert again.status_code == 200 and again.json()["version"] == version + 1
        assert owner.seat_view(code, 1).version == version + 1  # applied once
    finally:
        relay.resume()
        server.stop()
        relay.close()
