"""Actions sent on a seat's WebSocket: ``{"type": "action", "command_id", "action",
"expected_version", ...}``, answered on the same socket by ``{"type": "answer",
"command_id", "status", "body"}`` — ``status`` and ``body`` exactly what
``POST /api/tables/{code}/seats/{n}/actions`` answers for the same body with the same
``Idempotency-Key`` (docs/api.md, "Actions over the seat's socket").

Both transports call ``server.tables.acting.act``: the same checks, refusals, receipt
(``command_id`` is the idempotency key, whichever path a retry takes), durable commit
before the answer, and pushes. What the socket saves is the request around it: no HTTP
parsing, no middleware, no token lookup per message. The socket was authenticated when it
opened; ``SeatActions`` looks its token up again only when the last look is older than
``WS_TOKEN_CHECK_SECONDS`` (and the consumer does at every ping): a revoked token acts no
more once that bound has passed, and its socket is closed (4401). A seat handed over is
refused at once: the action's own check reads the seats again when they changed hands
(``selectors.fresh_seats``), as REST's does.
"""

from __future__ import annotations

import logging
import time
from importlib import import_module

import orjson
from django.conf import settings
from django.contrib.auth import SESSION_KEY

from server.accounts.models import User
from server.accounts.services import token_owner, token_owner_ids
from server.errors import (
    REDIS_UNAVAILABLE,
    ApiError,
    NotAuthenticated,
    NotYourSeat,
    ServerError,
    ValidationError,
    from_framework,
)
from server.tables import acting

log = logging.getLogger(__name__)

# The message's own fields; the rest is the action's body (``action`` is its ``type``).
MESSAGE_FIELDS = frozenset({"type", "action", "seat"})


class SeatActions:
    """What one seat socket needs to act: its account, the token it opened with, its
    table and the seats it follows. ``answer`` runs on a request thread."""

    def __init__(
        self,
        *,
        user: User,
        token_key: str | None,
        code: str,
        seats: list[int],
        session_key: str | None = None,
    ):
        self.user = user
        self.token_key = token_key
        self.session_key = session_key  # the browser table's: signed in by its session
        self.code = code
        self.seats = list(seats)
        self.checked_at = time.monotonic()
        self.revoked = False  # set once a look finds the token gone: the socket closes

    def answer(self, message: dict) -> tuple[bytes, int | None]:
        """The answer frame to one action message (parsed JSON), and the version it
        applied (None: refused, or a retry answered again)."""
        command_id = message.get("command_id")
        try:
            self.check_token(within=settings.WS_TOKEN_CHECK_SECONDS)  # REST's comes first too
            body = self._body(message)
            result = acting.act(
                user=self.user,
                code=self.code,
                seat=str(self._seat(message.get("seat"))),
                data=body,
                key=None,  # the body's command_id is the key, as REST's Idempotency-Key
                touch=False,  # the socket's lease keeps the seat present
            )
        except ApiError as refusal:
            return answer_frame(command_id, refusal.status, orjson.dumps(refusal.body())), None
        except REDIS_UNAVAILABLE as error:  # as REST answers it (server.errors)
            busy = from_framework(error) or ServerError()
            return answer_frame(command_id, busy.status, orjson.dumps(busy.body())), None
        except Exception:  # as REST answers a fault: 500, logged (never sent: no detail)
            log.exception("socket action on %s failed", self.code)
            fault = orjson.dumps(ServerError().body())
            return answer_frame(command_id, ServerError.status, fault), None
        text = result.text if result.text is not None else orjson.dumps(result.body())
        return answer_frame(command_id, result.status, text), (
            None if result.replayed else result.version
        )

    def _body(self, message: dict) -> dict:
        # command_id stays in the body: checked there as REST checks the body's, and the
        # key (without one, as a POST without a key: nothing makes a retry safe)
        if "action" not in message:
            raise ValidationError("action: this field is required")
        body = {k: v for k, v in message.items() if k not in MESSAGE_FIELDS}
        body["type"] = message["action"]
        return body

    def _seat(self, asked: object) -> int:
        if asked is None:
            if len(self.seats) == 1:
                return self.seats[0]
            raise ValidationError(
                "seat: this socket follows seats "
                + ", ".join(map(str, self.seats))
                + ": say which one acts"
            )
        if isinstance(asked, bool) or not isinstance(asked, int) or asked not in self.seats:
            raise NotYourSeat(
                f"seat {asked!r} is not one this socket follows ({', '.join(map(str, self.seats))})"
            )
        return asked

    def check_token(self, within: float) -> None:
        """Raise ``NotAuthenticated`` if the token is gone (revoked, rotated, the account
        closed), looking it up only when the last look is older than ``within`` seconds."""
        now = time.monotonic()
        if self.due_a_look(now, within):
            self.looked(self._still_valid(), now)
        if self.revoked:
            raise NotAuthenticated()

    def due_a_look(self, now: float, within: float) -> bool:
        """Whether its token is to be looked up again (not found gone already)."""
        return not self.revoked and now - self.checked_at >= within

    def looked(self, valid: bool, now: float) -> None:
        """What a look found: still signed in, or gone for good (the socket closes)."""
        if valid:
            self.checked_at = now
        else:
            self.revoked = True

    def _still_valid(self) -> bool:
        return still_signed_in(self.user, self.token_key, self.session_key)


def look_at_tokens(sockets: list[SeatActions], within: float) -> list[SeatActions]:
    """``check_token`` for many sockets at once (a ping round): the tokens whose last look
    is older than ``within`` looked up in one query (a session's as ``still_signed_in``).
    Returns those signed out, found now or before."""
    now = time.monotonic()
    due = [s for s in sockets if s.due_a_look(now, within)]
    owners = token_owner_ids({s.token_key for s in due if s.token_key is not None})
    for socket in due:
        if socket.token_key is not None:
            socket.looked(owners.get(socket.token_key) == socket.user.pk, now)
        else:
            socket.looked(socket._still_valid(), now)
    return [s for s in sockets if s.revoked]


def still_signed_in(user: User, token_key: str | None, session_key: str | None) -> bool:
    """Whether a socket opened as ``user`` by ``token_key`` (or by the site's session
    ``session_key``) is still signed in: the token not revoked, the session not logged
    out, the account not closed. One read (two for a session)."""
    if token_key is not None:
        found = token_owner(token_key)
        return found is not None and found[0].pk == user.pk
    if session_key is not None:  # still signed in by that session (not logged out)
        session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
        if str(session.get(SESSION_KEY)) != str(user.pk):
            return False
    return User.objects.filter(pk=user.pk, is_active=True).exists()


def answer_frame(command_id: object, status: int, body: bytes) -> bytes:
    """``{"type":"answer","command_id":…,"status":…,"body":…}``, the body's JSON as
    already encoded (the seat answer's text is built once: ``server.tables.answers``)."""
    shown = command_id if isinstance(command_id, str) else None
    return (
        b'{"type":"answer","command_id":'
        + orjson.dumps(shown)
        + b',"status":'
        + str(status).encode()
        + b',"body":'
        + body
        + b"}"
    )
