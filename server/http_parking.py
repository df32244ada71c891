"""Long-polls parked on the event loop: a waiting long-poll holds no thread.

A long-poll (``GET`` of a seat or of the lobby's ``/api/me/league-tables`` with
``?wait=`` > 0; ``wait`` on any other path is not a long-poll) runs on the bridge's
quick pool (``server.http_bridge``) like any request, and when the view finds nothing
new yet it *parks* (``server.notices.longpoll``) and returns at once; ``serve_long_poll``
then waits on the event loop for the table's (or account's) commit notice or the
deadline (``server.notices.waits``), and only then runs the request again on the quick
pool to build the answer. The per-account cap still applies (``server.limits``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from urllib.parse import parse_qs

from server.notices import longpoll
from server.notices.waits import waits

LONG_POLL_PATH = re.compile(
    r"\A(/api/tables/[^/]+/seats/[^/]+|/api/tables/[^/]+/spectate|/api/me/league-tables"
    r"|/api/tables/open|/api/challenges"
    r"|/clubs/[^/]+/live|/me/live)/?\Z"
)

# Runs the request once (on the quick pool) with this scope, answering through ``send``.
RunRequest = Callable[[dict, Callable[[dict], Awaitable[None]]], Awaitable[None]]


def is_long_poll(scope: dict) -> bool:
    if scope.get("method") != "GET" or not LONG_POLL_PATH.match(scope.get("path", "")):
        return False
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("wait", [])
    try:
        return any(float(v) > 0 for v in values)
    except ValueError:
        return False  # the view answers 400 validation_error, quickly


async def serve_long_poll(run: RunRequest, scope: dict, receive, send, executor: Executor) -> None:
    """Run a long-poll: at once if the view answers, else again after the notice or the
    deadline. ``executor`` is the quick pool, where the version is read again."""
    loop = asyncio.get_running_loop()
    parking = longpoll.Parking()
    scope = {**scope, longpoll.ENVIRON_KEY: parking}  # a2wsgi: environ["asgi.scope"]
    held = _Held()
    await run(scope, held.send)
    if parking.wait is None:  # answered at once: nothing to wait for
        return await held.flush(send)
    try:
        gone = asyncio.ensure_future(receive())  # only http.disconnect can come now
        try:
            await waits.wait(
                parking.wait,
                parking.seconds,
                lambda read: loop.run_in_executor(executor, read),
                gone,
            )
            left = gone.done()
        finally:
            gone.cancel()
        if left:
            return  # the client left while it waited
        parking.resumed = True
        await run(scope, send)
    finally:
        parking.give_back()


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
