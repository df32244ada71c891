"""HTTP for Daphne: Django's request handling run whole in a pool thread (a2wsgi).

Django's own ASGI handler hops between the event loop and a fresh thread several
times per request (request signals, each sync middleware, the view, closing the
response): on this 2-core machine that cost ~4.5 ms a request against ~0.5 ms for
the same request handled synchronously. Our views are synchronous (DRF), so the
request body is read on the loop and one WSGI call runs on a thread of a fixed pool
through a2wsgi (``a2wsgi.WSGIMiddleware``, a maintained WSGI-in-ASGI adapter). What
this module adds around it is ours: the body limit, the hashing pool and parked
long-polls. WebSockets still go through Channels on the same loop (``server.asgi``).

Two pools: every request runs on the *quick* pool (``DEKABES_HTTP_THREADS``, default
1 thread: under the GIL, threads contending for the interpreter cost more than they
give — measured 120 actions/s with one thread, 93 with 128), except the endpoints that
hash a password (below).

A long-poll (``GET`` of a seat or of the lobby's ``/api/me/league-tables`` with
``?wait=`` > 0; ``wait`` on any other path is not a long-poll) holds no thread while it
waits: the request runs on the quick pool, and when the view finds nothing new yet it
*parks* (``server.realtime.longpoll``) and returns at once; the bridge then waits on the
event loop for the table's (or account's) commit notice or the deadline
(``server.realtime.waits``), and only then runs the request again on the quick pool to
build the answer. The per-account cap still applies (``server.limits``).

Password hashing:
- the endpoints that hash a password (login, registration, password change: ~0.3 s of
  PBKDF2 each), which run on the *hashing* pool (``DEKABES_HASH_THREADS``, default 1), so
  a login flood never stands in front of a game action. PBKDF2 releases the GIL, so the
  quick thread keeps running meanwhile, and the hashing thread runs at a low CPU
  priority (nice 10, ``low_cpu_priority``). At most ``DEKABES_HASH_QUEUE`` (default 32) such
  requests wait; past that the answer is ``503 server_busy`` with ``Retry-After``.

Measured against this module's former hand-written WSGI call (a2wsgi 1.10.10 with one
worker thread like the quick pool; 2026-12-03, a 2-core machine shared with other sessions at
load 8-10, bridge and a2wsgi alternated in the same sitting, ``python -m server.bench``):

=============================================  ===============  ===============
run                                            bridge           a2wsgi
=============================================  ===============  ===============
defaults (600 actions, 1,200 GETs, 100/s)
  CPU per action / per GET (ms)                10.37 / 2.79     11.23 / 2.46
  open loop: achieved/s, p50 / p99 (ms)        28 / 5,734 / 14,759   64 / 2,285 / 5,741
  again: CPU per action / per GET              12.95 / 3.04     12.28 / 3.70
  again: open loop                             34 / 6,726 / 13,455   27 / 9,890 / 14,846
``--rate 20 --seconds 10 --actions 300 --gets 600``
  CPU per action / per GET (ms)                17.50 / 4.08     16.53 / 5.32
  open loop: achieved/s, p50 / p99 (ms)        12.5 / 3,924 / 6,275  20 / 109 / 1,917
  again: CPU per action / per GET              17.90 / 3.95     13.73 / 4.53
  again: open loop                             19.7 / 603 / 1,736    19.9 / 62 / 1,080
=============================================  ===============  ===============

("bridge": this module's own WSGI call, ``wsgi_environ`` and ``_handle``, before a2wsgi
took their place.) CPU per action is within 10 % (the run-to-run spread on this machine
is larger than the difference); 100 actions/s overloads the machine either way.

Bodies: past ``settings.DEKABES_MAX_BODY`` (64 KB) a request is answered ``413
body_too_large`` (JSON) without reading the rest, whether it announced its length or
is chunked. Daphne itself queues a whole body before the application sees it, so
``limit_daphne_bodies()`` (called by ``server.asgi``) makes Daphne refuse it as it
arrives; the check here covers any other ASGI server.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs

from a2wsgi import WSGIMiddleware
from django.conf import settings

from server.errors import json_body
from server.realtime import longpoll, notify
from server.realtime.waits import waits

QUICK_THREADS = int(os.environ.get("DEKABES_HTTP_THREADS", "1"))
HASH_THREADS = int(os.environ.get("DEKABES_HASH_THREADS", "1"))
HASH_QUEUE = int(os.environ.get("DEKABES_HASH_QUEUE", "32"))

LONG_POLL_PATH = re.compile(r"\A(/api/tables/[^/]+/seats/[^/]+|/api/me/league-tables)/?\Z")
PASSWORD_PATHS = frozenset({"/api/auth/token", "/api/auth/register", "/api/auth/password"})
JSON_HEADERS = [(b"content-type", b"application/json")]


def is_long_poll(scope: dict) -> bool:
    if scope.get("method") != "GET" or not LONG_POLL_PATH.match(scope.get("path", "")):
        return False
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("wait", [])
    try:
        return any(float(v) > 0 for v in values)
    except ValueError:
        return False  # the view answers 400 validation_error, quickly


def hashes_a_password(scope: dict) -> bool:
    return scope.get("method") == "POST" and scope.get("path", "").rstrip("/") in PASSWORD_PATHS


HASH_NICE = int(os.environ.get("DEKABES_HASH_NICE", "10"))


def low_cpu_priority() -> None:
    """Nice ``DEKABES_HASH_NICE`` (default 10) for the calling thread (Linux: a thread id
    is a scheduling entity).

    Off the request thread is not enough: the kernel shares CPU between processes (or
    sessions) first, so a busy hashing thread would halve the request thread's share of
    this process's. At nice 10 a hash gets about a tenth of a core against a busy request
    thread. Not 19: against any other busy process on the machine a nice-19 thread gets
    ~1.5 % of a core, and a 0.35 s hash took over 10 s (logins timed out under
    ``stress --cpu 2``). Measured in docs/server.md ("Limits").
    """
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICE)
        except OSError:
            pass


def declared_length(scope: dict) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def too_large_body() -> bytes:
    return json_body(
        "body_too_large", f"a request body is at most {settings.DEKABES_MAX_BODY} bytes"
    )


class WsgiBridge:
    """Daphne's HTTP application: Django (WSGI) on a2wsgi's thread pools, with the body
    limit, the hashing pool and parked long-polls around it."""

    def __init__(
        self,
        wsgi_app,
        quick_threads: int = QUICK_THREADS,
        hash_threads: int = HASH_THREADS,
        hash_queue: int = HASH_QUEUE,
    ):
        wsgi_app = _reading_the_body_read(wsgi_app)
        self.quick = _a2wsgi(wsgi_app, quick_threads, "http")
        self.hashing = _a2wsgi(wsgi_app, hash_threads, "hash", initializer=low_cpu_priority)
        self.hash_queue = hash_queue
        self.hashing_now = 0  # requests given to the hashing pool, not yet answered

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":  # nothing to set up or tear down
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        loop = asyncio.get_running_loop()
        notify.use_event_loop(loop)  # pushes from pool threads go through this loop
        waits.use(loop)  # and long-polls wait on it
        scope = {"http_version": "1.1", **scope}
        body = await self._read_body(scope, receive, send)
        if body is None:
            return
        scope[BODY_KEY] = body  # for the WSGI call (a2wsgi: environ["asgi.scope"])
        if hashes_a_password(scope):
            return await self._hash(scope, body, receive, send)
        if not is_long_poll(scope):
            return await self.quick(scope, _replay(body, receive), send)
        parking = longpoll.Parking()
        scope = {**scope, longpoll.ENVIRON_KEY: parking}  # a2wsgi: environ["asgi.scope"]
        held = _Held()
        await self.quick(scope, _replay(body, receive), held.send)
        if parking.wait is None:  # answered at once: nothing to wait for
            return await held.flush(send)
        try:
            gone = asyncio.ensure_future(receive())  # only http.disconnect can come now
            try:
                await waits.wait(
                    parking.wait,
                    parking.seconds,
                    lambda read: loop.run_in_executor(self.quick.executor, read),
                    gone,
                )
                left = gone.done()
            finally:
                gone.cancel()
            if left:
                return  # the client left while it waited
            parking.resumed = True
            await self.quick(scope, _replay(body, receive), send)
        finally:
            parking.give_back()

    async def _read_body(self, scope, receive, send) -> bytes | None:
        """The whole body, or None once answered ``413`` (or the client left)."""
        limit = settings.DEKABES_MAX_BODY
        length = declared_length(scope)
        if length is not None and length > limit:
            await self._answer(send, 413, too_large_body())
            return None
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            if len(body) > limit:
                await self._answer(send, 413, too_large_body())
                return None
            if not message.get("more_body"):
                return bytes(body)

    async def _hash(self, scope, body: bytes, receive, send):
        if self.hashing_now >= self.hash_queue:
            return await self._answer(
                send,
                503,
                json_body("server_busy", "too many logins at once; try again in a moment"),
                [(b"retry-after", b"2")],
            )
        self.hashing_now += 1  # counted on the loop's thread only: no lock needed
        try:
            await self.hashing(scope, _replay(body, receive), send)
        finally:
            self.hashing_now -= 1

    @staticmethod
    async def _answer(send, status: int, body: bytes, headers: list | None = None) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": JSON_HEADERS + (headers or []),
            }
        )
        await send({"type": "http.response.body", "body": body})


def _a2wsgi(wsgi_app, threads: int, name: str, initializer=None):
    """a2wsgi's adapter on a pool of our own (named threads, an initializer)."""
    adapter = WSGIMiddleware(wsgi_app, workers=threads)
    adapter.executor.shutdown(wait=False)
    adapter.executor = ThreadPoolExecutor(
        max_workers=threads, thread_name_prefix=name, initializer=initializer
    )
    return adapter


