"""The WebSocket endpoints: one per table, ``/ws/tables/{code}[?seat=N]``, and the
account's lobby, ``/ws/me``; what they share is ``AccountSocket``.

A table connection subscribes to the seats its account holds (or the one it asks for),
through the process's ``SeatHub`` (one channel-layer listener per table, whatever its
number of sockets), and receives ``{"type": "view", "seat", "version", ...}`` after every committed change, one
message per seat, each with that seat's own view, and a ``{"type": "ping"}`` every few
seconds; it may send ``{"type": "ping"}`` too, and actions for its seats (``{"type":
"action", ...}``, answered by ``{"type": "answer", ...}``: ``server.sockets.actions``).
Nothing is replayed on connect: a client fetches the current view over REST after
(re)connecting and goes on from its version.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import uuid
from urllib.parse import parse_qs

import orjson
from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.conf import settings
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server import limits
from server.errors import (
    ApiError,
    BodyTooLarge,
    NotFound,
    NotWatchable,
    ValidationError,
)
from server.league import spectate
from server.league.selectors import league_tables_version
from server.league.serializers import league_tables_body
from server.notices import notify, presence
from server.notices.groups import account_group, rejoin_seconds, spectate_group, table_group
from server.sockets import action_thread, pushes
from server.sockets.actions import SeatActions, answer_frame, look_at_tokens, still_signed_in
from server.sockets.pings import PING_TEXT, pings
from server.tables import projection, selectors
from server.tables.models import Seat, Table
from server.tables.services import lift_lapsed_pauses

log = logging.getLogger(__name__)

TABLE_CODE = re.compile(r"\A[A-Za-z0-9]{1,12}\Z")

CLOSE_NOT_AUTHENTICATED = 4401
CLOSE_NOT_YOUR_SEAT = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY_SOCKETS = 4429
CLOSE_RECONNECT = 4503  # its hub stopped hearing Redis for a while: reconnect, read again


# No socket receives from the channel layer itself: the process's hubs do (``SeatHub``,
# ``SpectatorHub``, ``LobbyHub``), each with one receive that lasts as long as the
# process. On Redis, channels_redis has one receive at a time per process pop the
# process's one queue for all its channels, and a receive cancelled when its socket
# closed could take with it a message meant for another: a table's change, and its
# sockets in that process missed that version's push (django/channels#1683; measured in
# docs/server.md, "Pushes lost"). An alias that names no layer gives a consumer none
# (``channels.layers.get_channel_layer``).
NO_CHANNEL_LAYER = "dekabes.sockets-receive-through-hubs"


class AccountSocket(AsyncJsonWebsocketConsumer):
    """What every socket of an account does alike: it must be signed in, it counts
    against the account's socket cap (``DEKABES_MAX_SOCKETS``) until it closes, it is
    refused with a close code the client can read, it follows what its kind follows
    through the process's hub before its handshake completes, and it is pinged every
    ``WS_PING_SECONDS`` (and answers a ping with a pong)."""

    channel_layer_alias = NO_CHANNEL_LAYER

    async def connect(self):
        self.pinged_here = False  # in the process's ping round (``pings``)
        self.slot_of = None
        self.open = False  # accepted: the hubs write to it from then on
        self.channel_name = f"socket.{uuid.uuid4().hex}"  # its name in presence leases
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
        # In its hub before the handshake completes: a change committed once the client
        # holds the open socket (and then reads its view) is pushed to it.
        await self.follow()
        await self.accept()
        self.open = True
        pings.add(self)
        self.pinged_here = True
        await self.opened()

    async def subscribe(self) -> int | None:
        """What this socket follows, found before it is accepted; a close code refuses it."""
        return None

    async def follow(self) -> None:
        """Join the process's hub for what it follows (before it is accepted)."""

    async def opened(self) -> None:
        """Called once the socket is open and in its hub (what to send first)."""

    async def _refuse(self, code: int) -> None:
        # Accept first: a close before the handshake completes reaches the client as a
        # bare HTTP 403, without the code the docs promise.
        await self.accept()
        await self.close(code=code)

    async def write_ping(self) -> None:
        try:
            await self.base_send({"type": "websocket.send", "text": PING_TEXT})
        except Exception:  # noqa: S110 -- closing under us: its disconnect leaves the round
            pass

    @classmethod
    async def pinged_together(cls, sockets: list) -> None:
        """Called after a ping round with this kind's sockets it pinged (``pings``)."""
        for socket in sockets:
            await socket.pinged()

    async def pinged(self) -> None:
        """Called after each ping sent, unless the kind's ``pinged_together`` does it
        for all of a round's sockets at once."""

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
        if self.pinged_here:
            pings.remove(self)
            self.pinged_here = False
        self.open = False
        if accepted:
            await self.closed()


