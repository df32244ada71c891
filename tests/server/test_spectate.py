"""Spectators: who may watch, and no hidden tile ever in a spectator's answer, long-poll
or socket frame, with real hands in play (in the style of test_privacy)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from engine.view import SPECTATOR_KEYS
from server.accounts.models import AccessToken
from server.accounts.services import key_hash
from server.asgi import application
from server.league import spectate
from server.league.models import Club, Membership
from server.notices import presence
from server.tables import projection
from tests.server.conftest import Players, client_for, new_member, token_for

TILE_TEXTS = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]


def hidden_at(p: Players, version: int | None = None) -> set[str]:
    """Every tile in a hand in play at ``version`` (a spectator may see none of them)."""
    m = projection.project(p.table, upto=version).match
    if m.phase not in ("accept", "choose_opener", "play"):
        return set()
    return {t for tiles in m.summary()["hands_left"].values() for t in tiles}


def tiles_in(text: str) -> set[str]:
    return {t for t in TILE_TEXTS if f'"{t}"' in text}


def public_tiles(body: dict) -> set[str]:
    """Tiles a spectator is shown on purpose: the line, and the last ended hand."""
    text = json.dumps({"line": body["view"]["line"], "turns": body["view"]["turns"]})
    return tiles_in(text)


def check_no_leak(text: str, hidden: set[str]) -> None:
    body = json.loads(text)
    shown = tiles_in(json.dumps(body["view"]["last_hand"])) | public_tiles(body)
    leaked = (tiles_in(text) - shown) & hidden
    assert not leaked, f"hidden tiles in a spectator answer: {leaked}"
    assert not tiles_in(text) - shown - tiles_in(json.dumps(body["view"]["results"]))
    assert "hand" not in body["view"] and "legal" not in body["view"]


@pytest.mark.django_db
def test_who_may_watch_a_casual_table():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    stranger = client_for(new_member("zed"))
    url = f"/api/tables/{p.code}/spectate"
    refused = stranger.get(url)
    assert refused.status_code == 403 and refused.json()["code"] == "not_watchable"
    assert APIClient().get(url).status_code == 403
    assert p.owner_api.get(url).status_code == 200  # the players always
    not_owner = p.bot_api.post(
        f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json"
    )
    assert not_owner.status_code == 403
    marked = p.owner_api.post(f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json")
    assert marked.status_code == 200 and marked.json() == {"watchable": True}
    assert p.log()[-1][1] == "watchable"
    assert stranger.get(url).status_code == 200  # holding the code, signed in
    assert APIClient().get(url).status_code == 403  # an invitee is signed in
    assert set(stranger.get(url).json()["view"]) == set(SPECTATOR_KEYS)


@pytest.mark.django_db
def test_who_may_watch_a_club_table():
    p = Players(kinds=("human", "bot", "bot", "bot"), rated=True)
    club = Club.objects.create(slug="spec", name="Spec", visibility="public", created_by=p.owner)
    p.club_match(club)
    url = f"/api/tables/{p.code}/spectate"
    assert APIClient().get(url).status_code == 200  # a public club: anyone
    club.visibility = "members"
    club.save()
    outsider, member = new_member("out"), new_member("mem")
    Membership.objects.create(club=club, user=member)
    hidden = client_for(outsider).get(url)
    assert hidden.status_code == 404 and hidden.json()["code"] == "not_found"
    assert APIClient().get(url).status_code == 404
    assert client_for(member).get(url).status_code == 200


@pytest.mark.django_db
def test_no_hidden_tile_in_spectate_answers_and_long_polls_over_whole_hands():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    p.owner_api.post(f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json")
    watcher = client_for(new_member("eye"))
    rng = random.Random(22)
    hands_ended = 0
    for _ in range(400):
        answer = watcher.get(f"/api/tables/{p.code}/spectate")
        assert answer.status_code == 200
        check_no_leak(answer.content.decode(), hidden_at(p))
        polled = watcher.get(
            f"/api/tables/{p.code}/spectate?wait=0.05&after={answer.json()['version'] - 1}"
        )
        check_no_leak(polled.content.decode(), hidden_at(p))
        hands_ended = len(answer.json()["view"]["results"] or [])
        if p.step(rng) is None or hands_ended >= 2:
            break
    assert hands_ended >= 2  # hands ended: their hands shown, the next ones hidden


@pytest.mark.django_db(transaction=True)
def test_no_hidden_tile_in_spectator_socket_frames():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    p.owner_api.post(f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json")
    eye = new_member("eye")
    token = token_for(eye)
    spectate.forget_frames()

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}/spectate",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert (await ws.connect())[0]
        frames = []
        rng = random.Random(5)
        for _ in range(120):
            if await sync_to_async(p.step)(rng) is None:
                break
        while not await ws.receive_nothing(timeout=2):
            frames.append(await ws.receive_from(timeout=5))
        await ws.disconnect()
        return frames

    frames = async_to_sync(scenario)()
    views = [json.loads(f) for f in frames if json.loads(f)["type"] == "view"]
    assert len(views) >= 10
    assert [v["version"] for v in views] == sorted({v["version"] for v in views})
    for text in frames:
        body = json.loads(text)
        if body["type"] == "view":
            check_no_leak(text, hidden_at(p, body["version"]))
        else:
            assert body["type"] in ("presence", "ping")
            assert not tiles_in(text)


@pytest.mark.django_db(transaction=True)
def test_a_stranger_socket_is_refused_at_an_unwatchable_table():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    token = token_for(new_member("zed"))

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}/spectate",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        await ws.connect()
        closed = await ws.receive_output(timeout=5)
        assert closed["type"] == "websocket.close" and closed["code"] == 4403

    async_to_sync(scenario)()


@pytest.mark.django_db(transaction=True)
def test_a_followed_tables_frames_are_built_by_the_committing_thread_once_per_version():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    spectate.forget_frames()
    rng = random.Random(7)
    spectate.follow(p.table.pk)  # as a spectator socket of this process does
    try:
        for _ in range(40):
            if p.step(rng) is None:
                break
            version = projection.project(p.table).version
            prebuilt = spectate.cached_frame(p.table.pk, version)
            assert prebuilt is not None, "the commit built no frame"
            check_no_leak(prebuilt.decode(), hidden_at(p, version))
            spectate.forget_frames()  # the same bytes as a build from the table read again
            assert spectate.frame(p.table) == (version, prebuilt)
    finally:
        spectate.unfollow(p.table.pk)
    assert p.step(rng) is not None
    # nobody follows: a commit builds nothing
    assert spectate.cached_frame(p.table.pk, projection.project(p.table).version) is None


@pytest.mark.django_db(transaction=True)
def test_a_spectator_joining_after_a_seat_came_is_told_the_presence_of_now():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    p.owner_api.post(f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json")
    token = token_for(new_member("eye"))
    spectate.forget_frames()
    version, kept = spectate.frame(p.table)  # the version's frame, kept from now on
    was = json.loads(kept)["presence"]
    presence.socket_opened(table_id=p.table.pk, seats=[3], socket="elsewhere")  # no new version
    now = presence.presence_json(table=p.table)
    assert now != was

    async def scenario():
        ws = WebsocketCommunicator(
            application,
            f"/ws/tables/{p.code}/spectate",
            headers=[(b"authorization", f"Token {token}".encode())],
        )
        assert (await ws.connect())[0]
        view = json.loads(await ws.receive_from(timeout=5))
        told = json.loads(await ws.receive_from(timeout=5))
        await ws.disconnect()
        return view, told

    view, told = async_to_sync(scenario)()
    assert view["type"] == "view" and view["version"] == version and view["presence"] == was
    assert told == {"type": "presence", "presence": now}
    presence.socket_closed(table_id=p.table.pk, seats=[3], socket="elsewhere")


@pytest.mark.django_db(transaction=True)
def test_spectators_told_of_a_presence_change_together_share_one_read(monkeypatch):
    from server.sockets.consumers import hub

    p = Players(kinds=("human", "bot", "bot", "bot"))
    reads = []

    def counted(*, table, now=None):
        reads.append(table.pk)
        return {"1": {"connected": len(reads) > 0}}

    monkeypatch.setattr(presence, "presence_json", counted)

    async def scenario():
        together = await asyncio.gather(*(hub.presence_once(p.table) for _ in range(50)))
        later = await hub.presence_once(p.table)
        return together, later

    together, later = async_to_sync(scenario)()
    assert len(reads) == 2  # one for the 50 told together, one for the later caller
    assert all(body == together[0] for body in together) and later == together[0]


@pytest.mark.django_db(transaction=True)
def test_a_code_holders_socket_is_closed_once_the_table_is_no_longer_watchable():
    """A stranger let in because the owner marked the table watchable is closed 4403 at
    the change that unmarks it, and gets no frame of it; the owner's socket goes on."""
    p = Players(kinds=("human", "bot", "bot", "bot"))
    p.owner_api.post(f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json")
    tokens = [token_for(new_member("eye")), token_for(p.owner)]

    async def next_view_or_close(ws):
        while True:
            message = await ws.receive_output(timeout=10)
            if message["type"] == "websocket.close":
                return message
            body = json.loads(message["text"])
            if body["type"] == "view":
                return body

    async def scenario():
        sockets = []
        for token in tokens:
            ws = WebsocketCommunicator(
                application,
                f"/ws/tables/{p.code}/spectate",
                headers=[(b"authorization", f"Token {token}".encode())],
            )
            assert (await ws.connect())[0]
            assert (await next_view_or_close(ws))["type"] == "view"
            sockets.append(ws)
        unmark = sync_to_async(p.owner_api.post)
        answer = await unmark(
            f"/api/tables/{p.code}/watchable", {"watchable": False}, format="json"
        )
        assert answer.status_code == 200, answer.content
        stranger, own = [await next_view_or_close(ws) for ws in sockets]
        await sockets[1].disconnect()
        return stranger, own

    stranger, own = async_to_sync(scenario)()
    assert stranger == {"type": "websocket.close", "code": 4403}
    assert own["type"] == "view" and own["version"] == projection.project(p.table).version


async def close_code(ws, pings: int = 20) -> int | None:
    """The code a socket is closed with (frames before it skipped); None: still open
    after ``pings`` pings."""
    while pings > 0:
        message = await ws.receive_output(timeout=10)
        if message["type"] == "websocket.close":
            return message["code"]
        pings -= json.loads(message["text"])["type"] == "ping"
    await ws.disconnect()
    return None


def spectator(token: str, code: str) -> WebsocketCommunicator:
    return WebsocketCommunicator(
        application,
        f"/ws/tables/{code}/spectate",
        headers=[(b"authorization", f"Token {token}".encode())],
    )


@pytest.mark.django_db(transaction=True)
def test_a_members_spectator_socket_is_closed_at_a_ping_once_they_left_the_club():
    """A members club's table, watched by a member: removed from the club (by another
    process, or this one), their socket is closed 4404 at its next ping, as they would
    be refused now; another member's goes on."""
    p = Players(kinds=("human", "bot", "bot", "bot"), rated=True)
    club = Club.objects.create(slug="gone", name="Gone", visibility="members", created_by=p.owner)
    p.club_match(club)
    leaving, staying = new_member("mem"), new_member("mem")
    gone = Membership.objects.create(club=club, user=leaving)
    Membership.objects.create(club=club, user=staying)
    tokens = [token_for(leaving), token_for(staying)]

    def remove():
        Membership.objects.filter(pk=gone.pk).update(active=False, removed_at=timezone.now())

    async def scenario():
        sockets = [spectator(token, p.code) for token in tokens]
        for ws in sockets:
            assert (await ws.connect())[0]
            assert json.loads(await ws.receive_from(timeout=5))["type"] == "view"
        await sync_to_async(remove)()
        code = await close_code(sockets[0])
        pinged = 0
        while pinged < 2:  # the staying member's socket outlives two pings more
            message = await sockets[1].receive_output(timeout=10)
            assert message["type"] == "websocket.send", message
            pinged += json.loads(message["text"])["type"] == "ping"
        await sockets[1].disconnect()
        return code

    with override_settings(WS_PING_SECONDS=0.2):
        assert async_to_sync(scenario)() == 4404


@pytest.mark.django_db(transaction=True)
def test_a_spectator_socket_whose_token_is_revoked_is_closed_at_a_ping():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    token = token_for(p.owner)

    async def scenario():
        ws = spectator(token, p.code)
        assert (await ws.connect())[0]
        assert json.loads(await ws.receive_from(timeout=5))["type"] == "view"
        await sync_to_async(AccessToken.objects.filter(key_hash=key_hash(token)).delete)()
        return await close_code(ws)

    with override_settings(WS_PING_SECONDS=0.2):
        assert async_to_sync(scenario)() == 4401


@pytest.mark.django_db(transaction=True)
def test_a_former_seat_holders_spectator_socket_is_closed_at_a_ping():
    """A bot watches the table it plays at (its seats let it in; the table is not
    watchable). The owner hands its seats to another bot: its socket is closed 4403 at
    its next ping, as it would be refused now."""
    from server.tables import services
    from tests.server.conftest import new_bot

    p = Players(kinds=("human", "bot", "bot", "bot"))
    token = token_for(p.bot)
    spare = new_bot(p.owner)

    def hand_over():
        for seat in (2, 3, 4):
            services.do_replace(user=p.owner, table=p.table, seat=seat, bot=spare)

    async def scenario():
        ws = spectator(token, p.code)
        assert (await ws.connect())[0]
        assert json.loads(await ws.receive_from(timeout=5))["type"] == "view"
        await sync_to_async(hand_over)()
        return await close_code(ws)

    with override_settings(WS_PING_SECONDS=0.2):
        assert async_to_sync(scenario)() == 4403
