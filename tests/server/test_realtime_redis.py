"""Pushes across processes through Redis: act on one Daphne, hear it on another."""

from __future__ import annotations

import pytest

from clients.sdk import DekabesClient

pytestmark = pytest.mark.backend


def test_a_change_made_through_one_process_is_pushed_by_another(redis_pair):
    pair = redis_pair
    owner, code = pair.owner, pair.code
    listener = DekabesClient(pair.second.url, owner.token).subscribe(code, seat=1)
    try:
        assert listener.get(timeout=10).kind == "resync"
        start = owner.seat_view(code, 1)
        listener.observe(1, start.version)
        DekabesClient(pair.first.url, pair.bot.token).act(
            code, 2, "accept", expected_version=start.version
        )
        push = listener.get(timeout=10)
        while push is not None and push.kind != "view":
            push = listener.get(timeout=10)
        assert push is not None and push.version == start.version + 1
        assert push.state.view["accepted"]["2"] is True and push.seat == 1
    finally:
        listener.close()
