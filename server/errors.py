"""Errors as data: every refusal has a stable machine-readable ``code``, an HTTP status
and a human message. Views raise ``ApiError``; DRF's own exceptions are mapped here so
clients only ever see ``{"code": ..., "message": ...}`` bodies.
"""

from __future__ import annotations

import json
import math

from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from server.tables.errors import StaleVersion

# Engine rejections that mean "the table is not where you think" answer 409; a move the
# rules refuse in the current position answers 400.
STATE_CONFLICT_CODES = {
    "wrong_phase",
    "not_your_turn",
    "already_accepted",
    "not_representative",
    "nothing_to_undo",
    "nothing_to_redo",
    "not_allowed_in_rated",
}


# The club league's codes (server/league and the rated-seat rule), by HTTP status. Each
# code has one status; docs/api.md lists them all (tests/league/test_error_codes.py).
LEAGUE_ERROR_CODES = {
    400: ("validation_error",),
    401: ("not_authenticated",),
    403: (
        "not_a_member",
        "organizer_only",
        "club_members_only",
        "not_your_bot",
        "permission_denied",
    ),
    404: ("not_found", "invite_invalid", "bad_page"),
    409: (
        "slug_taken",
        "already_member",
        "invite_used",
        "last_organizer",
        "wrong_format",
        "already_in_pair",
        "one_seat_per_player",
        "round_started",
        "round_in_progress",
        "not_enough_players",
        "not_enough_house_bots",
        "match_in_progress",
        "match_over",
        "match_annulled",
        "not_a_league_match",
    ),
    410: ("invite_expired",),
}


class ApiError(Exception):
    def __init__(
        self,
        code: str,
        message: str,
        status_code: int = 400,
        extra: dict | None = None,
        headers: dict | None = None,
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status_code = status_code
        self.extra = extra or {}
        self.headers = headers or {}

    def body(self) -> dict:
        return {"code": self.code, "message": self.message, **self.extra}

    def response(self) -> Response:
        return Response(self.body(), status=self.status_code, headers=self.headers)


def rule_error(code: str, message: str) -> ApiError:
    status_code = 409 if code in STATE_CONFLICT_CODES else 400
    return ApiError(code, message, status_code)


def not_found(what: str = "no such table") -> ApiError:
    return ApiError("not_found", what, status.HTTP_404_NOT_FOUND)


def validation_error(message: str) -> ApiError:
    return ApiError("validation_error", message, status.HTTP_400_BAD_REQUEST)


def _flatten(detail) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{k}: {_flatten(v)}" for k, v in detail.items())
    if isinstance(detail, list):
        return "; ".join(_flatten(v) for v in detail)
    return str(detail)


def stale_version(exc: StaleVersion) -> ApiError:
    return ApiError("stale_version", str(exc), 409, extra={"view": exc.view})


def exception_handler(exc, context):
    if isinstance(exc, ApiError):
        return exc.response()
    if isinstance(exc, StaleVersion):
        return stale_version(exc).response()
    if isinstance(exc, RequestDataTooBig):
        # Past the limit under a server that did not refuse it first (server.http_bridge).
        return Response(
            {"code": "body_too_large", "message": "the request body is too large"}, status=413
        )
    if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
        response = Response(
            {
                "code": "not_authenticated",
                "message": "log in: send 'Authorization: Token <your token>'",
            },
            status=status.HTTP_401_UNAUTHORIZED,
        )
        response["WWW-Authenticate"] = "Token"
        return response
    if isinstance(exc, exceptions.ParseError):
        return Response(
            {"code": "validation_error", "message": "the body is not valid JSON"},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, exceptions.ValidationError):
        return Response(
            {"code": "validation_error", "message": _flatten(exc.detail)},
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, exceptions.PermissionDenied):
        return Response(
            {"code": "permission_denied", "message": str(exc.detail)},
            status=status.HTTP_403_FORBIDDEN,
        )
    if isinstance(exc, (exceptions.NotFound,)):
        return Response({"code": "not_found", "message": "not found"}, status=404)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return Response({"code": "method_not_allowed", "message": str(exc.detail)}, status=405)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return Response(
            {"code": "validation_error", "message": "send application/json"}, status=415
        )
    if isinstance(exc, exceptions.NotAcceptable):
        return Response({"code": "not_acceptable", "message": str(exc.detail)}, status=406)
    if isinstance(exc, exceptions.Throttled):
        response = Response({"code": "throttled", "message": str(exc.detail)}, status=429)
        wait = getattr(exc, "wait", None)  # set by DRF's throttling; not in its stubs
        response["Retry-After"] = str(max(1, math.ceil(wait or 1)))
        return response
    fallback = drf_exception_handler(exc, context)
    if fallback is not None:
        fallback.data = {"code": "error", "message": _flatten(fallback.data)}
    return fallback


def json_body(code: str, message: str, **extra) -> bytes:
    """An error body as bytes, for answers made outside Django (``server.http_bridge``)."""
    return json.dumps({"code": code, "message": message, **extra}).encode()
