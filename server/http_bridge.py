"""HTTP for Daphne: Django's request handling run whole in a pool thread.

Django's own ASGI handler hops between the event loop and a fresh thread several
times per request (request signals, each sync middleware, the view, closing the
response): on this 2-core machine that cost ~4.5 ms a request against ~0.5 ms for
the same request handled synchronously. Our views are synchronous (DRF), so this
bridge reads the request body on the loop, hands one WSGI call to a thread of a
fixed pool, and writes the response back: one hop each way. WebSockets still go
through Channels on the same loop (``server.asgi``).

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
  quick thread keeps running meanwhile, and the hashing thread runs at the lowest CPU
  priority (``lowest_cpu_priority``). At most ``DEKABES_HASH_QUEUE`` (default 32) such
  requests wait; past that the answer is ``503 server_busy`` with ``Retry-After``.

Against a2wsgi 1.10.10 (``a2wsgi.WSGIMiddleware`` in this bridge's place, one worker
thread like the quick pool; 2026-12-03, a 2-core machine shared with other sessions at
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

CPU per action is within 10 % (the run-to-run spread on this machine is larger than the
difference); 100 actions/s overloads the machine either way. a2wsgi alone does not do
what this module adds around the WSGI call (the body limit before reading, the hashing
pool at nice 19 with its 503 queue, parked long-polls): a replacement keeps those around
a2wsgi's call and drops only ``wsgi_environ`` and ``_handle``.

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


def lowest_cpu_priority() -> None:
    """Nice 19 for the calling thread (Linux: a thread id is a scheduling entity).

    Off the request thread is not enough: the kernel shares CPU between processes (or
    sessions) first, so a busy hashing thread would halve the request thread's share of
    this process's. At nice 19 a hash only gets the CPU the request thread leaves.
    Measured in docs/server.md ("Limits").
    """
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
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


def wsgi_environ(scope: dict, body: bytes) -> dict:
    """The WSGI environ (PEP 3333) of an ASGI HTTP scope."""
    server = scope.get("server") or ("localhost", 80)
    client = scope.get("client") or ("", 0)
    path = scope.get("path", "/")
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
        "PATH_INFO": path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] if server[1] is not None else 80),
        "REMOTE_ADDR": str(client[0]),
        "REMOTE_PORT": str(client[1]),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").upper().replace("-", "_")
        value = raw_value.decode("latin-1")
        if name == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
        elif name == "CONTENT_LENGTH":
            environ["CONTENT_LENGTH"] = value
        else:
            key = f"HTTP_{name}"
            environ[key] = f"{environ[key]},{value}" if key in environ else value
    return environ


class WsgiBridge:
    """An ASGI HTTP application around a WSGI one, one pool thread per request."""

    def __init__(
        self,
        wsgi_app,
        quick_threads: int = QUICK_THREADS,
        hash_threads: int = HASH_THREADS,
        hash_queue: int = HASH_QUEUE,
    ):
        self.wsgi_app = wsgi_app
        self.quick = ThreadPoolExecutor(max_workers=quick_threads, thread_name_prefix="http")
        self.hashing = ThreadPoolExecutor(
            max_workers=hash_threads, thread_name_prefix="hash", initializer=lowest_cpu_priority
        )
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
        limit = settings.DEKABES_MAX_BODY
        length = declared_length(scope)
        if length is not None and length > limit:
            return await self._answer(send, 413, too_large_body())
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > limit:
                return await self._answer(send, 413, too_large_body())
            if not message.get("more_body"):
                break
        environ = wsgi_environ(scope, bytes(body))
        if hashes_a_password(scope):
            status, headers, chunks = await self._hash(loop, send, environ)
            if status is None:
                return
        else:
            parking = longpoll.Parking() if is_long_poll(scope) else None
            if parking is not None:
                environ[longpoll.ENVIRON_KEY] = parking
            status, headers, chunks = await loop.run_in_executor(self.quick, self._handle, environ)
            if parking is not None and parking.wait is not None:
                answer = await self._long_poll(
                    loop, scope, bytes(body), receive, parking, parking.wait
                )
                if answer is None:
                    return  # the client left while it waited
                status, headers, chunks = answer
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"".join(chunks)})

    async def _long_poll(
        self, loop, scope, body: bytes, receive, parking: longpoll.Parking, wait: longpoll.Wait
    ):
        """Wait on the loop for the parked request's notice, then run it again to answer.
        None if the client disconnected meanwhile (its slot is given back either way)."""
        gone = asyncio.ensure_future(receive())  # only http.disconnect can come now
        try:
            await waits.wait(
                wait,
                parking.seconds,
                lambda read: loop.run_in_executor(self.quick, read),
                gone,
            )
            if gone.done():
                return None
            parking.resumed = True
            environ = wsgi_environ(scope, body)
            environ[longpoll.ENVIRON_KEY] = parking
            return await loop.run_in_executor(self.quick, self._handle, environ)
        finally:
            gone.cancel()
            parking.give_back()

    async def _hash(self, loop, send, environ):
        if self.hashing_now >= self.hash_queue:
            await self._answer(
                send,
                503,
                json_body("server_busy", "too many logins at once; try again in a moment"),
                [(b"retry-after", b"2")],
            )
            return None, None, None
        self.hashing_now += 1  # counted on the loop's thread only: no lock needed
        try:
            return await loop.run_in_executor(self.hashing, self._handle, environ)
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

    def _handle(self, environ: dict):
        started: dict = {}

        def start_response(status, response_headers, exc_info=None):
            started["status"] = int(status.split(" ", 1)[0])
            started["headers"] = [
                (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in response_headers
            ]
            return lambda data: chunks.append(data)

        chunks: list[bytes] = []
        result = self.wsgi_app(environ, start_response)
        try:
            for chunk in result:
                if chunk:
                    chunks.append(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()  # Django sends request_finished here (closes old DB connections)
        return started["status"], started["headers"], chunks


def limit_daphne_bodies() -> None:
    """Make Daphne refuse an oversized body as it arrives instead of queueing it whole.

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
