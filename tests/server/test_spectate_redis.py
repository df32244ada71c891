"""Spectator sockets across processes through Redis: act on one Daphne, watch on another
(the spectator hub's one channel per process in the table's spectators' group)."""

from __future__ import annotations

import json

import pytest
import websocket

from clients.sdk import DekabesClient

pytestmark = pytest.mark.backend


def next_view(sock, after: int) -> dict:
    while True:
        body = json.loads(sock.recv())
        if body["type"] == "view" and body["version"] > after:
            return body


def test_spectators_on_another_process_see_each_change(redis_pair):
    pair = redis_pair
    owner, code = pair.owner, pair.code
    sockets = []
    try:
        url = pair.second.url.replace("http://", "ws://") + f"/ws/tables/{code}/spectate"
        for _ in range(3):  # the owner watches its own table, three times, on process 2
            sock = websocket.create_connection(
                url, header=[f"Authorization: Token {owner.token}"], timeout=10
            )
            sockets.append(sock)
        start = owner.seat_view(code, 1)
        for sock in sockets:
            assert next_view(sock, start.version - 1)["version"] == start.version
        sockets.pop().close()  # one leaves: the others still hear
        DekabesClient(pair.first.url, pair.bot.token).act(
            code, 2, "accept", expected_version=start.version
        )
        for sock in sockets:
            view = next_view(sock, start.version)
            assert view["version"] == start.version + 1
            assert view["view"]["accepted"]["2"] is True
            assert "hand" not in view["view"]
    finally:
        for sock in sockets:
            sock.close()
