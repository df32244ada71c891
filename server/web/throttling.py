"""The API's rate limits (``server.accounts.throttles``) applied to the web forms that hash
a password, with the same cache keys: signing in on the page and through the API draw on
one count per address and per name."""

from __future__ import annotations

from dataclasses import dataclass

from server.accounts import throttles


@dataclass
class _Attempt:
    """What the DRF throttles read of a request: its address (META, headers) and its data."""

    META: dict
    headers: object
    data: dict
    user: object = None


def wait_seconds(request, throttle_classes, data: dict) -> int | None:
    """Seconds to wait if any throttle refuses this attempt, else None (and it is counted)."""
    attempt = _Attempt(request.META, request.headers, data)
    for cls in throttle_classes:
        throttle = cls()
        if not throttle.allow_request(attempt, None):
            return max(1, int(throttle.wait() or 1))
    return None


SIGN_IN = (throttles.LoginByAddress, throttles.LoginByName)
REGISTER = (throttles.RegisterByAddress,)
