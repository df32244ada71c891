"""Actions over a seat's WebSocket (``server.sockets.actions``), through the real consumer:
the answer on the same socket, the pushes to the other seats, idempotency across REST and
the socket both ways, a revoked token and a seat handed over, bad messages. (The table
suite's action cases run over both paths through ``Players.act``: ``action_path``.)"""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from server.accounts.models import AccessToken
from server.asgi import application
from server.tables import services
from server.tables.models import Event
from tests.server.conftest import Players, token_for

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def socket(p: Players, token: str, seat: int | None = None) -> WebsocketCommunicator:
    query = f"?seat={seat}" if seat is not None else ""
    return WebsocketCommunicator(
        application,
        f"/ws/tables/{p.code}{query}",
        headers=[(b"authorization", f"Token {token}".encode())],
    )


async def next_of(ws: WebsocketCommunicator, kind: str) -> dict:
    """The next frame of ``kind`` (presence frames and pings may come between)."""
    for _ in range(20):
        frame = await ws.receive_json_from(timeout=5)
        if frame.get("type") == kind:
            return frame
        assert frame.get("type") in ("presence", "ping", "view"), frame
    raise AssertionError(f"no {kind} frame")


async def no_view(ws: WebsocketCommunicator) -> None:
    while not await ws.receive_nothing(timeout=0.3):
        assert (await ws.receive_json_from()).get("type") != "view"


def log_length(p: Players) -> int:
    return Event.objects.filter(table=p.table).count()


def test_an_action_is_answered_on_its_socket_and_pushed_to_the_others():
    p = Players(kinds=("human", "bot", "human", "bot"))
    owner, bot = token_for(p.owner), token_for(p.bot)

    async def scenario():
        seat2, seat1 = socket(p, bot, seat=2), socket(p, owner, seat=1)
        assert (await seat2.connect())[0] and (await seat1.connect())[0]
        start = await sync_to_async(p.seat)(2)
        await seat2.send_json_to(
            {
                "type": "action",
                "action": "accept",
                "expected_version": start["version"],
                "command_id": "c-1",
            }
        )
        answer = await next_of(seat2, "answer")
        assert answer["command_id"] == "c-1" and answer["status"] == 200
        body = answer["body"]
        assert body["version"] == start["version"] + 1 and body["seat"] == 2
        assert body == await sync_to_async(p.seat)(2)  # the seat's new answer, as a GET
        pushed = await next_of(seat1, "view")
        assert pushed["seat"] == 1 and pushed["version"] == body["version"]
        await no_view(seat2)  # its push of that version is the answer it has
        # a refusal: REST's body and status, with the command_id
        await seat2.send_json_to(
            {
                "type": "action",
                "action": "accept",
                "expected_version": start["version"],
                "command_id": "c-2",
            }
        )
        stale = await next_of(seat2, "answer")
        assert stale["command_id"] == "c-2" and stale["status"] == 409
        assert stale["body"]["code"] == "stale_version"
        assert stale["body"]["view"]["version"] == body["version"]
        await seat1.disconnect()
        await seat2.disconnect()

    async_to_sync(scenario)()
    accepted = Event.objects.get(table=p.table, type="accept")
    assert accepted.command_id == "c-1" and accepted.actor_id == p.bot.pk


def test_a_retry_answers_the_first_result_whichever_path_either_took():
    p = Players()
    tokens = {1: token_for(p.owner), 2: token_for(p.bot)}
    v = p.seat(1)["version"]
    accept = {"type": "accept", "expected_version": v}

    async def over_socket(seat: int, body: dict, command_id: str) -> dict:
        ws = socket(p, tokens[seat], seat=seat)
        assert (await ws.connect())[0]
        message = {k: val for k, val in body.items() if k != "type"}
        await ws.send_json_to(
            {"type": "action", "action": body["type"], "command_id": command_id, **message}
        )
        answer = await next_of(ws, "answer")
        await ws.disconnect()
        return answer

    # first over the socket, the retry over REST
    first = async_to_sync(over_socket)(1, accept, "k-socket")
    length = log_length(p)
    retry = p.act(1, accept, key="k-socket", api=p.owner_api)
    assert retry.status_code == first["status"] == 200
    assert retry.json() == first["body"]
    assert log_length(p) == length  # nothing appended
    # first over REST, the retry over the socket
    second = {"type": "accept", "expected_version": first["body"]["version"]}
    rest = p.act(2, second, key="k-rest", api=p.bot_api)
    assert rest.status_code == 200
    length = log_length(p)
    again = async_to_sync(over_socket)(2, second, "k-rest")
    assert again["status"] == 200 and again["body"] == rest.json()
    assert log_length(p) == length
    # the same key with another body is refused on either path
    other = {"type": "pause", "expected_version": v}
    assert p.act(1, other, key="k-socket").json()["code"] == "idempotency_key_reused"
    refused = async_to_sync(over_socket)(1, other, "k-socket")
    assert refused["status"] == 422 and refused["body"]["code"] == "idempotency_key_reused"


