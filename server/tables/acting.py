"""A seat's action, from its raw body to its result: the one path both transports take.

``POST /api/tables/{code}/seats/{n}/actions`` (``views.ActionView``) and an ``action``
message on the seat's WebSocket (``server.sockets.actions``) call ``act`` with the body
as they received it and the idempotency key they were given (the ``Idempotency-Key``
header or the body's ``command_id``: the same key either way). What one accepts, refuses
or answers again, the other does exactly alike: the same checks in the same order, the
same refusals, the same receipt, the same commit and the same pushes.
"""

from __future__ import annotations

import re

from server.accounts.models import User
from server.errors import NotFound, ValidationError
from server.notices import presence
from server.tables import selectors, services
from server.tables.action_body import parse_action_body
from server.tables.models import Seat, Table

TABLE_CODE = re.compile(r"\A[A-Za-z0-9]{1,12}\Z")
SEAT_NUMBER = re.compile(r"\A[1-4]\Z")  # ASCII only: "١" or "１" is not seat 1
MAX_KEY_LENGTH = 80


def get_table_and_seats(code: str) -> tuple[Table, list[Seat]]:
    """The table and its seats in one statement (the seat view and action paths); a
    full table's are kept in this process (``selectors.table_and_seats``)."""
    found = selectors.table_and_seats(code.upper()) if TABLE_CODE.match(code) else None
    if found is None:
        raise NotFound(f"no table {code!r}")
    return found


def seat_number(raw: str) -> int:
    if not SEAT_NUMBER.match(raw):
        raise NotFound("seats are numbered 1-4")
    return int(raw)


def check_key(key: str | None) -> None:
    if key is not None and not (1 <= len(key) <= MAX_KEY_LENGTH):
        raise ValidationError(f"an Idempotency-Key is 1-{MAX_KEY_LENGTH} characters")


def act(
    *,
    user: User,
    code: str,
    seat: str,
    data: object,
    key: str | None,
    touch: bool = True,
) -> services.ActionResult:
    """Act for seat ``seat`` of table ``code`` with the body ``data`` (parsed JSON, not
    checked yet). ``key``: the transport's own idempotency key (REST's header), which
    wins over the body's ``command_id``. ``touch``: the request marks the seat present
    (a socket's seat is present by its socket's lease already)."""
    (table, seats), number = get_table_and_seats(code), seat_number(seat)
    action = parse_action_body(data)
    given = action.pop("command_id", None)
    key = key or given
    check_key(key)
    if touch:
        presence.touch(table=table, seats=(number,))
    return services.do_action(
        user=user, table=table, seat=number, action=action, key=key, seats=seats
    )
