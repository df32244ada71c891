"""HTTP for Daphne: Django's request handling run whole in a pool thread (a2wsgi).

Django's own ASGI handler hops between the event loop and a fresh thread several
times per request (request signals, each sync middleware, the view, closing the
response): on this 2-core machine that cost ~4.5 ms a request against ~0.5 ms for
the same request handled synchronously. Our views are synchronous (DRF), so the
request body is read on the loop and one WSGI call runs on a thread of a fixed pool
through a2wsgi (``a2wsgi.WSGIMiddleware``, a maintained WSGI-in-ASGI adapter; measured
against our former hand-written call in docs/server.md, "HTTP inside Daphne"). What
this module adds around it is ours: the thread pools, here; the body limit
(``server.http_refusals``); parked long-polls (``server.http_parking``). WebSockets
still go through Channels on the same loop (``server.asgi``).

Two pools: every request runs on the *quick* pool (``DEKABES_HTTP_THREADS``, default
1 thread: under the GIL, threads contending for the interpreter cost more than they
give — measured 120 actions/s with one thread, 93 with 128), except the endpoints that
hash a password (below).

Password hashing:
- the endpoints that hash a password (login, registration, password change: ~0.3 s of
  PBKDF2 each), which run on the *hashing* pool (``DEKABES_HASH_THREADS``, default 1), so
  a login flood never stands in front of a game action. PBKDF2 releases the GIL, so the
  quick thread keeps running meanwhile, and the hashing thread runs at a low CPU
  priority (nice 10, ``low_cpu_priority``). At most ``DEKABES_HASH_QUEUE`` (default 32) such
  requests wait; past that the answer is ``503 server_busy`` with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from a2wsgi import WSGIMiddleware

from server.errors import json_body
from server.http_parking import is_long_poll, serve_long_poll
from server.http_refusals import answer, read_body
from server.notices import notify
from server.notices.waits import waits

QUICK_THREADS = int(os.environ.get("DEKABES_HTTP_THREADS", "1"))
HASH_THREADS = int(os.environ.get("DEKABES_HASH_THREADS", "1"))
HASH_QUEUE = int(os.environ.get("DEKABES_HASH_QUEUE", "32"))

PASSWORD_PATHS = frozenset(
    {"/api/auth/token", "/api/auth/register", "/api/auth/password", "/api/me/close", "/me/close"}
)


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
        body = await read_body(scope, receive, send)
        if body is None:
            return
        scope[BODY_KEY] = body  # for the WSGI call (a2wsgi: environ["asgi.scope"])
        if hashes_a_password(scope):
            return await self._hash(scope, body, receive, send)
        if not is_long_poll(scope):
            return await self.quick(scope, _replay(body, receive), send)

        async def run_once(parked_scope, answer_to):
            await self.quick(parked_scope, _replay(body, receive), answer_to)

        await serve_long_poll(run_once, scope, receive, send, self.quick.executor)

    async def _hash(self, scope, body: bytes, receive, send):
        if self.hashing_now >= self.hash_queue:
            return await answer(
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


def _a2wsgi(wsgi_app, threads: int, name: str, initializer=None):
    """a2wsgi's adapter on a pool of our own (named threads, an initializer)."""
    adapter = WSGIMiddleware(wsgi_app, workers=threads)
    adapter.executor.shutdown(wait=False)
    adapter.executor = ThreadPoolExecutor(
        max_workers=threads, thread_name_prefix=name, initializer=initializer
    )
    return adapter


# The scope key of the body the bridge already read (``http_refusals.read_body``).
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