def test_a_revoked_token_acts_no_more_past_the_bound_and_its_socket_closes(settings):
    settings.WS_TOKEN_CHECK_SECONDS = 0.0  # the bound, made nothing for the test
    p = Players()
    owner = token_for(p.owner)
    v = p.seat(1)["version"]

    async def scenario():
        ws = socket(p, owner, seat=1)
        assert (await ws.connect())[0]
        await sync_to_async(AccessToken.objects.filter(user=p.owner).delete)()
        await ws.send_json_to(
            {"type": "action", "action": "accept", "expected_version": v, "command_id": "r"}
        )
        answer = await next_of(ws, "answer")
        assert answer["status"] == 401 and answer["body"]["code"] == "not_authenticated"
        closed = await ws.receive_output(5)
        assert closed == {"type": "websocket.close", "code": 4401}

    length = log_length(p)
    async_to_sync(scenario)()
    assert log_length(p) == length


def test_an_idle_socket_of_a_revoked_token_closes_at_its_next_ping(settings):
    settings.WS_TOKEN_CHECK_SECONDS = 0.0
    settings.WS_PING_SECONDS = 0.2
    p = Players()
    owner = token_for(p.owner)

    async def scenario():
        ws = socket(p, owner, seat=1)
        assert (await ws.connect())[0]
        await sync_to_async(AccessToken.objects.filter(user=p.owner).delete)()
        for _ in range(50):
            output = await ws.receive_output(5)
            if output["type"] == "websocket.close":
                assert output["code"] == 4401
                return
        raise AssertionError("the socket stayed open")

    async_to_sync(scenario)()


def test_within_the_bound_the_token_is_not_looked_up_per_message(settings, monkeypatch):
    settings.WS_TOKEN_CHECK_SECONDS = 3600.0
    from server.sockets import actions

    looked: list[str] = []
    real = actions.token_owner
    monkeypatch.setattr(actions, "token_owner", lambda key: looked.append(key) or real(key))
    p = Players()
    owner = token_for(p.owner)

    async def scenario():
        ws = socket(p, owner, seat=1)
        assert (await ws.connect())[0]
        version = (await sync_to_async(p.seat)(1))["version"]
        for action in ("pause", "resume"):
            await ws.send_json_to({"type": "action", "action": action, "expected_version": version})
            answer = await next_of(ws, "answer")
            assert answer["status"] == 200, answer
            version = answer["body"]["version"]
        await ws.disconnect()

    async_to_sync(scenario)()
    assert looked == []


def test_a_seat_handed_over_refuses_the_next_action_at_once():
    p = Players(kinds=("human", "human", "bot", "bot"))
    owner = token_for(p.owner)
    v = p.seat(2)["version"]

    async def scenario():
        ws = socket(p, owner, seat=2)
        assert (await ws.connect())[0]
        await sync_to_async(services.do_leave)(user=p.owner, table=p.table, seat=2)
        await ws.send_json_to(
            {"type": "action", "action": "accept", "expected_version": v, "command_id": "h"}
        )
        answer = await next_of(ws, "answer")
        assert answer["status"] == 403 and answer["body"]["code"] == "not_your_seat", answer
        await ws.disconnect()

    async_to_sync(scenario)()
    assert not Event.objects.filter(table=p.table, type="accept").exists()


def test_bad_messages_are_refused_with_reasons():
    p = Players(kinds=("human", "bot", "human", "bot"))
    owner = token_for(p.owner)
    v = p.seat(1)["version"]

    async def scenario():
        both = socket(p, owner)  # follows seats 1 and 3: an action names its seat
        assert (await both.connect())[0]
        await both.send_to(text_data="not json")
        answer = await next_of(both, "answer")
        assert answer["status"] == 400 and answer["command_id"] is None
        await both.send_to(text_data='{"type": "action", "tile": "' + "x" * 70_000 + '"}')
        answer = await next_of(both, "answer")
        assert answer["status"] == 413 and answer["body"]["code"] == "body_too_large"
        await both.send_json_to({"type": "action", "expected_version": v, "command_id": "a"})
        answer = await next_of(both, "answer")
        assert answer["body"] == {
            "code": "validation_error",
            "message": "action: this field is required",
        }
        message = {"type": "action", "action": "accept", "expected_version": v}
        await both.send_json_to({**message, "command_id": "b"})
        answer = await next_of(both, "answer")
        assert answer["status"] == 400 and "say which one acts" in answer["body"]["message"]
        await both.send_json_to({**message, "command_id": "c", "seat": 2})
        answer = await next_of(both, "answer")
        assert answer["status"] == 403 and answer["body"]["code"] == "not_your_seat"
        await both.send_json_to({**message, "command_id": "d", "seat": 3, "tile": 5})
        answer = await next_of(both, "answer")
        assert answer["body"]["code"] == "validation_error"
        assert answer["body"]["message"] == "tile: must be a string"
        await both.send_json_to({**message, "command_id": "e", "seat": 3})
        answer = await next_of(both, "answer")
        assert answer["status"] == 200 and answer["body"]["seat"] == 3
        await both.disconnect()

    async_to_sync(scenario)()
