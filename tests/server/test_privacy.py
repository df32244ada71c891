"""No hidden information leaks: every endpoint and push a seat can reach is checked."""

from __future__ import annotations

import json
import random

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from server.asgi import application
from server.tables import projection
from tests.server.conftest import Players, client_for, new_member, token_for

TILE_TEXTS = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]


def hidden_from(p: Players, seat: int) -> set[str]:
    """Tiles in other seats' current hands (empty between hands)."""
    m = projection.project(p.table).match
    if m.phase not in ("accept", "choose_opener", "play"):
        return set()
    hands = m.summary()["hands_left"]
    return {t for n, tiles in hands.items() if int(n) != seat for t in tiles}


def tiles_in(text: str) -> set[str]:
    return {t for t in TILE_TEXTS if f'"{t}"' in text}


def without_own_deals(log: dict, seat: int) -> dict:
    """The seat's event log with its own dealt hands taken out, after checking the rest.

    After a redeal the log still shows the seat its own voided hand (its to know), and
    those tiles may now be in other seats' hands: they are taken out before the text is
    searched, so what is searched is only what the seat was never dealt.
    """
    for entry in log["events"]:
        if entry["type"] == "deal":
            hands = entry["event"]["hands"]
            assert all(hands[n] is None for n in hands if n != str(seat)), hands
            hands[str(seat)] = None
    return log


def everything_seat_sees(p: Players, seat: int) -> str:
    api = p.api(seat)
    base = f"/api/tables/{p.code}"
    body = api.get(f"{base}/seats/{seat}").json()
    parts = [
        body,
        api.get(f"{base}/seats/{seat}/hint").json(),
        without_own_deals(api.get(f"{base}/seats/{seat}/events").json(), seat),
        api.get(base).json(),
        api.get("/api/tables").json(),
        api.get(f"{base}/seats/{seat}/actions").json(),  # 405
        api.post(
            f"{base}/seats/{seat}/actions", {"type": "accept", "expected_version": 0}, format="json"
        ).json(),
    ]  # stale: carries a view
    record = api.get(f"{base}/record")
    return json.dumps(parts) + record.content.decode()


@pytest.mark.django_db
def test_no_endpoint_shows_a_tile_of_another_seat_s_hand_or_the_seed_during_the_first_hand():
    p = Players(kinds=("human", "bot", "human", "bot"))
    rng = random.Random(12)
    checked = 0
    while not projection.project(p.table).match.results:
        for seat in (1, 2, 3, 4):
            text = everything_seat_sees(p, seat)
            assert p.table.secret_seed not in text
            leaked = tiles_in(text) & hidden_from(p, seat)
            assert not leaked, f"seat {seat} saw {sorted(leaked)}"
            checked += 1
        p.step(rng)
    assert checked > 40


@pytest.mark.django_db
def test_in_later_hands_views_and_the_log_hide_the_current_deal():
    p = Players()
    rng = random.Random(13)
    while len(projection.project(p.table).match.results) < 2 and p.step(rng) is not None:
        m = projection.project(p.table).match
        if m.phase != "play" or not m.results:
            continue
        for seat in (1, 2, 3, 4):
            body = p.seat(seat)
            current = {k: v for k, v in body["view"].items() if k not in ("last_hand", "results")}
            assert not tiles_in(json.dumps(current)) & hidden_from(p, seat)
            events = p.api(seat).get(f"/api/tables/{p.code}/seats/{seat}/events").json()["events"]
            deals = [e["event"]["hands"] for e in events if e["type"] == "deal"]
            assert [n for n, h in deals[-1].items() if h is not None] == [str(seat)]
            # The finished hands' deals are shown whole, then the current hand's (more
            # than one after a redeal) show the seat its own hand only.
            shown = [None not in hands.values() for hands in deals]
            assert shown[0] and shown == sorted(shown, reverse=True), shown
            for hands in deals[shown.count(True) :]:
                assert [n for n, h in hands.items() if h is not None] == [str(seat)]