class TableConsumer(AccountSocket):
    async def subscribe(self) -> int | None:
        code = self.scope["url_route"]["kwargs"]["code"]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        found = await self._seats(code, self.user, query.get("seat", [None])[0])
        if found is None:
            return CLOSE_NOT_FOUND
        self.table, self.seats, self.opened_version = found
        if not self.seats:
            return CLOSE_NOT_YOUR_SEAT
        self.sent_version = 0
        self.sent_presence: dict | None = None
        self.watching: list[tuple[int, int]] = []
        self.in_hub = False
        self.answering = False  # an action of this socket's is being answered
        self.held: tuple[int, dict] | None = None  # pushes that came meanwhile
        return None

    async def follow(self) -> None:
        self.watching = [(n, self.user.pk) for n in self.seats]
        pushes.watch(self.table.pk, self.watching)
        self.in_hub = True
        await seat_hub.join(self)

    async def opened(self) -> None:
        self.actions = SeatActions(
            user=self.user,
            token_key=self.scope.get("token_key"),
            session_key=self.scope.get("session_key"),
            code=self.table.code,
            seats=self.seats,
        )
        await self._lease(open_=True)
        # What this socket's client knows: presence comes with the views it fetches;
        # a presence frame follows only when it changes from this.
        self.sent_presence = await self._presence()
        await sync_to_async(notify.presence_changed)(self.table.pk)

    # whether the last round's lease renewals failed (logged once until they work again)
    leases_failed = False

    @classmethod
    async def pinged_together(cls, sockets: list) -> None:
        """After a ping round, for all the seat sockets it pinged: their leases renewed
        in one Redis round trip, and their tokens due a look looked at in one query; a
        revoked token's socket closes (docs/api.md: within a ping)."""
        sockets = [s for s in sockets if hasattr(s, "actions") and pings.has(s)]  # open
        if not sockets:
            return
        try:
            await sync_to_async(presence.sockets_pinged, thread_sensitive=False)(
                [(socket.table.pk, socket.seats, socket.channel_name) for socket in sockets]
            )
        except (RedisConnectionError, RedisTimeoutError) as error:
            # Redis (the leases' store with REDIS_URL) stalled or dropped: the leases are
            # renewed at the next ping; the sockets and their pings go on (docs/server.md)
            if not cls.leases_failed:
                log.warning(
                    "%d sockets' leases not renewed: %s: %s",
                    len(sockets),
                    type(error).__name__,
                    error,
                )
            cls.leases_failed = True
        else:
            cls.leases_failed = False
        signed_out, versions = await database_sync_to_async(_after_ping_reads)(sockets)
        for socket in sockets:
            if socket.actions in signed_out and pings.has(socket):
                await socket.close(code=CLOSE_NOT_AUTHENTICATED)
        await cls.catch_up([s for s in sockets if pings.has(s)], versions)

    @classmethod
    async def catch_up(cls, sockets: list, versions: dict[int, int]) -> None:
        """Push the newest views to the sockets whose table has moved past what they
        were sent (or read when they opened): a push lost on its way (a hub that failed
        to pass a change on, a channel message Redis lost) is made good within a ping,
        not at the table's next move, which may never come (docs/api.md)."""
        behind: dict[int, list] = {}
        for socket in sockets:
            newest = versions.get(socket.table.pk, 0)
            if newest > max(socket.sent_version, socket.opened_version):
                behind.setdefault(socket.table.pk, []).append(socket)
        for table_id, lagging in behind.items():
            try:
                built, texts = await pushes.pushes(lagging[0].table, versions[table_id])
            except Exception as error:  # tried again at the next ping
                log.warning("table-%s: views not caught up: %r", table_id, error)
                continue
            sent = [socket for socket in lagging if await socket.push_views(built, texts)]
            if sent:
                log.info("table-%s: %d seat sockets caught up to %s", table_id, len(sent), built)

    async def receive(self, text_data=None, bytes_data=None, **kwargs):
        """A ping, or an action (``server.sockets.actions``); other messages are ignored."""
        raw = text_data if text_data is not None else bytes_data or b""
        message = None
        refusal: ApiError = ValidationError("a message is a JSON object")
        if len(raw) > settings.DEKABES_MAX_BODY:  # as a request body: refused unread
            refusal = BodyTooLarge()
        else:
            try:
                message = orjson.loads(raw)
            except orjson.JSONDecodeError:
                pass
        if not isinstance(message, dict):
            frame = answer_frame(None, refusal.status, orjson.dumps(refusal.body()))
            await self.send(text_data=frame.decode())
            return
        kind = message.get("type")
        if kind == "action":
            await self._act(message)
        elif kind == "ping":
            await self.send(text_data='{"type": "pong"}')

    async def _act(self, message: dict) -> None:
        # One action at a time per socket: the next message waits for this answer.
        # One trip to the socket actions' thread, which closes stale database
        # connections in the same trip (Channels' dispatch would make a trip of its own
        # for that) and hands the commit's notices back with the answer.
        self.answering = True
        try:
            frame, version = await action_thread.run(self.actions.answer, message)
            await self.send(text_data=frame.decode())
            if version is not None and len(self.watching) == 1 and version > self.sent_version:
                # its push of this version is this very answer: it is not sent again here
                self.sent_version = version
        finally:
            self.answering = False
            held, self.held = self.held, None
        if held is not None:  # pushes that came while it was answered: after the answer
            await self.push_views(*held)
        if self.actions.revoked:
            await self.close(code=CLOSE_NOT_AUTHENTICATED)

    async def closed(self) -> None:
        if self.in_hub:
            self.in_hub = False
            await seat_hub.leave(self)
        await pings.settle(self)  # a renewal in flight must not outlive the lease's drop
        await self._lease(open_=False)
        await sync_to_async(notify.presence_changed)(self.table.pk)
        await sync_to_async(lift_lapsed_pauses, thread_sensitive=False)(table=self.table)

    async def _lease(self, open_: bool) -> None:
        change = presence.socket_opened if open_ else presence.socket_closed
        await sync_to_async(change, thread_sensitive=False)(
            table_id=self.table.pk, seats=self.seats, socket=self.channel_name
        )

    async def show_presence(self, body: dict) -> None:
        """A seat's player came or went: ``{"type": "presence", "presence": {...}}``."""
        if not self.open or body == self.sent_presence:
            return
        self.sent_presence = body
        await self.write(json.dumps({"type": "presence", "presence": body}))

    async def write(self, text: str) -> None:
        try:
            await self.base_send({"type": "websocket.send", "text": text})
        except Exception:  # a socket closing under us: its disconnect removes it
            pass

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
        # the version its client reads at the latest once open: no catch-up owed below it
        return table, sorted(held), selectors.current_version(table) if held else 0

    async def disconnect(self, code):
        if getattr(self, "watching", None):
            pushes.unwatch(self.table.pk, self.watching)
            self.watching = []
        await super().disconnect(code)

    # Channels closes the request thread's stale database connections before every
    # message it dispatches: a hop to that thread and back (~0.1 ms of CPU). A message
    # from the client (an action, a ping) is dispatched directly: an action makes its
    # one trip to a request thread itself (``_act``), which closes them in the same trip.
    # (A table's changes reach the socket through the process's ``SeatHub``.)
    DIRECT = frozenset({"websocket.receive"})

    async def dispatch(self, message):
        if message.get("type") in self.DIRECT:
            return await getattr(self, get_handler_name(message))(message)
        return await super().dispatch(message)

    async def push_views(self, version: int, texts: dict) -> bool:
        """The views of the seats it follows at ``version`` (the hub calls it), unless
        it has sent that version; while one of its actions is being answered they wait
        for the answer (which is its seat's view: then not sent again). Not yet open:
        nothing (its client reads its view once it is). Whether it wrote a view."""
        if not self.open:
            return False
        if self.answering:
            if self.held is None or version > self.held[0]:
                self.held = (version, texts)
            return False
        if version <= self.sent_version:
            return False
        self.sent_version = version
        wrote = False
        for pair in self.watching:
            text = texts.get(pair)
            if text is not None:
                await self.write(text)
                wrote = True
        return wrote