# The scope key of the body the bridge already read (``_read_body``).
BODY_KEY = "dekabes.body"


def _reading_the_body_read(wsgi_app):
    """The WSGI app reading the body the bridge already read, from memory: a2wsgi would
    fetch it from the loop again (a round trip between threads, ~0.1 ms of CPU for
    every POST, measured with ``make bench-server``)."""

    def app(environ, start_response):
        body = environ.get("asgi.scope", {}).get(BODY_KEY)
        if body is not None:
            environ["wsgi.input"] = io.BytesIO(body)
        return wsgi_app(environ, start_response)

    return app


def _replay(body: bytes, receive):
    """The body already read, then the client's own messages (a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed():
        return pending.pop() if pending else await receive()

    return replayed


class _Held:
    """A parked request's first answer is a placeholder: held here, sent only when the
    request was in fact answered at once."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    async def send(self, message: dict) -> None:
        self.messages.append(message)

    async def flush(self, send) -> None:
        for message in self.messages:
            await send(message)


def limit_daphne_bodies() -> None:
    """Make Daphne refuse an oversized body as it arrives instead of queueing it whole
    (and skip Twisted's parse of form bodies, which nothing reads).

    Daphne's ``WebRequest`` buffers the body (Twisted spools it to a file) and then puts
    every chunk on the application's queue at once: a 400 MB POST costs 400 MB of memory
    before any application code runs. This subclass answers ``413`` as soon as the
    announced length, or the bytes received so far, pass the limit, and closes the
    connection. Daphne builds each request from ``http_protocol.WebRequest``, looked up
    when a connection opens, so replacing that name is enough.
    """
    from daphne import http_protocol

    if getattr(http_protocol.WebRequest, "refuses_large_bodies", False):
        return

    class LimitedWebRequest(http_protocol.WebRequest):
        refuses_large_bodies = True

        def __init__(self, *args, **kwargs):
            # Daphne hands the raw body to the application and never reads Twisted's
            # own parse of a form POST (``request.args``); that parse of the
            # Content-Type header alone (through the email package) cost ~0.2 ms of
            # every POST. ``parsePOSTFormSubmission`` is Twisted's switch for it.
            kwargs.setdefault("parsePOSTFormSubmission", False)
            super().__init__(*args, **kwargs)

        def gotLength(self, length):
            self.body_seen = 0
            self.body_refused = False
            if length is not None and length > settings.DEKABES_MAX_BODY:
                super().gotLength(0)
                self._refuse()
            else:
                super().gotLength(length)

        def handleContentChunk(self, data):
            if self.body_refused:
                return
            self.body_seen += len(data)
            if self.body_seen > settings.DEKABES_MAX_BODY:
                self._refuse()
                return
            super().handleContentChunk(data)

        def _refuse(self):
            self.body_refused = True
            body = too_large_body()
            self.channel.transport.write(
                b"HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
            )
            self.channel.transport.loseConnection()

        def process(self):
            if getattr(self, "body_refused", False):
                return None  # answered already; the application never sees it
            return super().process()

        def connectionLost(self, reason):
            if getattr(self, "body_refused", False):
                # Never handed to Daphne's server loop: nothing of it to clean up there.
                return http_protocol.http.Request.connectionLost(self, reason)
            return super().connectionLost(reason)

        def basic_error(self, status, status_text, body):
            # Daphne's own refusals (an invalid header name or value, a path that is not
            # ASCII, its processing errors) are an HTML page upstream: JSON here.
            code = DAPHNE_ERROR_CODES.get(status, "error")
            self.handle_reply(
                {"type": "http.response.start", "status": status, "headers": JSON_HEADERS}
            )
            self.handle_reply(
                {"type": "http.response.body", "body": json_body(code, body.lower().rstrip("."))}
            )

    http_protocol.WebRequest = LimitedWebRequest
    _json_bad_requests()


DAPHNE_ERROR_CODES = {400: "bad_request", 500: "server_error", 503: "server_busy"}


def _json_bad_requests() -> None:
    """Twisted answers a request line or header it cannot parse (before Daphne sees the
    request) with a bare ``400`` and no body: give it a JSON one, as every 4xx has.

    The method replaced is Twisted's own one place for that answer
    (``HTTPChannel._respondToBadRequestAndDisconnect``, as of Twisted 26.10).
    """
    from twisted.web import http

    if getattr(http.HTTPChannel, "answers_bad_requests_in_json", False):
        return
    # setattr: replacing a method of a class we do not own, on purpose (see above)

    def respond_to_bad_request_and_disconnect(channel):
        body = json_body("bad_request", "the request line or its headers cannot be parsed")
        channel.transport.write(
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
        )
        channel.loseConnection()

    setattr(  # noqa: B010 (assigning the method itself would not type-check)
        http.HTTPChannel, "_respondToBadRequestAndDisconnect", respond_to_bad_request_and_disconnect
    )
    setattr(http.HTTPChannel, "answers_bad_requests_in_json", True)  # noqa: B010
