"""The Dékabès client SDK: REST (``DekabesClient``), pushes (``PushSubscription``) and
typed errors carrying the server's ``code``."""

from clients.sdk.client import DekabesClient, new_action_key
from clients.sdk.errors import (
    ApiError,
    ConnectionLost,
    DekabesError,
    IdempotencyKeyReused,
    NotAuthenticated,
    NotFound,
    NotYourSeat,
    Paused,
    PermissionDenied,
    RuleRejected,
    StaleVersion,
    ValidationFailed,
)
from clients.sdk.push import Push, PushSubscription, SocketUnavailable
from clients.sdk.types import Account, SeatInfo, SeatState, Table

__all__ = [
    "DekabesClient",
    "new_action_key",
    "PushSubscription",
    "Push",
    "SocketUnavailable",
    "Account",
    "SeatInfo",
    "SeatState",
    "Table",
    "DekabesError",
    "ApiError",
    "ConnectionLost",
    "RuleRejected",
    "StaleVersion",
    "Paused",
    "NotAuthenticated",
    "NotYourSeat",
    "PermissionDenied",
    "NotFound",
    "ValidationFailed",
    "IdempotencyKeyReused",
]
