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

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from server import limits
from server.errors import NotFound, NotWatchable
from server.league import spectate
from server.league.serializers import league_tables_body
from server.realtime import notify, presence
from server.realtime.groups import account_group, spectate_group, table_group
from server.tables import projection, selectors
from server.tables.models import Seat, Table
from server.tables.services import lift_lapsed_pauses

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
            await self.pinged()

    async def pinged(self) -> None:
        """Called after each ping sent (a table socket renews its seats' presence)."""

    async def closed(self) -> None:
        """Called once when an accepted socket closes."""

    async def receive_json(self, content, **kwargs):
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def disconnect(self, code):
        accepted = self.slot_of is not None
        if self.slot_of is not None:
            limits.sockets.give_back(self.slot_of)
            self.slot_of = None
        if self.pinger is not None:
            self.pinger.cancel()
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        if accepted:
            await self.closed()


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
        self.sent_presence: dict | None = None
        return None

    def groups_to_follow(self) -> list[str]:
        return [table_group(self.table.pk)]

    async def opened(self) -> None:
        await self._lease(open_=True)
        # What this socket's client knows: presence comes with the views it fetches;
        # a presence frame follows only when it changes from this.
        self.sent_presence = await self._presence()
        await sync_to_async(notify.presence_changed)(self.table)

    async def pinged(self) -> None:
        await self._lease(open_=True)

    async def closed(self) -> None:
        await self._lease(open_=False)
        await sync_to_async(notify.presence_changed)(self.table)
        await sync_to_async(lift_lapsed_pauses, thread_sensitive=False)(table=self.table)

    async def _lease(self, open_: bool) -> None:
        change = presence.socket_opened if open_ else presence.socket_closed
        await sync_to_async(change, thread_sensitive=False)(
            table_id=self.table.pk, seats=self.seats, socket=self.channel_name
        )

    async def presence_changed(self, message):
        """A seat's player came or went: ``{"type": "presence", "presence": {...}}``."""
        body = await self._presence()
        if body == self.sent_presence:
            return
        self.sent_presence = body
        await self.send_json({"type": "presence", "presence": body})

    async def _presence(self) -> dict:
        return await sync_to_async(presence.presence_json, thread_sensitive=False)(table=self.table)

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

    async def table_changed(self, message):
        for payload in await self._views():
            self.sent_presence = payload.get("presence")
            await self.send_json(payload)

    @database_sync_to_async
    def _views(self):
        """This connection's seats only, as their holder sees them, once per version."""
        state = projection.project(self.table)
        if state.version <= self.sent_version:
            return []
        self.sent_version = state.version
        seats = selectors.load_seats(self.table)
        held = [s.number for s in seats if s.player_id == self.user.pk and s.number in self.seats]
        return [
            {
                "type": "view",
                **selectors.seat_response(self.table, n, state, user=self.user, seats=seats),
            }
            for n in held
        ]


class SpectatorConsumer(AccountSocket):
    """``/ws/tables/{code}/spectate``: a spectator (signed in, ``spectate.may_watch``).
    After every committed change it receives ``{"type": "view", "version", ...}`` — the
    body of ``GET /api/tables/{code}/spectate`` — built once per version in this process
    and sent as the same bytes to every spectator; ``{"type": "presence", "presence"}``
    when a seat's player comes or goes. A spectator is no seat: it counts for no presence."""

    async def subscribe(self) -> int | None:
        code = self.scope["url_route"]["kwargs"]["code"]
        self.table = await self._watchable(code, self.user)
        if self.table is None:
            return CLOSE_NOT_FOUND
        if self.table is False:
            return CLOSE_NOT_YOUR_SEAT
        self.sent_version = 0
        self.sent_presence: dict | None = None
        return None

    @database_sync_to_async
    def _watchable(self, code, user):
        if not TABLE_CODE.match(str(code)):
            return None
        table = Table.objects.select_related("owner").filter(code=str(code).upper()).first()
        if table is None:
            return None
        try:
            spectate.check_may_watch(user, table, projection.project(table))
        except NotFound:
            return None
        except NotWatchable:
            return False
        return table

    def groups_to_follow(self) -> list[str]:
        return [spectate_group(self.table.pk)]

    async def opened(self) -> None:
        await self.table_changed({})

    async def table_changed(self, message):
        version = message.get("version")
        text = None if version is None else spectate.cached_frame(self.table.pk, version)
        if text is None:
            wanted = version
            version, text = await _built_once(self.table)
            if wanted is not None and version < wanted:  # that build began before it
                version, text = await _built_once(self.table)
        if version <= self.sent_version:
            return
        self.sent_version = version
        await self.send(text_data=text.decode())

    async def presence_changed(self, message):
        body = await sync_to_async(presence.presence_json, thread_sensitive=False)(table=self.table)
        if body == self.sent_presence:
            return
        self.sent_presence = body
        await self.send_json({"type": "presence", "presence": body})


# One build per table at a time in this process: spectators told of the same version
# together wait for one frame instead of each building it.
_building: dict[int, asyncio.Future] = {}


async def _built_once(table: Table) -> tuple[int, bytes]:
    pending = _building.get(table.pk)
    if pending is not None:
        return await asyncio.shield(pending)
    future = asyncio.get_running_loop().create_future()
    _building[table.pk] = future
    try:
        built = await database_sync_to_async(spectate.frame)(table)
        future.set_result(built)
        return built
    except BaseException as err:
        future.set_exception(err)
        future.exception()  # retrieved: the waiters (if any) get it
        raise
    finally:
        _building.pop(table.pk, None)


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