def _after_ping_reads(sockets: list) -> tuple[list, dict[int, int]]:
    """What a ping round's seat sockets need read, in one trip to a request thread: the
    ``SeatActions`` whose token is revoked, and each of their tables' newest version."""
    signed_out = look_at_tokens(
        [socket.actions for socket in sockets], within=settings.WS_TOKEN_CHECK_SECONDS
    )
    return signed_out, selectors.current_versions({socket.table.pk for socket in sockets})


class _Hub:
    """This process's sockets of one kind, by table (or account), and its one listener:
    one channel of the whole process in the group of each table followed (on the
    in-memory layer as on Redis), so a version costs one channel message per process, not
    one per socket, and no socket receives on the layer itself (``NO_CHANNEL_LAYER``).
    Subclasses name the group and say what a message of that group does."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.reset()

    def reset(self) -> None:
        channel = getattr(self, "channel", None)
        if channel is not None:
            notify.stop_hearing_here(channel)
        refresher = getattr(self, "refresher", None)
        if refresher is not None and not refresher.done():
            try:
                refresher.cancel()
            except RuntimeError:  # its loop is closed: it runs no more anyway
                pass
        self.members: dict[int, set] = {}
        self.joining: dict[int, asyncio.Future] = {}  # the group_add under way, by key
        self.layer = None  # the layer its channel is on
        self.channel: str | None = None
        self.reader: asyncio.Task | None = None
        self.refresher: asyncio.Task | None = None

    def key(self, consumer) -> int:
        """What the hub files ``consumer`` under: the id its group is named after."""
        return consumer.table.pk

    def group(self, table_id: int) -> str:
        raise NotImplementedError

    async def handle(self, table_id: int, message: dict) -> None:
        raise NotImplementedError

    def forget(self, table_id: int) -> None:
        """The table's last socket here has gone (state kept per table is dropped)."""

    def _use_loop(self) -> None:
        loop = asyncio.get_running_loop()
        layer = get_channel_layer()
        # a new loop or layer (tests run several): start afresh
        if self.loop is not loop or (self.layer is not None and self.layer is not layer):
            self.loop = loop
            self.reset()

    async def join(self, consumer) -> None:
        """Once this returns, the hub hears the group ``consumer`` follows (a socket
        joining while the first one's ``group_add`` is under way waits for it too)."""
        self._use_loop()
        table_id = self.key(consumer)
        first = table_id not in self.members
        self.members.setdefault(table_id, set()).add(consumer)
        if first:
            listening = self.joining[table_id] = asyncio.ensure_future(self._listen(table_id))
            listening.add_done_callback(lambda done: self._joined(table_id, done))
        pending = self.joining.get(table_id)
        if pending is not None:
            await asyncio.shield(pending)

    def _joined(self, table_id: int, future: asyncio.Future) -> None:
        if self.joining.get(table_id) is future:
            del self.joining[table_id]
        if not future.cancelled():
            future.exception()  # retrieved: the joiners awaiting it get it

    async def _listen(self, table_id: int) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        if self.channel is None:
            # the layer's default prefix, as the other hubs' channels: with a prefix of
            # its own, 200 spectators on Redis saw receives fail with Redis read timeouts
            # (channels_redis has one receive at a time per process)
            self.layer = layer
            self.channel = await layer.new_channel()
            self.reader = asyncio.ensure_future(self._read(layer, self.channel))
            self.refresher = asyncio.ensure_future(self._refresh(layer, self.channel))
            if self.hears_here and isinstance(layer, InMemoryChannelLayer):
                notify.hear_here(self.channel, self._heard)
        await layer.group_add(self.group(table_id), self.channel)

    async def _refresh(self, layer, channel: str) -> None:
        """Join every group followed again (``rejoin_seconds``): the hub stays in a group
        as long as a socket here follows it, and a lobby or a table left open past the
        layer's ``group_expiry`` (a day) got no push again."""
        every = rejoin_seconds(layer)
        while True:
            await asyncio.sleep(every)
            for key in list(self.members):
                try:
                    await layer.group_add(self.group(key), channel)
                    if key not in self.members:  # its last socket left meanwhile
                        await layer.group_discard(self.group(key), channel)
                except Exception as error:  # Redis away: joined again at the next round
                    log.warning("%s could not rejoin %s: %r", type(self).__name__, key, error)

    async def leave(self, consumer) -> None:
        table_id = self.key(consumer)
        members = self.members.get(table_id)
        if members is None:
            return
        members.discard(consumer)
        if not members:
            del self.members[table_id]
            self.forget(table_id)
            layer = get_channel_layer()
            if layer is not None and self.channel is not None:
                await layer.group_discard(self.group(table_id), self.channel)
                if table_id in self.members:  # a socket came back meanwhile (Redis)
                    await layer.group_add(self.group(table_id), self.channel)

    async def _read(self, layer, channel: str) -> None:
        while True:
            try:
                message = await layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # Redis away past the layer's retries (a stall of up to
                # DEKABES_REDIS_STALL_SECONDS is waited out): what was sent meanwhile is
                # lost, so the sockets close and their clients reconnect and read their
                # views again. Then listen again shortly.
                log.warning("%s stopped hearing Redis: %r", type(self).__name__, error)
                await self.close_all(CLOSE_RECONNECT)
                await asyncio.sleep(1)
                continue
            await self._take(message)

    async def take_change(self, key: int, version: int) -> None:
        """Handle ``key``'s change to ``version`` as if its group had told it."""
        await self._take({"type": "table.changed", "version": version, "group": self.group(key)})

    async def close_all(self, code: int) -> None:
        for members in list(self.members.values()):
            for consumer in list(members):
                await _close(consumer, code)

    async def _take(self, message: dict) -> None:
        try:
            table_id = int(str(message.get("group", "")).rsplit("-", 1)[1])
        except (IndexError, ValueError):
            return
        if not self.members.get(table_id):
            return
        try:
            await self.handle(table_id, message)
        except Exception as error:  # one table's trouble must not stop the others'
            # its sockets here missed this change (they catch up at their next ping)
            log.warning(
                "%s: %s of %s not passed on: %r",
                type(self).__name__,
                message.get("type"),
                message.get("group"),
                error,
            )

    # Whether a table's change is handed over directly on the in-memory layer
    # (``notify.hear_here``): no task, copy and queue of the layer's per change.
    hears_here = False

    def _heard(self, message: dict) -> None:
        asyncio.ensure_future(self._take(message))


