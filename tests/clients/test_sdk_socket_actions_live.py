"""The SDK's actions over the seat socket (``DekabesClient.act(..., socket=sub)``) against
a real server: the same answers and errors as REST, one key across both, the fallback
to REST when the socket is down, and the bot runner acting over its sockets."""

from __future__ import annotations

import uuid

import pytest

from clients.bots import Runner, RunnerOptions
from clients.sdk import DekabesClient, NotYourSeat, StaleVersion, new_action_key


def member(url: str) -> DekabesClient:
    client = DekabesClient(url)
    client.register(f"ann{uuid.uuid4().hex[:10]}", "a long enough password 42")
    return client


def human_and_bots(owner: DekabesClient) -> tuple[str, DekabesClient]:
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")
    table = owner.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"},
        join=[1],
        bots={n: bot.username for n in (2, 3, 4)},
    )
    return table.code, DekabesClient(owner.base_url, bot.token)


def test_an_action_over_the_socket_answers_as_rest_does(live_server_url):
    owner = member(live_server_url)
    code, bots = human_and_bots(owner)
    start = owner.seat_view(code, 1)
    with owner.subscribe(code) as sub:  # follows seat 1, the owner's only seat
        assert sub.connected.wait(20)
        requests_before = owner.request_count
        key = new_action_key()
        state = owner.act(code, 1, "accept", start.version, key=key, socket=sub)
        assert owner.request_count == requests_before  # no HTTP request
        assert owner.socket_actions == 1 and owner.socket_fallbacks == 0
        assert state.version == start.version + 1 and state.view["accepted"]["1"] is True
        assert state.raw == owner.seat_view(code, 1).raw
        # the same key over REST: the first answer, nothing applied again
        again = owner.act(code, 1, "accept", start.version, key=key)
        assert again.raw == state.raw
        # refusals raise what REST raises
        with pytest.raises(StaleVersion) as stale:
            owner.act(code, 1, "pause", start.version, socket=sub)
        assert stale.value.status == 409 and stale.value.view["version"] == state.version
        with pytest.raises(NotYourSeat):
            owner.act(code, 2, "accept", state.version, socket=sub)
        assert owner.socket_actions == 3 and owner.socket_fallbacks == 0
    accepts = [e for e in owner.all_events(code, 1) if e["type"] == "accept"]
    assert len(accepts) == 1
    bots.close()


def test_an_action_falls_back_to_rest_when_the_socket_is_down(live_server_url):
    owner = member(live_server_url)
    code, _ = human_and_bots(owner)
    start = owner.seat_view(code, 1)
    sub = owner.subscribe(code, seat=1)
    assert sub.connected.wait(20)
    sub.close()  # down (as after a network cut, before it reconnects)
    requests_before = owner.request_count
    state = owner.act(code, 1, "accept", start.version, socket=sub)
    assert owner.socket_fallbacks == 1 and owner.socket_actions == 0
    assert owner.request_count == requests_before + 1  # the POST
    assert state.version == start.version + 1 and state.view["accepted"]["1"] is True


def test_the_bot_runner_acts_over_its_sockets_by_default(live_server_url):
    owner = member(live_server_url)
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")
    code = owner.create_table(
        {n: "bot" for n in (1, 2, 3, 4)}, bots={n: bot.username for n in (1, 2, 3, 4)}
    ).code
    runner = Runner(
        DekabesClient(live_server_url, bot.token),
        RunnerOptions(delay=0, level="greedy", tables=(code,), exit_when_over=True, seed=3),
    )
    runner.start()
    try:
        assert runner.join(240), "the match did not end"
    finally:
        runner.stop()
    assert runner.stats.actions > 20 and runner.stats.rejected == 0
    # the first move may go before the socket is up: over REST, with the same key
    assert runner.socket_action_count() >= runner.stats.actions - 2
    final = DekabesClient(live_server_url, bot.token).seat_view(code, 1)
    assert final.match_over
