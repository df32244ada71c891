"""Presence: whether each seat's player is at the table now, or away since when.

A seat is **connected** while it holds a lease that has not run out:

- an open WebSocket of the seat's account subscribed to the seat (``/ws/tables/{code}``):
  leased for ``3 × WS_PING_SECONDS`` and renewed by every ping, dropped when it closes;
- a request for the seat (its view, a long-poll, an action): leased for ``ACTIVITY_SECONDS``
  (60 s) past the request, a long-poll for its wait on top of that.

Otherwise the seat is **away** since its last lease ran out (a socket closed, 60 s after
its last request), or since the table was created when no lease was ever taken.

Leases live in Redis when ``REDIS_URL`` is set (every server process sees them: the
channel layer is Redis then too, ``server.settings``) and in this process's memory
otherwise (the in-memory channel layer is single-process anyway). Per table, one sorted
set: member ``"<seat>"`` scores the latest request lease's end (only ever raised),
member ``"<seat>|<socket>"`` one socket's lease end.

Public API (used by the seat view, spectators, pause limits and substitutions):
``seat_presence(table=…)`` and ``away_since(table=…, seat=…)``. Nothing here tells
anything about a seat but this (no signals between players).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings

# a request keeps its seat present this long (DEKABES_PRESENCE_ACTIVITY_SECONDS, 60)
ACTIVITY_SECONDS = float(settings.PRESENCE_ACTIVITY_SECONDS)
KEEP_SECONDS = 2 * 24 * 3600  # a table's leases are forgotten after two idle days
SEATS = (1, 2, 3, 4)


@dataclass(frozen=True)
class Presence:
    connected: bool
    away_since: datetime | None  # None while connected

    def as_json(self) -> dict:
        return {
            "connected": self.connected,
            "away_since": None if self.away_since is None else self.away_since.isoformat(),
        }


def socket_lease_seconds() -> float:
    return 3 * float(settings.WS_PING_SECONDS)


# -- the stores ------------------------------------------------------------------------
class MemoryLeases:
    """One process's leases (the default, single-process server)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[int, dict[str, float]] = {}
        self.taken = False  # whether this process ever took a lease: it serves seats

    def raise_to(self, table_id: int, member: str, until: float) -> None:
        self.taken = True
        with self._lock:
            members = self._tables.setdefault(table_id, {})
            members[member] = max(members.get(member, 0.0), until)

    def put_many(self, leases: list[tuple[int, str, float]]) -> None:
        self.taken = True
        with self._lock:
            for table_id, member, until in leases:
                self._tables.setdefault(table_id, {})[member] = until

    def drop(self, table_id: int, member: str, seat_member: str, now: float) -> None:
        with self._lock:
            members = self._tables.setdefault(table_id, {})
            members.pop(member, None)
            members[seat_member] = max(members.get(seat_member, 0.0), now)

    def read(self, table_id: int) -> dict[str, float]:
        with self._lock:
            return dict(self._tables.get(table_id, {}))

    def clear(self) -> None:
        with self._lock:
            self._tables.clear()


class RedisLeases:
    """Leases shared by every server process (``REDIS_URL``)."""

    def __init__(self, url: str, prefix: str) -> None:
        import redis

        from server.redis_clients import client_options

        self._redis = redis.Redis.from_url(url, **client_options())
        self._prefix = prefix

    def _key(self, table_id: int) -> str:
        return f"{self._prefix}:presence:{table_id}"

    def raise_to(self, table_id: int, member: str, until: float) -> None:
        key = self._key(table_id)
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(key, {member: until}, gt=True)
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()

    def put_many(self, leases: list[tuple[int, str, float]]) -> None:
        by_key: dict[str, dict[str, float]] = {}
        for table_id, member, until in leases:
            by_key.setdefault(self._key(table_id), {})[member] = until
        pipe = self._redis.pipeline(transaction=False)
        for key, members in by_key.items():
            pipe.zadd(key, members)
            pipe.expire(key, KEEP_SECONDS)
        pipe.execute()

    def drop(self, table_id: int, member: str, seat_member: str, now: float) -> None:
        key = self._key(table_id)
        pipe = self._redis.pipeline(transaction=True)
        pipe.zrem(key, member)
        pipe.zadd(key, {seat_member: now}, gt=True)
        pipe.expire(key, KEEP_SECONDS)
        pipe.execute()

    def read(self, table_id: int) -> dict[str, float]:
        rows: Any = self._redis.zrange(self._key(table_id), 0, -1, withscores=True)
        return {(m.decode() if isinstance(m, bytes) else str(m)): float(s) for m, s in rows}

    def clear(self) -> None:
        for key in self._redis.scan_iter(f"{self._prefix}:presence:*"):
            self._redis.delete(key)


