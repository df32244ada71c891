"""Table pushes are built once per version in a process and shared by its sockets
(``server.sockets.pushes``): each socket still gets only the seats its account holds."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from server.asgi import application
from server.sockets import pushes
from server.tables import selectors
from tests.server.conftest import Players, token_for

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def test_four_sockets_share_one_build_and_each_gets_only_its_seat(monkeypatch):
    p = Players(kinds=("human", "bot", "human", "bot"))
    built: list[int] = []
    real = selectors.seat_response

    def counting(table, number, state, user=None, seats=None, **more):
        built.append(number)
        return real(table, number, state, user=user, seats=seats, **more)

    monkeypatch.setattr(selectors, "seat_response", counting)
    owner, bot = token_for(p.owner), token_for(p.bot)

    def socket(seat: int, token: str) -> WebsocketCommunicator:
        return WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}?seat={seat}",
            headers=[(b"authorization", f"Token {token}".encode())],
        )

    async def next_view(ws: WebsocketCommunicator) -> dict:
        # presence frames (another seat's socket came) may come first: not views
        while True:
            frame = await ws.receive_json_from(timeout=5)
            if frame.get("type") == "view":
                return frame
            assert frame.get("type") == "presence", frame

    async def no_more_views(ws: WebsocketCommunicator) -> None:
        while not await ws.receive_nothing(timeout=0.2):
            assert (await ws.receive_json_from()).get("type") == "presence"

    async def scenario():
        # seat 1 followed twice (two windows of one player), seats 2 and 3 once
        sockets = {"1a": socket(1, owner), "1b": socket(1, owner)}
        sockets.update({"2": socket(2, bot), "3": socket(3, owner)})
        for ws in sockets.values():
            assert (await ws.connect())[0]
        start = await sync_to_async(p.seat)(1)
        built.clear()
        response = await sync_to_async(p.act)(
            2, {"type": "accept", "expected_version": start["version"]}
        )
        assert response.status_code == 200
        got = {name: await next_view(ws) for name, ws in sockets.items()}
        assert {name: m["seat"] for name, m in got.items()} == {"1a": 1, "1b": 1, "2": 2, "3": 3}
        assert got["1a"] == got["1b"]
        assert all(m["version"] == start["version"] + 1 for m in got.values())
        for ws in sockets.values():
            await no_more_views(ws)
            await ws.disconnect()

    async_to_sync(scenario)()
    # the action's own answer (seat 2), which is seat 2's push too, then one build of
    # seats 1 and 3 for all sockets (server.tables.answers)
    assert sorted(built) == [1, 2, 3], built
    assert p.table.pk not in pushes._watchers and p.table.pk not in pushes._built


def test_after_a_handover_the_former_holders_socket_gets_no_view_and_the_new_one_does():
    """The seat's hand goes to whoever holds it now: the former holder's socket, still
    open, gets no view of the seat from the handover on."""
    from tests.server.conftest import client_for, new_bot

    p = Players(kinds=("human", "bot", "bot", "bot"))
    spare = new_bot(p.owner)
    former_token, new_token = token_for(p.bot), token_for(spare)

    def socket(seat: int, token: str) -> WebsocketCommunicator:
        return WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}?seat={seat}",
            headers=[(b"authorization", f"Token {token}".encode())],
        )

    async def views(ws: WebsocketCommunicator) -> list[dict]:
        frames = []
        while not await ws.receive_nothing(timeout=0.3):
            frames.append(await ws.receive_json_from())
        return [f for f in frames if f.get("type") == "view"]

    def hand_over() -> None:
        answer = client_for(p.owner).post(
            f"/api/tables/{p.code}/seats/2/replace", {"bot": spare.username}, format="json"
        )
        assert answer.status_code == 200, answer.content

    async def scenario():
        former = socket(2, former_token)
        assert (await former.connect())[0]
        await sync_to_async(hand_over)()
        new = socket(2, new_token)
        assert (await new.connect())[0]
        start = await sync_to_async(p.seat)(1)
        response = await sync_to_async(p.act)(
            1, {"type": "accept", "expected_version": start["version"]}
        )
        assert response.status_code == 200
        got = await views(new)
        assert [(v["seat"], v["version"]) for v in got] == [(2, start["version"] + 1)]
        assert await views(former) == []
        for ws in (former, new):
            await ws.disconnect()

    async_to_sync(scenario)()
