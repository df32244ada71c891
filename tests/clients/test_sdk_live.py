"""The SDK against a real Daphne server in another process (``live_server_url``)."""

import threading
import uuid

import pytest

from clients.sdk import (
    ApiError,
    DekabesClient,
    IdempotencyKeyReused,
    NotAuthenticated,
    NotYourSeat,
    RuleRejected,
    StaleVersion,
    new_action_key,
)


def member(url: str, prefix: str = "ann") -> DekabesClient:
    client = DekabesClient(url)
    client.register(f"{prefix}{uuid.uuid4().hex[:10]}", "a long enough password 42")
    return client


def human_and_bots_table(owner: DekabesClient):
    """Seat 1 is the owner's; seats 2-4 belong to one bot account of the owner."""
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")
    table = owner.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"},
        join=[1],
        bots={2: bot.username, 3: bot.username, 4: bot.username},
    )
    return table, DekabesClient(owner.base_url, bot.token)


def test_register_login_and_me(live_server_url):
    client = DekabesClient(live_server_url)
    name = f"ann{uuid.uuid4().hex[:10]}"
    registered = client.register(name, "a long enough password 42")
    assert registered.username == name and registered.token and not registered.is_bot
    again = DekabesClient(live_server_url).login(name, "a long enough password 42", device="laptop")
    assert again.token and again.token != registered.token  # a token of its own per device
    assert client.me().username == name
    with pytest.raises(ApiError) as refused:
        DekabesClient(live_server_url).login(name, "wrong password")
    assert refused.value.status in (400, 401) and refused.value.code


def test_wrong_token_is_not_authenticated(live_server_url):
    with pytest.raises(NotAuthenticated) as refused:
        DekabesClient(live_server_url, token="0" * 40).me()
    assert refused.value.status == 401


def test_bot_account_gets_its_own_token(live_server_url):
    owner = member(live_server_url)
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:10]}")
    assert bot.is_bot and bot.token and bot.token != owner.token
    assert DekabesClient(live_server_url, bot.token).me().is_bot


def test_table_and_seat_view(live_server_url):
    owner = member(live_server_url)
    table, bots = human_and_bots_table(owner)
    assert table.code and table.seats[1].player == owner.me().username
    state = owner.seat_view(table.code, 1)
    assert state.phase == "accept" and len(state.view["hand"]) == 7
    assert {"type": "accept", "seat": 1} in state.legal
    assert state.table.code == table.code
    assert [t.code for t in owner.tables(mine=True)] == [table.code]
    bot_state = bots.seat_view(table.code, 2)
    assert bot_state.version == state.version and bot_state.view["seat"] == 2
    # Each seat sees its own hand only.
    assert not set(bot_state.view["hand"]) & set(state.view["hand"])


def test_action_with_the_same_idempotency_key_applies_once(live_server_url):
    owner = member(live_server_url)
    table, _ = human_and_bots_table(owner)
    before = owner.seat_view(table.code, 1)
    key = new_action_key()
    first = owner.act(table.code, 1, "accept", expected_version=before.version, key=key)
    again = owner.act(table.code, 1, "accept", expected_version=before.version, key=key)
    assert first.version == again.version == before.version + 1
    events = owner.events(table.code, 1)["events"]
    assert [e["type"] for e in events].count("accept") == 1
    with pytest.raises(IdempotencyKeyReused) as reused:
        owner.act(table.code, 1, "pass", expected_version=before.version, key=key)
    assert reused.value.status == 422


def test_stale_version_is_typed_and_changes_nothing(live_server_url):
    owner = member(live_server_url)
    table, bots = human_and_bots_table(owner)
    start = owner.seat_view(table.code, 1)
    bots.act(table.code, 2, "accept", expected_version=start.version)
    with pytest.raises(StaleVersion) as stale:
        owner.act(table.code, 1, "accept", expected_version=start.version)
    assert stale.value.status == 409
    assert owner.seat_view(table.code, 1).version == start.version + 1


def test_rule_rejection_and_seat_errors_carry_the_server_code(live_server_url):
    owner = member(live_server_url)
    table, bots = human_and_bots_table(owner)
    state = owner.seat_view(table.code, 1)
    with pytest.raises(RuleRejected) as wrong_phase:
        owner.act(table.code, 1, "play", expected_version=state.version, tile=state.view["hand"][0])
    assert wrong_phase.value.code == "wrong_phase"
    with pytest.raises(NotYourSeat):
        owner.act(table.code, 2, "accept", expected_version=state.version)
    with pytest.raises(NotYourSeat):
        bots.seat_view(table.code, 1)
    assert owner.seat_view(table.code, 1).version == state.version


def test_long_poll_returns_when_the_table_moves(live_server_url):
    owner = member(live_server_url)
    table, bots = human_and_bots_table(owner)
    start = owner.seat_view(table.code, 1)
    mover = threading.Timer(
        0.3, lambda: bots.act(table.code, 3, "accept", expected_version=start.version)
    )
    mover.start()
    moved = owner.seat_view(table.code, 1, wait=20, after=start.version)
    mover.join()
    assert moved.version > start.version and moved.view["accepted"]["3"] is True


def test_hint_appends_nothing_and_events_redact_other_hands(live_server_url):
    owner = member(live_server_url)
    table, _ = human_and_bots_table(owner)
    state = owner.seat_view(table.code, 1)
    hint = owner.hint(table.code, 1)
    assert hint["version"] == state.version and hint["hint"]["seat"] == 1
    assert owner.seat_view(table.code, 1).version == state.version
    deals = [e for e in owner.events(table.code, 1)["events"] if e["type"] == "deal"]
    hands = deals[-1]["event"]["hands"]
    assert sorted(hands["1"]) == sorted(state.view["hand"])
    assert hands["2"] is None and hands["3"] is None and hands["4"] is None


def test_push_subscription_delivers_views_and_resyncs_on_connect(live_server_url):
    owner = member(live_server_url)
    table, bots = human_and_bots_table(owner)
    subscription = owner.subscribe(table.code, seat=1)
    try:
        first = subscription.get(timeout=10)
        assert first is not None and first.kind == "resync"
        start = owner.seat_view(table.code, 1)
        subscription.observe(1, start.version)
        bots.act(table.code, 2, "accept", expected_version=start.version)
        pushed = subscription.get(timeout=10)
        while pushed is not None and pushed.kind != "view":
            pushed = subscription.get(timeout=10)
        assert pushed is not None and pushed.seat == 1
        assert pushed.version == start.version + 1
        assert pushed.state.view["accepted"]["2"] is True
        assert "hand" in pushed.state.view and pushed.state.view["seat"] == 1
        assert isinstance(subscription.poll(), list)  # never blocks, even when empty
    finally:
        subscription.close()


def test_logout_rotate_and_password_change_through_the_sdk(live_server_url):
    client = DekabesClient(live_server_url)
    name = f"cred{uuid.uuid4().hex[:10]}"
    client.register(name, "a long enough password 42")
    phone = DekabesClient(live_server_url)
    phone.login(name, "a long enough password 42", device="phone")
    assert sorted(t["device"] for t in client.tokens()) == ["default", "phone"]
    old = client.token
    new = client.rotate_token()
    assert new != old and client.me().username == name
    with pytest.raises(NotAuthenticated):
        DekabesClient(live_server_url, token=old).me()
    assert client.change_password("a long enough password 42", "another long password 43") == 1
    with pytest.raises(NotAuthenticated):
        phone.me()
    client.logout()
    with pytest.raises(NotAuthenticated):
        DekabesClient(live_server_url, token=new).me()