@pytest.mark.django_db
def test_seats_are_isolated_between_accounts():
    p = Players()
    eve = client_for(new_member("eve"))
    base = f"/api/tables/{p.code}"
    for path in (
        f"{base}/seats/1",
        f"{base}/seats/1/hint",
        f"{base}/seats/1/events",
        f"{base}/seats/2",
        f"{base}/record",
    ):
        response = eve.get(path)
        assert response.status_code == 403 and response.json()["code"] == "not_your_seat", path
        assert not tiles_in(response.content.decode())
    # The bot account holds seats 2-4 but not seat 1.
    assert p.bot_api.get(f"{base}/seats/1").json()["code"] == "not_your_seat"
    # A person cannot take a bot seat, nor a bot a human seat.
    q = Players(kinds=("human", "bot", "human", "bot"), humans_joined=False)
    other = client_for(new_member("bob"))
    assert (
        other.post(f"/api/tables/{q.code}/join", {"seat": 2}, format="json").json()["code"]
        == "permission_denied"
    )
    assert other.post(f"/api/tables/{q.code}/join", {"seat": 3}, format="json").status_code == 200
    assert other.post(f"/api/tables/{q.code}/join", {"seat": 3}, format="json").status_code == 200
    assert (
        client_for(new_member())
        .post(f"/api/tables/{q.code}/join", {"seat": 3}, format="json")
        .json()["code"]
        == "seat_taken"
    )


async def _receive_until(communicator, predicate, limit=10):
    for _ in range(limit):
        message = await communicator.receive_json_from(timeout=5)
        if predicate(message):
            return message
    raise AssertionError("no matching push")


@pytest.mark.django_db(transaction=True)
@pytest.mark.backend
def test_websocket_pushes_each_seat_its_own_view_after_commit():
    p = Players(kinds=("human", "bot", "human", "bot"))
    owner_token, bot_token = token_for(p.owner), token_for(p.bot)

    async def scenario():
        owner_ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}",
            headers=[(b"authorization", f"Token {owner_token}".encode())],
        )
        bot_ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}?seat=2",
            headers=[(b"authorization", f"Token {bot_token}".encode())],
        )
        assert (await owner_ws.connect())[0] and (await bot_ws.connect())[0]
        start = await sync_to_async(p.seat)(1)
        response = await sync_to_async(p.act)(
            2, {"type": "accept", "expected_version": start["version"]}
        )
        assert response.status_code == 200
        seats_seen = set()
        for _ in range(2):  # the owner holds seats 1 and 3: one push each
            message = await owner_ws.receive_json_from(timeout=5)
            assert message["type"] == "view" and message["version"] == start["version"] + 1
            assert message["view"]["accepted"]["2"] is True
            seat = message["seat"]
            seats_seen.add(seat)
            hidden = await sync_to_async(hidden_from)(p, seat)
            assert not tiles_in(json.dumps(message)) & hidden
            assert message["view"]["seat"] == seat
        assert seats_seen == {1, 3}
        bot_message = await bot_ws.receive_json_from(timeout=5)
        assert bot_message["seat"] == 2  # asked for seat 2 only
        assert await bot_ws.receive_nothing(timeout=0.3)
        await owner_ws.send_json_to({"type": "ping"})
        assert (await _receive_until(owner_ws, lambda m: m["type"] == "pong"))["type"] == "pong"
        await owner_ws.disconnect()
        await bot_ws.disconnect()

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_websocket_refuses_strangers_and_missing_tokens():
    p = Players()
    stranger = token_for(new_member("eve"))

    async def closed_with(communicator) -> int:
        # The handshake completes, then the server closes with the documented code (a
        # refused handshake would reach a real client as a bare HTTP 403).
        connected, _ = await communicator.connect()
        assert connected
        message = await communicator.receive_output(5)
        assert message["type"] == "websocket.close"
        return message["code"]

    async def scenario():
        nobody = WebsocketCommunicator(application, f"/ws/tables/{p.code}")
        assert await closed_with(nobody) == 4401
        eve = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}",
            headers=[(b"authorization", f"Token {stranger}".encode())],
        )
        assert await closed_with(eve) == 4403
        ghost = WebsocketCommunicator(
            application,
            "/ws/tables/NOPE99",
            headers=[(b"authorization", f"Token {stranger}".encode())],
        )
        assert await closed_with(ghost) == 4404

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_websocket_keeps_alive_with_pings(settings):
    settings.WS_PING_SECONDS = 0.2
    p = Players()
    token = token_for(p.owner)

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert (await ws.connect())[0]
        assert (await ws.receive_json_from(timeout=3)) == {"type": "ping"}
        await ws.disconnect()

    async_to_sync(scenario)()


