"""The server's application as ``make bench-server`` runs it: each HTTP answer carries
``Server-Timing: app;dur=<ms>``, the time from Daphne handing the request to the
application until the answer's first byte, measured inside the server process.

That is the server-side latency: it includes the wait for a request thread (the queue
an overloaded server builds) and excludes the client's own time, which on a shared
2-core machine is as large as the server's. Never used outside the benchmark.
"""

from __future__ import annotations

import time

from server.asgi import application as _application


async def application(scope, receive, send):
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
