"""Pushes across processes through Redis: act on one Daphne, hear it on another."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
import websocket

from clients.sdk import DekabesClient
from clients.sdk.push import ws_url
from tests.conftest import wait_for

pytestmark = pytest.mark.backend


def next_view(listener, timeout: float = 10):
    push = listener.get(timeout=timeout)
    while push is not None and push.kind != "view":
        push = listener.get(timeout=timeout)
    return push


def push_of_an_accept(listener, owner, code: str, actor, seat: int):
    """Once ``listener`` (a new subscription) has connected, ``actor`` accepts the deal for
    ``seat``: (the version before, the listener's next view: None when none came)."""
    assert listener.get(timeout=10).kind == "resync"
    start = owner.seat_view(code, 1).version
    listener.observe(listener.seat, start)
    actor.act(code, seat, "accept", expected_version=start)
    return start, next_view(listener)


def test_a_change_made_through_one_process_is_pushed_by_another(redis_pair):
    pair = redis_pair
    owner, code = pair.owner, pair.code
    listener = DekabesClient(pair.second.url, owner.token).subscribe(code, seat=1)
    try:
        acting = DekabesClient(pair.first.url, pair.bot.token)
        start, push = push_of_an_accept(listener, owner, code, acting, 2)
        assert push is not None and push.version == start + 1
        assert push.state.view["accepted"]["2"] is True and push.seat == 1
    finally:
        listener.close()


def test_a_seat_handed_over_by_one_process_is_pushed_to_its_new_holder_by_another(redis_pair):
    """The second process keeps the full table's seats; the first hands seat 2 to another
    bot (as a ladder's substitute is seated). At the second, the new holder's socket gets
    the table's next change, and the former holder's socket, still open, no longer gets
    the seat's view (its hand): pushes are built from the seats as they are now."""
    pair = redis_pair
    owner, code = pair.owner, pair.code
    old_holder = DekabesClient(pair.second.url, pair.bot.token)
    assert old_holder.seat_view(code, 2).seat == 2  # the second keeps the seats
    old_socket = websocket.create_connection(
        ws_url(pair.second.url, code, 2),
        timeout=30,
        header=[f"Authorization: Token {pair.bot.token}"],
    )
    listener = None
    try:
        spare = owner.register_bot("spare" + code.lower())
        owner.replace_seat(code, 2, bot=spare.username)
        listener = DekabesClient(pair.second.url, spare.token).subscribe(code, seat=2)
        start, push = push_of_an_accept(listener, owner, code, owner, 1)
        assert push is not None, "the new holder's socket got no push"
        assert push.seat == 2 and push.version == start + 1
        assert push.state.view["accepted"]["1"] is True
        # the version has been pushed at the second: a pong after it on the former
        # holder's socket comes after anything that process sent it of that version
        old_socket.send(json.dumps({"type": "ping"}))
        frames = []
        while not frames or frames[-1].get("type") != "pong":
            frames.append(json.loads(old_socket.recv()))
        leaked = [f for f in frames if f.get("type") == "view" and f["version"] > start]
        assert leaked == [], "the former holder was sent the seat's view"
    finally:
        old_socket.close()
        if listener is not None:
            listener.close()


def listeners_of(server, group_prefix: str) -> list[bytes]:
    """The channels in the server's channel-layer groups named ``group_prefix…`` (Redis)."""
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    found: list[bytes] = []
    for key in client.scan_iter(f"{server.env['DEKABES_CHANNEL_PREFIX']}:group:{group_prefix}*"):
        found += client.zrange(key, 0, -1)
    return found


def test_a_quiet_long_poll_does_not_keep_its_process_from_pushing(redis_pair):
    """channels_redis lets one receive at a time read a process's queue. A long-poll
    that listened on a channel of a prefix of its own kept that turn while no notice
    came for it, and no socket of the process got a push again (the 25 s moves of a
    ladder substitute, seen in the two-worker ladder test)."""
    pair = redis_pair
    owner, code = pair.owner, pair.code
    quiet = owner.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"},
        join=[1],
        bots={2: pair.bot.username, 3: pair.bot.username, 4: pair.bot.username},
    )
    poller = DekabesClient(pair.first.url, owner.token)
    since = poller.seat_view(quiet.code, 1).version
    assert listeners_of(pair.first, "table-") == []  # nothing listens yet
    with ThreadPoolExecutor(1) as pool:
        parked = pool.submit(poller.seat_view, quiet.code, 1, wait=20, after=since)
        wait_for(lambda: listeners_of(pair.first, "table-"), 20, "the long-poll listening")
        listener = DekabesClient(pair.first.url, owner.token).subscribe(code, seat=1)
        try:
            acting = DekabesClient(pair.second.url, pair.bot.token)
            start, push = push_of_an_accept(listener, owner, code, acting, 2)
            assert push is not None, "no push while a long-poll of the process was quiet"
            assert push.version == start + 1
        finally:
            listener.close()
        DekabesClient(pair.second.url, pair.bot.token).act(
            quiet.code, 2, "accept", expected_version=since
        )
        assert parked.result(timeout=60).version == since + 1


def test_the_health_check_passes_while_a_socket_is_open(redis_pair):
    """/healthz sends itself a message through the channel layer. It did so on a loop of
    its own, which channels_redis refuses while the server's sockets receive on theirs:
    503, ``channel_layer: RuntimeError``, whenever a socket was open."""
    import requests

    pair = redis_pair
    listener = DekabesClient(pair.first.url, pair.owner.token).subscribe(pair.code, seat=1)
    try:
        assert listener.get(timeout=10).kind == "resync"
        wait_for(lambda: listeners_of(pair.first, "table-"), 20, "the socket listening")
        answer = requests.get(pair.first.url + "/healthz", timeout=30)
        assert answer.json()["checks"]["channel_layer"]["status"] == "ok", answer.text
        assert answer.status_code == 200, answer.text
    finally:
        listener.close()
