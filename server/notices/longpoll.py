"""Long-polls, the view's side: wait for a version to pass without holding a thread.

A view reads the wait with ``long_poll_args``; one that would wait describes what it
waits for (a ``Wait``) and calls ``hold``:

- under Daphne the bridge (``server.http_parking``) put a ``Parking`` in the request's
  ASGI scope; ``hold`` leaves the ``Wait`` there and the view returns ``parked()`` at once.
  The bridge then waits on the event loop for the commit notice
  (``server.notices.waits``), up to the deadline, and runs the request again — this
  time ``hold`` returns False at once and the view answers with the state it reads.
- anywhere else (Django's test client, another WSGI server) ``hold`` waits in the
  request's own thread, reading the version again every ``TICK`` seconds.

Either way the account's long-poll cap applies (``limits.take_long_poll_slot``: ``429``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpResponse

from server import limits
from server.errors import ValidationError

ENVIRON_KEY = "dekabes.long_poll"
TICK = 0.15  # seconds between looks when waiting in a thread (no bridge)


def long_poll_args(request) -> tuple[float, int | None]:
    """A long-poll's ``?wait=`` (seconds, at most ``LONG_POLL_MAX``) and ``?after=`` (a
    version; None when absent), read alike by every long-polled view."""
    try:
        wait = float(request.query_params.get("wait") or 0)
        after = request.query_params.get("after")
        after = int(after) if after not in (None, "") else None
    except ValueError:
        raise ValidationError("wait is seconds and after a version number") from None
    if wait < 0 or wait != wait:
        raise ValidationError("wait must be 0 or more seconds")
    return min(wait, settings.LONG_POLL_MAX), after


@dataclass(frozen=True)
class Wait:
    """What a long-poll waits for: ``version_now()`` past ``after``.

    ``group`` is the channel-layer group told when it may have moved (a table's group,
    an account's); ``version_now`` reads the version (a database read: call it on a
    request thread, never on the event loop).
    """

    group: str
    after: int
    version_now: Callable[[], int]


class Parking:
    """A long-poll's place between the bridge and the view, one per request."""

    def __init__(self) -> None:
        self.wait: Wait | None = None  # set by ``hold`` when the request must wait
        self.seconds = 0.0
        self.give_back: Callable[[], None] = lambda: None  # the account's slot
        self.resumed = False  # set by the bridge before it runs the request again


def hold(request, user, wait: Wait, seconds: float) -> bool:
    """True: the request is parked, return ``parked()`` now. False: answer now (the
    version has passed, the wait is over, or the bridge woke the request)."""
    parking = parking_of(request)
    if parking is not None and parking.resumed:
        return False
    if wait.version_now() > wait.after:
        return False
    give_back = limits.take_long_poll_slot(user)
    if parking is not None:
        parking.wait, parking.seconds, parking.give_back = wait, seconds, give_back
        return True
    try:
        deadline = time.monotonic() + seconds
        while wait.version_now() <= wait.after and time.monotonic() < deadline:
            time.sleep(TICK)
    finally:
        give_back()
    return False


def parking_of(request) -> Parking | None:
    """The request's ``Parking``: in the ASGI scope a2wsgi hands over as
    ``environ["asgi.scope"]`` (``server.http_parking``), or in the environ itself."""
    scope = request.META.get("asgi.scope") or {}
    return scope.get(ENVIRON_KEY) or request.META.get(ENVIRON_KEY)


def parked() -> HttpResponse:
    """A placeholder the bridge never sends: it answers the parked request later."""
    return HttpResponse(status=204)