class SeatHub(_Hub):
    """This process's seat sockets, by table (``_Hub``).

    A seat socket does not join the table's channel-layer group itself: the hub gets each
    version's pushes once (``pushes``) and hands each socket of the table the texts of its
    seats, and the presence read once. A move then costs no channel message, queue or
    dispatch per socket (~0.3 ms each with four of them)."""

    hears_here = True  # a change's pushes are versioned: their order does not matter

    def group(self, table_id: int) -> str:
        return table_group(table_id)

    async def handle(self, table_id: int, message: dict) -> None:
        sockets = self.members[table_id]
        if message.get("type") == "presence.changed":
            body = await next(iter(sockets))._presence()
            for consumer in list(self.members.get(table_id, ())):
                await consumer.show_presence(body)
        else:
            table = next(iter(sockets)).table
            built, texts = await pushes.pushes(table, message.get("version"))
            for consumer in list(sockets):
                await consumer.push_views(built, texts)


seat_hub = SeatHub()


class SpectatorConsumer(AccountSocket):
    """``/ws/tables/{code}/spectate``: a spectator (signed in, ``spectate.may_watch``).
    On connect and after every committed change it receives ``{"type": "view",
    "version", ...}`` — the body of ``GET /api/tables/{code}/spectate`` — and
    ``{"type": "presence", "presence"}`` when a seat's player comes or goes. A spectator
    is no seat: it counts for no presence.

    Spectators do not join a channel-layer group each: the process's ``SpectatorHub``
    listens once per table (its one channel in the table's spectators' group, on the
    in-memory layer as on Redis), finds each version's frame built once (by the
    committing thread, in the process that committed) and writes the same text to every
    spectator of the table in this process: no per-spectator message, queue, dispatch or
    read."""

    async def subscribe(self) -> int | None:
        code = self.scope["url_route"]["kwargs"]["code"]
        found = await self._watchable(code, self.user)
        if found is None:
            return CLOSE_NOT_FOUND
        if found is False:
            return CLOSE_NOT_YOUR_SEAT
        self.table, admitted = found
        # let in only while the owner lets the code's holders watch (spectate.py): closed
        # at the first version at which it no longer does, as it would be refused then
        self.invitee = admitted == "invitee"
        # let in as a club's reader or a seat's holder: looked at again at every ping
        # (removed from a members club, the seat handed over), as the token is
        self.admitted = admitted
        self.sent_version = 0
        self.sent_presence: dict | None = None
        self.watching = False
        return None

    @database_sync_to_async
    def _watchable(self, code, user):
        if not TABLE_CODE.match(str(code)):
            return None
        table = Table.objects.select_related("owner").filter(code=str(code).upper()).first()
        if table is None:
            return None
        try:
            admitted = spectate.check_may_watch(user, table, projection.project(table))
        except NotFound:
            return None
        except NotWatchable:
            return False
        return table, admitted

    async def pinged(self) -> None:
        """At every ping (docs/api.md): a revoked token's socket closes 4401; one that
        may no longer watch (``spectate.still_may_watch``) closes as it would be refused
        now."""
        refused, newest = await database_sync_to_async(self._refused_now)()
        if refused is not None:
            await self.close(code=refused)
        elif self.open and newest > self.sent_version:
            # a frame lost on its way (as a seat socket's view: ``catch_up``): the
            # table's spectators here are sent the newest as the hub sends a change's
            log.info("spectate-%s: caught up to %s", self.table.pk, newest)
            await hub.take_change(self.table.pk, newest)

    def _refused_now(self) -> tuple[int | None, int]:
        """The close code it would be refused with now (None: none), and the table's
        newest version."""
        if not still_signed_in(
            self.user, self.scope.get("token_key"), self.scope.get("session_key")
        ):
            return CLOSE_NOT_AUTHENTICATED, 0
        if self.admitted != "invitee":  # an invitee's is checked per version (send_view)
            try:
                spectate.still_may_watch(self.user, self.table, self.admitted)
            except NotFound:
                return CLOSE_NOT_FOUND, 0
            except NotWatchable:
                return CLOSE_NOT_YOUR_SEAT, 0
        return None, selectors.current_version(self.table)

    async def follow(self) -> None:
        self.watching = True
        spectate.follow(self.table.pk)  # the committing thread builds its frames
        await hub.join(self)

    async def opened(self) -> None:
        try:
            shown = await hub.send_view(self.table, None, [self])
        except NotFound:  # closed to watchers since the check (spectate.watch_closed)
            await self.close(code=CLOSE_NOT_FOUND)
            return
        # The version's frame is kept from when it was built: a seat that came or went
        # since then follows as a presence frame.
        if shown is not None:
            body = await hub.presence_once(self.table)
            if body != orjson.loads(shown).get("presence"):
                self.sent_presence = body
                await _write(self, json.dumps({"type": "presence", "presence": body}))

    async def closed(self) -> None:
        if self.watching:
            self.watching = False
            spectate.unfollow(self.table.pk)
            await hub.leave(self)

    async def write(self, text: str) -> None:
        await self.base_send({"type": "websocket.send", "text": text})


