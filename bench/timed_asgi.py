"""The server's application as ``make bench-server`` runs it: each HTTP answer carries
``Server-Timing: app;dur=<ms>``, the time from Daphne handing the request to the
application until the answer's first byte, measured inside the server process.

That is the server-side latency: it includes the wait for a request thread (the queue
an overloaded server builds) and excludes the client's own time, which on a shared
2-core machine is as large as the server's. Never used outside the benchmark.

With ``DEKABES_BENCH_SPECTATOR_TIMES=1`` (``bench/spectators.py`` sets it) it also times
the spectators' frames server-side: the moment each commit's notice starts
(``commits.on_table_commit``, first of the builders, in the committing thread) and the
moment Daphne has handed each spectator socket's ``view`` frame of that version to the
socket's transport (after ``websocket.send`` returns: autobahn has framed it and Twisted
holds it for the socket's next write, on the same loop turn). ``GET
/__bench/spectator-times`` answers the delays in ms since the last such GET and starts
afresh. The production application (``server.asgi``) has none of it.
"""

from __future__ import annotations

import json
import os
import re
import time

from server.asgi import application as _application
from server.tables import commits

SPECTATOR_TIMES = os.environ.get("DEKABES_BENCH_SPECTATOR_TIMES") == "1"
TIMES_PATH = "/__bench/spectator-times"
SPECTATE_PATH = re.compile(r"\A/ws/tables/([^/]+)/spectate\Z")
# a spectator frame is orjson's {"type": "view", "version": N, ...} (spectate.frame)
FRAME_VERSION = re.compile(r'\{"type":"view","version":(\d+)')

_committed: dict[tuple[str, int], float] = {}  # (table code, version) -> perf_counter
_delays_ms: list[float] = []


def _mark_commit(table, state) -> None:
    _committed[(table.code, state.version)] = time.perf_counter()


if SPECTATOR_TIMES:
    commits.on_table_commit(_mark_commit, first=True)


async def _spectator(scope, receive, send, code: str):
    async def timed_send(message):
        await send(message)
        if message["type"] != "websocket.send":
            return
        at = time.perf_counter()
        found = FRAME_VERSION.match(message.get("text") or "")
        if found is not None:
            committed = _committed.get((code, int(found.group(1))))
            if committed is not None:
                _delays_ms.append((at - committed) * 1000)

    return await _application(scope, receive, timed_send)


async def _times(send) -> None:
    body = json.dumps({"delivery_ms": _delays_ms[:]}).encode()
    _delays_ms.clear()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def application(scope, receive, send):
    if SPECTATOR_TIMES:
        if scope["type"] == "websocket":
            found = SPECTATE_PATH.match(scope.get("path", ""))
            if found is not None:
                return await _spectator(scope, receive, send, found.group(1).upper())
        elif scope["type"] == "http" and scope.get("path") == TIMES_PATH:
            return await _times(send)
    if scope["type"] != "http":
        return await _application(scope, receive, send)
    started = time.perf_counter()

    async def timed_send(message):
        if message["type"] == "http.response.start":
            elapsed = (time.perf_counter() - started) * 1000
            headers = [*message.get("headers", []), (b"server-timing", b"app;dur=%.3f" % elapsed)]
            message = {**message, "headers": headers}
        await send(message)

    return await _application(scope, receive, timed_send)
