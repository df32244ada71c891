"""Spectator sockets across processes through Redis: act on one Daphne, watch on another
(the spectator hub's one channel per process in the table's spectators' group)."""

from __future__ import annotations

import json
import os
import uuid

import pytest
import websocket

from clients.sdk import DekabesClient
from tests.conftest import LiveServer

pytestmark = pytest.mark.backend


def next_view(sock, after: int) -> dict:
    while True:
        body = json.loads(sock.recv())
        if body["type"] == "view" and body["version"] > after:
            return body


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="REDIS_URL not set: Redis channel layer not tested"
)
def test_spectators_on_another_process_see_each_change(tmp_path):
    env = {
        "REDIS_URL": os.environ["REDIS_URL"],
        "DEKABES_CHANNEL_PREFIX": f"t{uuid.uuid4().hex[:8]}",
    }
    first = LiveServer(tmp_path, env=env).start()
    second = LiveServer(tmp_path, env=env).start()  # same database file, other process
    sockets = []
    try:
        owner = DekabesClient(first.url)
        owner.register(f"ann{uuid.uuid4().hex[:8]}", "a long enough password 42")
        bot = owner.register_bot(f"bot{uuid.uuid4().hex[:8]}")
        table = owner.create_table(
            {1: "human", 2: "bot", 3: "bot", 4: "bot"},
            join=[1],
            bots={2: bot.username, 3: bot.username, 4: bot.username},
        )
        url = second.url.replace("http://", "ws://") + f"/ws/tables/{table.code}/spectate"
        for _ in range(3):  # the owner watches its own table, three times, on process 2
            sock = websocket.create_connection(
                url, header=[f"Authorization: Token {owner.token}"], timeout=10
            )
            sockets.append(sock)
        start = owner.seat_view(table.code, 1)
        for sock in sockets:
            assert next_view(sock, start.version - 1)["version"] == start.version
        sockets.pop().close()  # one leaves: the others still hear
        DekabesClient(first.url, bot.token).act(
            table.code, 2, "accept", expected_version=start.version
        )
        for sock in sockets:
            view = next_view(sock, start.version)
            assert view["version"] == start.version + 1
            assert view["view"]["accepted"]["2"] is True
            assert "hand" not in view["view"]
    finally:
        for sock in sockets:
            sock.close()
        first.stop()
        second.stop()
