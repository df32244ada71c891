"""Commit notices: sent where someone can hear them, skipped where nobody can."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from server.notices import notify
from server.notices.waits import _Waiter, waits


def test_a_notice_is_skipped_only_when_nobody_can_hear_it():
    layer = get_channel_layer()
    group = "table-notify-test"
    if not isinstance(layer, InMemoryChannelLayer):
        # Redis: another process may listen, so every notice goes out
        assert notify._anyone_listening(group)
        return
    assert not notify._anyone_listening(group)
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group, channel)
    try:
        assert notify._anyone_listening(group), "a connection of this process listens"
    finally:
        async_to_sync(layer.group_discard)(group, channel)
    assert not notify._anyone_listening(group)
    waiter = _Waiter(3, None)  # type: ignore[arg-type]  # only its presence is read
    waits._waiting.setdefault(group, set()).add(waiter)
    try:
        assert notify._anyone_listening(group), "a parked long-poll waits on it"
    finally:
        waits._waiting.pop(group, None)
