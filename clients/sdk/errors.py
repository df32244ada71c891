"""Typed errors for the Dékabès API.

Every error the server sends is JSON ``{"code": ..., "message": ...}``; the SDK raises
the subclass registered for that ``code`` (``ApiError`` itself for codes it does not
know), so callers can ``except StaleVersion`` instead of comparing strings.
"""

from __future__ import annotations

from typing import Any

# The engine's rejection codes (contract). Kept here as data so the SDK does not need
# the engine installed: a third-party client may only have the SDK.
RULE_REJECTION_CODES = frozenset(
    {
        "bad_event",
        "bad_deal",
        "wrong_phase",
        "not_your_turn",
        "tile_not_in_hand",
        "tile_does_not_fit",
        "end_required",
        "must_play",
        "must_open_double_six",
        "not_entitled",
        "already_accepted",
        "not_representative",
        "opener_not_on_team",
        "nothing_to_undo",
        "nothing_to_redo",
        "not_allowed_in_rated",
    }
)


class DekabesError(Exception):
    """Base class of everything this SDK raises on purpose."""


class ApiError(DekabesError):
    """The server answered with an error body.

    ``code`` is the server's machine-readable code, ``status`` the HTTP status, and
    ``view`` the current seat view response when the server sent one (stale_version).
    """

    def __init__(
        self,
        code: str,
        message: str = "",
        status: int | None = None,
        view: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
    ):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.status = status
        self.view = view
        self.body = body or {}
        self.retry_after: float | None = None  # seconds, from a ``Retry-After`` header

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r})"


class RuleRejected(ApiError):
    """The engine refused the action (one of the record format's rejection codes)."""


class StaleVersion(ApiError):
    """``expected_version`` was behind the table: refetch (``view`` holds the fresh one)."""


class Paused(ApiError):
    """The table is paused; computer seats wait for ``resume``."""


class NotAuthenticated(ApiError):
    """Missing or wrong token."""


class NotYourSeat(ApiError):
    """The account does not hold that seat."""


class PermissionDenied(ApiError):
    """The account may not do that (e.g. undo on a table it does not own)."""


class NotFound(ApiError):
    """No such table, seat or resource."""


class ValidationFailed(ApiError):
    """The request body was malformed (server code ``validation_error``)."""


class IdempotencyKeyReused(ApiError):
    """The same Idempotency-Key was sent with a different action body."""


class ConnectionLost(DekabesError):
    """The server could not be reached even after the SDK's retries.

    Retrying an action after this is safe: the SDK resends it with the same
    Idempotency-Key, so the server applies it at most once.
    """


_BY_CODE: dict[str, type[ApiError]] = {
    "stale_version": StaleVersion,
    "paused": Paused,
    "not_authenticated": NotAuthenticated,
    "not_your_seat": NotYourSeat,
    "permission_denied": PermissionDenied,
    "not_found": NotFound,
    "validation_error": ValidationFailed,
    "idempotency_key_reused": IdempotencyKeyReused,
}


def error_class_for(code: str) -> type[ApiError]:
    if code in RULE_REJECTION_CODES:
        return RuleRejected
    return _BY_CODE.get(code, ApiError)


def error_from_response(status: int, body: object, fallback_text: str = "") -> ApiError:
    """Build the typed error for one failed HTTP response."""
    if not isinstance(body, dict):
        body = {}
    code = body.get("code")
    if not isinstance(code, str) or not code:
        code = _code_for_status(status)
    message = body.get("message") if isinstance(body.get("message"), str) else fallback_text[:200]
    view = body.get("view") if isinstance(body.get("view"), dict) else None
    return error_class_for(code)(code, message or "", status=status, view=view, body=body)


def _code_for_status(status: int) -> str:
    # A body without a code (a proxy page, a crash): keep the class useful anyway.
    return {
        401: "not_authenticated",
        403: "permission_denied",
        404: "not_found",
        400: "validation_error",
    }.get(status, f"http_{status}")
