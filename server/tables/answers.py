"""Seat answers built once per (table, version, seat, account) in this process.

A seat's answer (``selectors.seat_response``: its view, the version, what its holder may
do, the table, presence) is asked for several times at one version: the action's own
answer, the pushes to the table's sockets (``server.sockets.pushes``), the seat view the
next player reads. It is a function of the table's state at that version, of the seats'
holders, of the account asking and of presence. Here it is built and JSON-encoded once,
and handed out again while nothing of that has changed: an entry is used only for the
same version, the same seats (``seats_signature``) and the same presence, which is
read again on every use (a seat may come or go without a new version).

Only committed states are kept: the answer an action builds inside its transaction is
kept by its commit hook (``keep``), never before. Each entry answers one account for
one seat: nothing here widens what a seat may see. The text is orjson's encoding of the
body, the same bytes the API's renderer writes (``encode``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import orjson
from drf_orjson_renderer.renderers import ORJSONRenderer

from server.accounts.models import User
from server.notices import presence
from server.tables import projection, selectors
from server.tables.models import Seat, Table
from server.tables.table_state import TableState

# Tables whose newest answers are kept (least recently used leave first). A table's are
# ~90-115 KB (four seats' texts and the parts they share), and they serve only the
# moments after its last move (the pushes, the next seat's read): 256 tables, ~25-30 MB
# at most, where 1,024 held ~100 MB in a process that had served that many
# (docs/server.md, "Memory").
TABLES_KEPT = 256

Who = tuple[int, int | None]  # (seat number, account id)


class SeatAnswer:
    """An answer as JSON text only: a kept body (a view is hundreds of small objects)
    would be walked by every garbage collection until its table moves. The parts its
    version's answers share (``shared``) are kept once per table, with the newest
    version's answers (``_Kept``), and dropped when the table moves.

    Read-only by convention (nothing assigns to an answer once built): a plain class
    with slots, not a frozen dataclass, whose ``__init__`` (one ``object.__setattr__``
    per field) and ``replace`` cost more than the rest of keeping an answer."""

    __slots__ = ("version", "seats", "presence", "text", "generation", "shared")

    def __init__(
        self,
        version: int,
        seats: tuple,  # selectors.seats_signature() of the seats it was built with
        presence: bytes,  # the presence it was built with, as JSON
        text: bytes,  # the answer as JSON
        generation: int,  # the projection's when it was built (``_follow_projection``)
        # The parts every seat's answer at this version shares (``selectors.shared_parts``),
        # built with it: kept with the version's answers until the table moves, so that
        # the next seat to read (an action is the acting seat's answer, then the next
        # seat's read) builds only its own view.
        shared: selectors.SharedParts | None = None,
    ) -> None:
        self.version = version
        self.seats = seats
        self.presence = presence
        self.text = text
        self.generation = generation
        self.shared = shared

    def without_shared(self) -> SeatAnswer:
        return SeatAnswer(self.version, self.seats, self.presence, self.text, self.generation)

    def __repr__(self) -> str:
        return (
            f"SeatAnswer(version={self.version}, seats={self.seats!r}, text={self.text[:40]!r}...)"
        )

    def body(self) -> dict:
        return orjson.loads(self.text)


class _Kept:
    """A table's newest version: its answers, and the parts they share."""

    __slots__ = ("version", "answers", "shared")

    def __init__(self, version: int) -> None:
        self.version = version
        self.answers: dict[Who, SeatAnswer] = {}
        self.shared: tuple[tuple, selectors.SharedParts] | None = None  # (seats, parts)


_kept: OrderedDict[int, _Kept] = OrderedDict()
_lock = threading.Lock()
_generation = [projection.generation()]  # the projection's, when these were kept


def seat_answer(
    table: Table,
    number: int,
    state: TableState,
    user: User | None,
    seats: list[Seat],
    keep: bool = True,
    presence_now: dict | None = None,
) -> SeatAnswer:
    """Seat ``number``'s answer to ``user`` at ``state`` (kept, or built now).

    ``keep``: ``state`` is committed (read from the log, or after its commit) and the
    answer may serve later asks; an action's own answer inside its transaction is built
    with ``keep=False`` and kept by its commit hook. ``presence_now``: the table's
    presence as just read (``presence.presence_json``) by a caller building several
    seats' answers at once; None: read here."""
    generation = projection.generation()
    here = presence.presence_json(table=table) if presence_now is None else presence_now
    here_text = orjson.dumps(here)
    signature = selectors.seats_signature(table, seats)
    who = (number, None if user is None else user.pk)
    found = shared = None
    with _lock:
        _follow_projection()
        entry = _kept.get(table.pk)
        if entry is not None and entry.version == state.version:
            found = entry.answers.get(who)
            if entry.shared is not None and entry.shared[0] == signature:
                shared = entry.shared[1]
    if found is not None and found.seats == signature and found.presence == here_text:
        return found
    if shared is None:
        shared = selectors.shared_parts(table, state, seats)
    body = selectors.seat_response(
        table, number, state, user=user, seats=seats, presence_now=here, shared=shared
    )
    answer = SeatAnswer(state.version, signature, here_text, encode(body), generation, shared)
    if keep:
        _keep(table.pk, who, answer)
    return answer


def encode(body: dict) -> bytes:
    """``body`` as the API's renderer (``ORJSONRenderer``) writes it. Its options (keys
    that are not strings, numpy arrays) only matter for bodies that plain orjson refuses,
    and cost as much again on every call: they are used only then."""
    try:
        return orjson.dumps(body)
    except TypeError:
        return orjson.dumps(body, default=ORJSONRenderer.default, option=ORJSONRenderer.options)


def keep(table: Table, number: int, user: User | None, answer: SeatAnswer) -> None:
    """Keep an answer built before its state was committed (call once it is)."""
    _keep(table.pk, (number, None if user is None else user.pk), answer)


def _keep(table_pk: int, who: Who, answer: SeatAnswer) -> None:
    with _lock:
        _follow_projection()
        if answer.generation != _generation[0]:
            return  # built from a fold forgotten since
        entry = _kept.get(table_pk)
        if entry is None or entry.version < answer.version:
            entry = _kept[table_pk] = _Kept(answer.version)
        elif entry.version > answer.version:
            return  # an older version's answer: the newer ones stay
        if answer.shared is not None:
            if entry.shared is None or entry.shared[0] != answer.seats:
                entry.shared = (answer.seats, answer.shared)
            answer = answer.without_shared()  # kept once per version, not per answer
        entry.answers[who] = answer
        _kept.move_to_end(table_pk)
        while len(_kept) > TABLES_KEPT:
            _kept.popitem(last=False)


def _follow_projection() -> None:
    """The projection forgot its folds (tests rewriting rows, a lost race): so do we."""
    now = projection.generation()
    if _generation[0] != now:
        _kept.clear()
        _generation[0] = now


def forget(table: Table | None = None) -> None:
    """Drop the kept answers (of one table, or all: tests that rewrite rows)."""
    with _lock:
        if table is None:
            _kept.clear()
        else:
            _kept.pop(table.pk, None)