def _log_with_a_redeal() -> list[dict]:
    """A first hand whose first deal (seat 1: five doubles) is shuffled away by a redeal
    claim, then played to its end with the first legal event each turn, and the next deal."""
    from engine import Match

    doubles = [f"{n}-{n}" for n in range(5)]
    rest = [t for t in TILE_TEXTS if t not in doubles]
    voided = {"1": doubles + rest[:2], "2": rest[2:9], "3": rest[9:16], "4": rest[16:23]}
    shuffle = random.Random(5)

    def deal():
        tiles = list(TILE_TEXTS)
        shuffle.shuffle(tiles)
        return {"type": "deal", "hands": {str(s): tiles[7 * (s - 1) : 7 * s] for s in (1, 2, 3, 4)}}

    events = [
        {"type": "match_started", "seats": {str(n): "human" for n in (1, 2, 3, 4)}},
        {"type": "deal", "hands": voided},
        {"type": "claim_redeal", "seat": 1},
        deal(),
    ]
    m = Match.from_events(events)
    while not m.results:
        event = next(e for s in (1, 2, 3, 4) for e in m.legal_events(s))
        m.apply(event)
        events.append(event)
    return [*events, deal()]


@pytest.mark.django_db
def test_a_redealt_deal_is_shown_in_the_log_once_its_hand_ends_exactly_as_the_record_shows_it():
    from server.tables.models import Event

    p = Players(kinds=("human", "human", "human", "human"))
    log = _log_with_a_redeal()
    hand_end = len(log) - 1  # events before the next deal: the first hand is over
    voided = log[1]["hands"]
    Event.objects.filter(table=p.table).delete()

    def store(upto: int) -> None:
        have = Event.objects.filter(table=p.table).count()
        for seq, event in enumerate(log[have:upto], start=have + 1):
            Event.objects.create(
                table=p.table,
                seq=seq,
                type=event["type"],
                payload=event,
                seat=event.get("seat"),
                actor_kind="server" if event["type"] == "deal" else "human",
            )
        projection.forget(p.table)

    def seat_2_sees() -> tuple[list[dict], str]:
        api = p.api(2)
        events = api.get(f"/api/tables/{p.code}/seats/2/events").json()["events"]
        return [e["event"]["hands"] for e in events if e["type"] == "deal"], api.get(
            f"/api/tables/{p.code}/record"
        ).content.decode()

    store(hand_end - 1)  # one play before the hand's end: the voided deal is still hidden
    deals, record = seat_2_sees()
    assert deals[0] == {"1": None, "2": voided["2"], "3": None, "4": None}
    assert not tiles_in(record) & set(voided["1"])
    store(len(log))  # the hand has ended, and the next one is dealt
    deals, record = seat_2_sees()
    assert deals[0] == voided and deals[1] == log[3]["hands"]  # voided and played deal
    assert [n for n, h in deals[2].items() if h is not None] == ["2"]  # the live deal
    recorded = [json.loads(line) for line in record.splitlines() if line.strip()]
    assert [e for e in recorded if e["type"] == "deal"] == [log[1], log[3]]