_store: MemoryLeases | RedisLeases | None = None
_store_lock = threading.Lock()


def store() -> MemoryLeases | RedisLeases:
    global _store
    with _store_lock:
        if _store is None:
            import os

            url = os.environ.get("REDIS_URL")
            if url:
                prefix = os.environ.get("DEKABES_CHANNEL_PREFIX", "dekabes")
                _store = RedisLeases(url, prefix)
            else:
                _store = MemoryLeases()
        return _store


def forget_all() -> None:
    """Tests: start with nobody present."""
    store().clear()


def seen_here() -> bool:
    """Whether this process sees the seats' presence: always with Redis, and without it
    only in the server process that takes the leases (one that served a seat). Another
    process (a management command) would find every seat away: it must not judge."""
    leases = store()
    return isinstance(leases, RedisLeases) or leases.taken


# -- taking leases ---------------------------------------------------------------------
def touch(*, table, seats, extra_seconds: float = 0.0, now: float | None = None) -> None:
    """A request for ``seats`` (a view, a long-poll of ``extra_seconds``, an action)."""
    now = time.time() if now is None else now
    until = now + ACTIVITY_SECONDS + max(0.0, extra_seconds)
    leases = store()
    for seat in seats:
        leases.raise_to(table.pk, str(seat), until)


def socket_opened(*, table_id: int, seats, socket: str, now: float | None = None) -> None:
    """A socket subscribed to ``seats`` opened (or pinged: the lease is renewed)."""
    sockets_pinged([(table_id, seats, socket)], now)


def sockets_pinged(sockets, now: float | None = None) -> None:
    """Sockets pinged together, each ``(table_id, seats, socket)``: their leases renewed
    at once (one Redis round trip for all: ``server.sockets.pings``)."""
    until = (time.time() if now is None else now) + socket_lease_seconds()
    leases = [
        (table_id, f"{seat}|{socket}", until)
        for table_id, seats, socket in sockets
        for seat in seats
    ]
    if leases:
        store().put_many(leases)


def socket_closed(*, table_id: int, seats, socket: str, now: float | None = None) -> None:
    now = time.time() if now is None else now
    leases = store()
    for seat in seats:
        leases.drop(table_id, f"{seat}|{socket}", str(seat), now)


# -- reading -------------------------------------------------------------------------------
def seat_presence(*, table, now: float | None = None) -> dict[int, Presence]:
    """Each seat (1-4): connected, or away since when."""
    now = time.time() if now is None else now
    newest = _newest_leases(table)
    out = {}
    for seat in SEATS:
        lease_end = newest.get(seat)
        if lease_end is not None and lease_end > now:
            out[seat] = Presence(True, None)
        else:
            out[seat] = Presence(False, _away_since(table, lease_end))
    return out


def away_since(*, table, seat: int, now: float | None = None) -> datetime | None:
    """When ``seat`` went away (None: connected now)."""
    return seat_presence(table=table, now=now)[seat].away_since


def presence_json(*, table, now: float | None = None) -> dict[str, dict]:
    """The ``presence`` field of seat and spectator answers: ``seat_presence`` as JSON,
    written directly (every seat answer reads it: no ``Presence`` objects on the way)."""
    now = time.time() if now is None else now
    newest = _newest_leases(table)
    out: dict[str, dict] = {}
    for seat in SEATS:
        lease_end = newest.get(seat)
        if lease_end is not None and lease_end > now:
            out[str(seat)] = {"connected": True, "away_since": None}
        else:
            since = _away_since(table, lease_end)
            out[str(seat)] = {
                "connected": False,
                "away_since": None if since is None else since.isoformat(),
            }
    return out


def _newest_leases(table) -> dict[int, float]:
    """Per seat, the end of its latest lease (request or socket)."""
    newest: dict[int, float] = {}
    for member, until in store().read(table.pk).items():
        seat = int(member.split("|", 1)[0])
        newest[seat] = max(newest.get(seat, 0.0), until)
    return newest


def _away_since(table, lease_end: float | None) -> datetime | None:
    """When a seat whose latest lease ended at ``lease_end`` went away (None: never
    leased, so since the table was created)."""
    if lease_end is not None:
        return datetime.fromtimestamp(lease_end, UTC)
    return _created(table)


def _created(table) -> datetime | None:
    created = getattr(table, "created_at", None)
    if created is None:
        return None
    return created if created.tzinfo is not None else created.replace(tzinfo=UTC)
