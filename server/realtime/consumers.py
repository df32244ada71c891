"""The WebSocket endpoints: one per table, ``/ws/tables/{code}[?seat=N]``, and the
account's lobby, ``/ws/me``; what they share is ``AccountSocket``.

A table connection subscribes to the seats its account holds (or the one it asks for) and
receives ``{"type": "view", "seat", "version", ...}`` after every committed change, one
message per seat, each with that seat's own view, and a ``{"type": "ping"}`` every few
seconds; it may send ``{"type": "ping"}`` too. Nothing is replayed on connect: a client
fetches the current view over REST after (re)connecting and goes on from its version.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from server import limits
from server.league.serializers import league_tables_body
from server.realtime import pushes
from server.realtime.groups import account_group, table_group
from server.tables.models import Seat, Table

TABLE_CODE = re.compile(r"\A[A-Za-z0-9]{1,12}\Z")

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_NOT_YOUR_SEAT = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY_SOCKETS = 4429


class AccountSocket(AsyncJsonWebsocketConsumer):
    """What every socket of an account does alike: it must be signed in, it counts
    against the account's socket cap (``DEKABES_MAX_SOCKETS``) until it closes, it is
    refused with a close code the client can read, it joins the groups its kind asks for,
    and it is pinged every ``WS_PING_SECONDS`` (and answers a ping with a pong)."""

    async def connect(self):
        self.groups_joined: list[str] = []
        self.pinger = None
        self.slot_of = None
        user = self.scope.get("user")
        if user is None:
            return await self._refuse(CLOSE_NOT_AUTHENTICATED)
        self.user = user
        refused = await self.subscribe()
        if refused is not None:
            return await self._refuse(refused)
        if not limits.sockets.take(user.pk, settings.DEKABES_MAX_SOCKETS):
            return await self._refuse(CLOSE_TOO_MANY_SOCKETS)
        self.slot_of = user.pk
        await self.accept()
        for group in self.groups_to_follow():
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.append(group)
        self.pinger = asyncio.ensure_future(self._ping_forever())
        await self.opened()

    async def subscribe(self) -> int | None:
        """What this socket follows, found before it is accepted; a close code refuses it."""
        return None

    def groups_to_follow(self) -> list[str]:
        raise NotImplementedError

    async def opened(self) -> None:
        """Called once the socket is open and in its groups (what to send first)."""

    async def _refuse(self, code: int) -> None:
        # Accept first: a close before the handshake completes reaches the client as a
        # bare HTTP 403, without the code the docs promise.
        await self.accept()
        await self.close(code=code)

    async def _ping_forever(self):
        while True:
            await asyncio.sleep(settings.WS_PING_SECONDS)
            await self.send_json({"type": "ping"})

    async def receive_json(self, content, **kwargs):
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def disconnect(self, code):
        if self.slot_of is not None:
            limits.sockets.give_back(self.slot_of)
            self.slot_of = None
        if self.pinger is not None:
            self.pinger.cancel()
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)


class TableConsumer(AccountSocket):
    async def subscribe(self) -> int | None:
        code = self.scope["url_route"]["kwargs"]["code"]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        found = await self._seats(code, self.user, query.get("seat", [None])[0])
        if found is None:
            return CLOSE_NOT_FOUND
        self.table, self.seats = found
        if not self.seats:
            return CLOSE_NOT_YOUR_SEAT
        self.sent_version = 0
        self.watching: list[tuple[int, int]] = []
        return None

    def groups_to_follow(self) -> list[str]:
        return [table_group(self.table.pk)]

    @database_sync_to_async
    def _seats(self, code, user, asked):
        if not TABLE_CODE.match(str(code)):
            return None
        table = Table.objects.filter(code=str(code).upper()).first()
        if table is None:
            return None
        held = list(Seat.objects.filter(table=table, player=user).values_list("number", flat=True))
        if asked is not None:
            held = [n for n in held if str(n) == asked]
        return table, sorted(held)

    async def opened(self) -> None:
        self.watching = [(n, self.user.pk) for n in self.seats]
        pushes.watch(self.table.pk, self.watching)

    async def disconnect(self, code):
        if getattr(self, "watching", None):
            pushes.unwatch(self.table.pk, self.watching)
            self.watching = []
        await super().disconnect(code)

    async def table_changed(self, message):
        """Its seats' views, once per version: built once in this process for every
        socket that follows the table (``pushes``), sent as the same text."""
        version, texts = await pushes.pushes(self.table, message.get("version"))
        if version <= self.sent_version:
            return
        self.sent_version = version
        for pair in self.watching:
            text = texts.get(pair)
            if text is not None:
                await self.send(text_data=text)


class LobbyConsumer(AccountSocket):
    """``/ws/me``: the account's lobby. On connect and whenever a round seats the account
    (or one of its league matches ends) it receives ``{"type": "league_tables",
    "version", "tables"}`` — the same body as ``GET /api/me/league-tables``."""

    def groups_to_follow(self) -> list[str]:
        return [account_group(self.user.pk)]

    async def opened(self) -> None:
        await self.league_tables({})

    async def league_tables(self, message):
        await self.send_json({"type": "league_tables", **await self._tables()})

    @database_sync_to_async
    def _tables(self):
        return league_tables_body(self.user)
