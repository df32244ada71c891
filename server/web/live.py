"""The web pages' long-polls: ``GET …/live?after=N&wait=S`` answers ``{"version": n}``
once the version passed ``after`` or after ``wait`` seconds (at most ``LONG_POLL_MAX``).

Under Daphne the request parks on the event loop (``server.http_parking``; the paths are
in its ``LONG_POLL_PATH``) and holds no thread; the club's or the account's commit notice
(``server.notices.notify``) wakes it. Each account has its long-poll slots
(``DEKABES_MAX_LONG_POLLS``); visitors signed in to no account share
``DEKABES_MAX_ANONYMOUS_LONG_POLLS`` per process. Past a cap: ``429`` with
``Retry-After`` (site.js then waits before asking again).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import JsonResponse

from server import errors
from server.notices import longpoll

RETRY_AFTER = 30


def _args(request) -> tuple[float, int | None]:
    wait = float(request.GET.get("wait") or 0)
    raw = request.GET.get("after")
    after = int(raw) if raw not in (None, "") else None
    if wait < 0 or wait != wait:
        raise ValueError(wait)
    return min(wait, settings.LONG_POLL_MAX), after


def long_poll(request, user, group: str, version_now: Callable[[], int]):
    try:
        wait, after = _args(request)
    except ValueError:
        return JsonResponse(
            errors.body_of(errors.ValidationError, "wait is seconds and after a version"),
            status=errors.ValidationError.status,
        )
    if wait and after is not None:
        try:
            if longpoll.hold(request, user, longpoll.Wait(group, after, version_now), wait):
                return longpoll.parked()
        except errors.TooManyLongPolls as err:
            response = JsonResponse(err.body(), status=err.status)
            response["Retry-After"] = str(RETRY_AFTER)
            return response
    response = JsonResponse({"version": version_now()})
    response["Cache-Control"] = "no-store"
    return response