class SpectatorHub(_Hub):
    """This process's spectators, by table (``_Hub``), each version's frame built
    once and the same text written to every spectator of the table here."""

    def reset(self) -> None:
        super().reset()
        self.presence_sent: dict[int, dict] = {}
        self.building: dict[int, asyncio.Future] = {}
        self.reading: dict[int, asyncio.Future] = {}

    def group(self, table_id: int) -> str:
        return spectate_group(table_id)

    def forget(self, table_id: int) -> None:
        self.presence_sent.pop(table_id, None)

    async def handle(self, table_id: int, message: dict) -> None:
        table = next(iter(self.members[table_id])).table
        if await database_sync_to_async(spectate.watch_closed)(table):
            # a live duplicate round's table: watched by no one (spectate.py)
            await self.close_table(table.pk)
        elif message.get("type") == "presence.changed":
            await self.send_presence(table)
        else:
            await self.send_view(table, message.get("version"), None)

    async def close_table(self, table_id: int) -> None:
        for consumer in list(self.members.get(table_id, ())):
            await _close(consumer, CLOSE_NOT_FOUND)

    async def send_view(self, table, version, only) -> bytes | None:
        """The frame of ``version`` (None: the current one) to ``only`` or to every
        spectator of the table here that has not had it; the frame (None: none sent)."""
        text = None if version is None else spectate.cached_frame(table.pk, version)
        if text is None:
            built, text = await self._built_once(table)
            if version is not None and built < version:  # that build began before it
                built, text = await self._built_once(table)
            version = built
        message = text.decode()
        sent = None
        invitees = None  # whether the code's holders may watch at this version (read once)
        for consumer in list(only or self.members.get(table.pk, ())):
            # one not yet open is sent the frame of its version when it is (``opened``)
            if consumer.open and version > consumer.sent_version:
                if consumer.invitee:
                    if invitees is None:
                        invitees = spectate.open_to_invitees(table.pk, version)
                    if invitees is None:  # its frame no longer kept: the state now
                        invitees = await database_sync_to_async(_watchable_now)(table)
                    if not invitees:  # the owner stopped letting them watch
                        await _close(consumer, CLOSE_NOT_YOUR_SEAT)
                        continue
                consumer.sent_version = version
                await _write(consumer, message)
                sent = text
        return sent

    async def send_presence(self, table) -> None:
        body = await self.presence_once(table)
        if body == self.presence_sent.get(table.pk):
            return
        self.presence_sent[table.pk] = body
        text = json.dumps({"type": "presence", "presence": body})
        for consumer in list(self.members.get(table.pk, ())):
            if consumer.open:
                await _write(consumer, text)

    async def presence_once(self, table) -> dict:
        """The table's presence, one read at a time per table: the hub's fan-out of a
        presence change and the spectators connecting meanwhile share it."""
        self._use_loop()
        pending = self.reading.get(table.pk)
        if pending is None:
            pending = asyncio.ensure_future(
                sync_to_async(presence.presence_json, thread_sensitive=False)(table=table)
            )
            self.reading[table.pk] = pending
            pending.add_done_callback(lambda done: self._read_done(table.pk, done))
        return await asyncio.shield(pending)

    def _read_done(self, table_id: int, future: asyncio.Future) -> None:
        if self.reading.get(table_id) is future:
            del self.reading[table_id]
        if not future.cancelled():
            future.exception()  # retrieved: the awaiting callers get it

    async def _built_once(self, table) -> tuple[int, bytes]:
        """One build per table at a time: callers told together wait for one frame."""
        pending = self.building.get(table.pk)
        if pending is not None:
            return await asyncio.shield(pending)
        future = asyncio.get_running_loop().create_future()
        self.building[table.pk] = future
        try:
            built = await database_sync_to_async(spectate.frame)(table)
            future.set_result(built)
            return built
        except BaseException as err:
            future.set_exception(err)
            future.exception()  # retrieved: waiters (if any) get it
            raise
        finally:
            self.building.pop(table.pk, None)


