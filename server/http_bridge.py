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
give — measured 120 actions/s with one thread, 93 with 128), except a long-poll
(``?wait=`` > 0), which holds a thread of the *waiting* pool while it waits
(``DEKABES_WAIT_THREADS``, default 128; more long-polls queue for a free thread).
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
from concurrent.futures import ThreadPoolExecutor

from server.realtime import notify

from urllib.parse import parse_qs

QUICK_THREADS = int(os.environ.get("DEKABES_HTTP_THREADS", "1"))
WAIT_THREADS = int(os.environ.get("DEKABES_WAIT_THREADS", "128"))


def is_long_poll(scope: dict) -> bool:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("wait", [])
    try:
        return any(float(v) > 0 for v in values)
    except ValueError:
        return False        # the view answers 400 validation_error, quickly


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

    def __init__(self, wsgi_app, quick_threads: int = QUICK_THREADS,
                 wait_threads: int = WAIT_THREADS):
        self.wsgi_app = wsgi_app
        self.quick = ThreadPoolExecutor(max_workers=quick_threads, thread_name_prefix="http")
        self.waiting = ThreadPoolExecutor(max_workers=wait_threads, thread_name_prefix="poll")

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":          # nothing to set up or tear down
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        loop = asyncio.get_running_loop()
        notify.use_event_loop(loop)          # pushes from pool threads go through this loop
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        status, headers, chunks = await loop.run_in_executor(
            self.waiting if is_long_poll(scope) else self.quick, self._handle,
            wsgi_environ(scope, bytes(body)))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"".join(chunks)})

    def _handle(self, environ: dict):
        started: dict = {}

        def start_response(status, response_headers, exc_info=None):
            started["status"] = int(status.split(" ", 1)[0])
            started["headers"] = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                                  for k, v in response_headers]
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
                close()       # Django sends request_finished here (closes old DB connections)
        return started["status"], started["headers"], chunks
