"""Pushes across processes through Redis: act on one Daphne, hear it on another."""

from __future__ import annotations

import os
import uuid

import pytest

from clients.sdk import DekabesClient
from tests.conftest import LiveServer

pytestmark = pytest.mark.backend


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="REDIS_URL not set: Redis channel layer not tested"
)
def test_a_change_made_through_one_process_is_pushed_by_another(tmp_path):
    env = {
        "REDIS_URL": os.environ["REDIS_URL"],
        "DEKABES_CHANNEL_PREFIX": f"t{uuid.uuid4().hex[:8]}",
    }
    first = LiveServer(tmp_path, env=env).start()
    second = LiveServer(tmp_path, env=env).start()  # same database file, other process
    try:
        owner = DekabesClient(first.url)
        owner.register(f"ann{uuid.uuid4().hex[:8]}", "a long enough password 42")
        bot = owner.register_bot(f"bot{uuid.uuid4().hex[:8]}")
        table = owner.create_table(
            {1: "human", 2: "bot", 3: "bot", 4: "bot"},
            join=[1],
            bots={2: bot.username, 3: bot.username, 4: bot.username},
        )
        listener = DekabesClient(second.url, owner.token).subscribe(table.code, seat=1)
        try:
            assert listener.get(timeout=10).kind == "resync"
            start = owner.seat_view(table.code, 1)
            listener.observe(1, start.version)
            DekabesClient(first.url, bot.token).act(
                table.code, 2, "accept", expected_version=start.version
            )
            push = listener.get(timeout=10)
            while push is not None and push.kind != "view":
                push = listener.get(timeout=10)
            assert push is not None and push.version == start.version + 1
            assert push.state.view["accepted"]["2"] is True and push.seat == 1
        finally:
            listener.close()
    finally:
        first.stop()
        second.stop()
