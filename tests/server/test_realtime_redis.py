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


def next_view(listener, timeout: float = 10):
    push = listener.get(timeout=timeout)
    while push is not None and push.kind != "view":
        push = listener.get(timeout=timeout)
    return push


def test_a_seat_handed_over_by_one_process_is_pushed_to_its_new_holder_by_another(redis_pair):
    """The second process keeps the full table's seats; the first hands seat 2 to another
    bot (as a ladder's substitute is seated). The new holder's socket at the second gets
    the table's next change: its pushes are built from the seats as they are now."""
    pair = redis_pair
    owner, code = pair.owner, pair.code
    old_holder = DekabesClient(pair.second.url, pair.bot.token)
    assert old_holder.seat_view(code, 2).seat == 2  # the second keeps the seats
    spare = owner.register_bot("spare" + code.lower())
    owner.replace_seat(code, 2, bot=spare.username)
    listener = DekabesClient(pair.second.url, spare.token).subscribe(code, seat=2)
    try:
        assert listener.get(timeout=10).kind == "resync"
        start = owner.seat_view(code, 1)
        listener.observe(2, start.version)
        owner.act(code, 1, "accept", expected_version=start.version)
        push = next_view(listener)
        assert push is not None, "the new holder's socket got no push"
        assert push.seat == 2 and push.version == start.version + 1
        assert push.state.view["accepted"]["1"] is True
    finally:
        listener.close()