def _watchable_now(table) -> bool:
    return projection.project(table).watchable


async def _close(consumer: AccountSocket, code: int) -> None:
    try:
        await consumer.close(code=code)
    except Exception:  # a socket closing under us: its disconnect removes it
        pass


async def _write(consumer: SpectatorConsumer, text: str) -> None:
    try:
        await consumer.write(text)
    except Exception:  # a socket closing under us: its disconnect removes it
        pass


hub = SpectatorHub()


class LobbyConsumer(AccountSocket):
    """``/ws/me``: the account's lobby. On connect and whenever a round seats the account
    (or one of its league matches ends) it receives ``{"type": "league_tables",
    "version", "tables"}`` — the same body as ``GET /api/me/league-tables``."""

    in_hub = False

    async def follow(self) -> None:
        self.in_hub = True
        await lobby_hub.join(self)

    async def opened(self) -> None:
        await self.league_tables({})

    async def closed(self) -> None:
        if self.in_hub:
            self.in_hub = False
            await lobby_hub.leave(self)

    sent_tables_version: int | None = None  # the ``version`` of the last tables sent

    async def pinged(self) -> None:
        """A revoked token's (or logged-out session's) lobby closes 4401 at a ping; one
        whose tables have changed since it was sent them (the account's notice lost on
        its way) is sent them again."""
        signed_in, version = await database_sync_to_async(self._looked_at)()
        if not signed_in:
            await self.close(code=CLOSE_NOT_AUTHENTICATED)
        elif self.sent_tables_version is not None and version != self.sent_tables_version:
            log.info("account-%s: lobby caught up to %s", self.user.pk, version)
            await self.league_tables({})

    def _looked_at(self) -> tuple[bool, int | None]:
        if not still_signed_in(
            self.user, self.scope.get("token_key"), self.scope.get("session_key")
        ):
            return False, None
        return True, league_tables_version(self.user)

    async def league_tables(self, message):
        if not self.open:  # it sends its tables once open (``opened``)
            return
        body = await self._tables()
        self.sent_tables_version = body["version"]
        await self.send_json({"type": "league_tables", **body})

    @database_sync_to_async
    def _tables(self):
        return league_tables_body(self.user)


class LobbyHub(_Hub):
    """This process's lobby sockets, by account (``_Hub``): one channel of the
    process in each of their accounts' groups."""

    def key(self, consumer) -> int:
        return consumer.user.pk

    def group(self, user_id: int) -> str:
        return account_group(user_id)

    async def handle(self, user_id: int, message: dict) -> None:
        if message.get("type") == "league.tables":
            for consumer in list(self.members.get(user_id, ())):
                await consumer.league_tables(message)


lobby_hub = LobbyHub()
