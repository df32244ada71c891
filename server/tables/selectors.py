"""Reads: what a seat may see of a table. Nothing here writes.

Every answer about a seat is built from the engine's seat view (which holds only what
that seat may know) plus public table facts. What the log and the record may show of a
deal is decided in one place, ``deal_is_public``: before the match is over, only deals
whose hand has ended (RECORDS.md); every other deal shows a seat its own hand only, and
the record stops before it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import NamedTuple

from django.db import connection

from engine import dump_record, seat_view, spectator_view, steps
from engine.bots import decide
from engine.events import deal_hands
from engine.phases import BETWEEN_HANDS, MATCH_OVER
from engine.table_commands import seats_to_act
from server.accounts.models import User
from server.notices import presence
from server.tables import projection, store, table_state
from server.tables.models import Event, Seat, Table
from server.tables.signals import table_hidden_rules, table_read_rules
from server.tables.table_state import SERVER_EVENT_TYPES, TableState


def load_seats(table: Table) -> list[Seat]:
    return list(Seat.objects.filter(table=table).select_related("player").order_by("number"))


# Full tables, by code: once all four seats are taken nothing in those rows can change
# (a table's columns are fixed at creation, a taken seat is never given up, accounts are
# never renamed or deleted), so every process may keep them. ~0.15 ms of SQL and model
# building saved on each of an action's two requests. Shared read-only objects.
FULL_TABLES_KEPT = 4096
_full_tables: OrderedDict[str, tuple[Table, list[Seat]]] = OrderedDict()
_full_tables_lock = threading.Lock()
# Counts the kept tables forgotten (``forget_full_table``): seats read before a forget
# may predate the handover it is for, and are not kept after it.
_forgets = [0]


def table_and_seats(code: str) -> tuple[Table, list[Seat]] | None:
    """The table with invite ``code`` (owner loaded) and its seats (players loaded)."""
    with _full_tables_lock:
        found = _full_tables.get(code)
        if found is not None:
            _full_tables.move_to_end(code)
            return found
        forgets = _forgets[0]
    found = _read_table_and_seats(code)
    if found is not None and all(seat.player_id is not None for seat in found[1]):
        _freeze_seats(*found)
        with _full_tables_lock:
            if _forgets[0] != forgets:
                # a table was forgotten while these were read (a handover met by another
                # thread, which keeps the seats it read after it): kept, they were served
                # as the new epoch's, to the old holder too, until the next handover
                return found
            _full_tables[code] = found
            while len(_full_tables) > FULL_TABLES_KEPT:
                _full_tables.popitem(last=False)
    return found


class FrozenSeats(NamedTuple):
    """What the answers read of a kept table's seats, worked out once: kept tables and
    seats are shared read-only objects, and every seat answer wrote these out again."""

    seats: list[Seat]  # the list it was built from (answers check it is the same one)
    signature: tuple  # seats_signature()
    json: dict[str, dict]  # table_json's "seats" (shared: read-only)


def _freeze_seats(table: Table, seats: list[Seat]) -> None:
    table.frozen_seats = FrozenSeats(seats, _signature(seats), _seats_json(seats))  # type: ignore[attr-defined]  # set on kept tables only


def frozen_seats(table: Table, seats: list[Seat]) -> FrozenSeats | None:
    """The kept table's worked-out seats, if ``seats`` are its kept seats."""
    frozen = table.__dict__.get("frozen_seats")
    return frozen if frozen is not None and frozen.seats is seats else None


def seats_signature(table: Table, seats: list[Seat]) -> tuple:
    """What an answer reads of the seats: each one's kind and holder."""
    frozen = frozen_seats(table, seats)
    return frozen.signature if frozen is not None else _signature(seats)


def _signature(seats: list[Seat]) -> tuple:
    return tuple(
        (s.number, s.kind, s.player_id)
        + ((s.player.username, s.player.is_bot) if s.player is not None else (None, False))
        for s in seats
    )


def _seats_json(seats: list[Seat]) -> dict[str, dict]:
    return {
        str(s.number): {
            "kind": s.kind,
            "player": s.player.username if s.player is not None else None,
            "is_bot": s.player is not None and s.player.is_bot,
        }
        for s in seats
    }


def forget_full_tables() -> None:
    """Tests that rewrite rows under a running process start from the database again."""
    with _full_tables_lock:
        _full_tables.clear()
        _seat_epochs.clear()
        _forgets[0] += 1


projection.also_forget(forget_full_tables)


# A seat handover (server.tables.services.do_hand_over) changes a full table's seats: the
# writing process forgets its entry at once; every process compares the epoch its entry
# was read at with the table's fold (``fresh_seats``) and reads the seats again once.
_seat_epochs: dict[str, int] = {}


def forget_full_table(code: str) -> None:
    with _full_tables_lock:
        _full_tables.pop(code, None)
        _seat_epochs.pop(code, None)
        _forgets[0] += 1


def fresh_seats(table: Table, seats: list[Seat], state: TableState) -> list[Seat]:
    """``seats`` (maybe kept by this process), or the table's seats read again when a
    seat changed hands since they were kept."""
    epoch = state.seat_epoch
    if not epoch:
        return seats
    with _full_tables_lock:
        known = _seat_epochs.get(table.code, 0)
    if known >= epoch:
        return seats
    forget_full_table(table.code)
    found = table_and_seats(table.code)
    with _full_tables_lock:
        if len(_seat_epochs) >= FULL_TABLES_KEPT and table.code not in _seat_epochs:
            # one entry per table ever handed over: bounded as the tables kept are (a
            # table whose epoch is dropped has its seats read once more, nothing else)
            _seat_epochs.clear()
        _seat_epochs[table.code] = max(epoch, _seat_epochs.get(table.code, 0))
    return found[1] if found is not None else seats


def _read_table_and_seats(code: str) -> tuple[Table, list[Seat]] | None:
    # one statement (``store.table_and_seat_rows``): building the equivalent ORM query
    # costs more than running it
    rows = store.table_and_seat_rows(code)
    if not rows:
        return None
    pk, code, owner_id, rated, seed, created_at, deal_seed, owner_name = rows[0][:8]
    # Positional arguments in field order: Django's fast way to build an instance.
    table = Table(pk, code, owner_id, bool(rated), seed, _datetime(created_at), deal_seed)  # type: ignore[misc]  # positional: the stubs know only keywords
    # Partial accounts (id, name, bot flag): enough to answer, never saved.
    people = {owner_id: User(id=owner_id, username=owner_name)}
    seats = []
    for *_, seat_id, number, kind, player_id, player_name, is_bot in rows:
        seat = Seat(seat_id, pk, number, kind, player_id)
        seat.table = table
        if player_id is not None:
            if player_id not in people:
                people[player_id] = User(id=player_id, username=player_name)
            seat.player = people[player_id]
            seat.player.is_bot = bool(is_bot)
        seats.append(seat)
    table.owner = people[owner_id]
    return table, seats


def _datetime(value):
    # SQLite hands back a naive datetime (or text); Django's own converter makes it the
    # aware datetime the ORM gives. PostgreSQL's driver already answers an aware one.
    if connection.vendor == "sqlite":
        return connection.ops.convert_datetimefield_value(value, None, connection)  # type: ignore[attr-defined]  # SQLite's ops only
    return value


def table_by_code(code: str) -> Table | None:
    return Table.objects.select_related("owner").filter(code=code).first()


def table_answer(table: Table) -> dict:
    """The table as ``GET /api/tables/{code}`` answers it, at its current version."""
    return table_json(table, projection.project(table))


# The table and seat answers are written here as dicts, not rendered through their
# serializers (api_schema.TableSerializer, SeatResponseSerializer, which state their
# shape): they are the hot path's answers. Measured on a shared 2-core host: the seat
# answer costs 141 µs as a dict and 1,944 µs more rendered by SeatResponseSerializer (the
# table alone: 31 µs, +653 µs). The suite checks every such answer against the served
# schema instead (tests/conformance.py).
def table_json(table: Table, state: TableState, seats: list[Seat] | None = None) -> dict:
    seats = load_seats(table) if seats is None else seats
    return {
        "code": table.code,
        "owner": table.owner.username,
        "rated": table.rated,
        "version": state.version,
        "paused": state.paused,
        "paused_by": sorted(state.paused_by),
        "phase": state.match.phase,
        "annulled": state.annulled is not None,
        "forfeited": state.forfeited is not None,
        "handovers": [_handover_json(h) for h in state.handovers],
        "seats": frozen.json if (frozen := frozen_seats(table, seats)) else _seats_json(seats),
        "created_at": table.created_at.isoformat(),
    }


def _handover_json(h: dict) -> dict:
    return {
        "seq": h["seq"],
        "seat": h["seat"],
        "from": h.get("from"),
        "to": h.get("to"),
        "kind": h["kind"],
        "reason": h.get("reason", ""),
        "note": h.get("note", ""),
    }


def current_version(table: Table) -> int:
    """The seq of the table's newest event, read from the log (not the cache)."""
    return store.newest_seqs([table.pk]).get(table.pk, 0)


def current_versions(table_ids: set[int]) -> dict[int, int]:
    """``current_version`` of each table, in one query. Hand-written (``store``): a ping
    round runs it every second, and the ORM's compilation of it cost ~1 ms."""
    return store.newest_seqs(sorted(table_ids))


def hint(state: TableState, number: int) -> dict | None:
    """The strong bot's choice from seat ``number``'s view only (None: nothing to play)."""
    view = state.match.seat_view(number)
    return decide(view, "strong") if view["legal"] else None


class SharedParts(NamedTuple):
    """The parts of a seat answer that are the same for every seat at one version: the
    view's public entries (``engine.spectator_view``), who the match waits for, the table
    and the open takeback request. Built once per version (``answers``), read-only."""

    public: dict
    seats_to_act: list[int]
    table: dict
    takeback: dict | None


def shared_parts(table: Table, state: TableState, seats: list[Seat]) -> SharedParts:
    public = spectator_view(state.match)
    # who the match waits for (the engine's reading of the public view), so that thin
    # clients need no rule of their own to find the seat to show
    waiting = [] if state.stopped else seats_to_act(public)
    return SharedParts(
        public, waiting, table_json(table, state, seats), takeback_json(seats, state)
    )


def seat_response(
    table: Table,
    number: int,
    state: TableState,
    user: User | None = None,
    seats: list[Seat] | None = None,
    presence_now: dict | None = None,
    shared: SharedParts | None = None,
) -> dict:
    """What seat ``number`` gets back: its view, the version, what ``user`` may do now
    (``presence_now``: the table's presence when the caller has just read it; ``shared``:
    ``shared_parts`` of this state and these seats, when the caller has them)."""
    seats = load_seats(table) if seats is None else seats
    shared = shared_parts(table, state, seats) if shared is None else shared
    seat = next(s for s in seats if s.number == number)
    view = seat_view(state.match, number, shared.public)
    if state.stopped:
        view = {**view, "legal": []}  # the match is stopped: nothing is to be played
    return {
        "version": state.version,
        "seat": number,
        "paused": state.paused,
        "allowed": table_state.allowed_actions(
            table, seat, state, view["legal"], None if user is None else user.pk, seats
        ),
        "seats_to_act": shared.seats_to_act,
        "table": shared.table,
        "view": view,
        "presence": presence.presence_json(table=table) if presence_now is None else presence_now,
        "takeback": shared.takeback,
        "last_tile_ends": last_tile_ends(view.get("last_hand")),
    }


def last_tile_ends(last_hand: dict | None) -> dict | None:
    """The last hand's last tile and the two open ends it met, read off the engine's
    finished line (``a``/``b`` left to right), when the hand ended by a domino laid on a
    line: what "why it was (not) a Dékabès" shows next to the engine's verdict, so that
    a thin client (the browser table) works out nothing itself. None otherwise."""
    if not last_hand or last_hand.get("result") != "domino":
        return None
    line = last_hand.get("line") or []
    plays = [t for t in last_hand.get("turns") or [] if t.get("type") == "play"]
    if len(line) < 2 or not plays or plays[-1].get("end") not in ("left", "right"):
        return None
    if plays[-1]["end"] == "left":
        ends = [line[0]["b"], line[-1]["b"]]
    else:
        ends = [line[0]["a"], line[-1]["a"]]
    return {"tile": plays[-1]["tile"], "ends": ends}


def takeback_json(seats: list[Seat], state: TableState) -> dict | None:
    """The open takeback request as every seat sees it, or None."""
    if state.takeback is None:
        return None
    return {
        "seat": state.takeback["seat"],
        "command": state.takeback["command"],
        "waiting_for": table_state.takeback_waiting_for(seats, state),
    }


def tables_for(user: User) -> list[Table]:
    from django.db.models import Q

    return list(
        Table.objects.filter(Q(seats__player=user) | Q(owner=user))
        .distinct()
        .select_related("owner")
        .order_by("-created_at")
    )


def seats_held(user: User, table: Table) -> list[int]:
    return list(
        Seat.objects.filter(table=table, player=user)
        .order_by("number")
        .values_list("number", flat=True)
    )


def may_read_table(user: User | None, table: Table) -> bool:
    """The table's answer (seats, phase): its players, its owner unless the table is hidden
    from them (``table_hidden``), and anyone every rule of ``signals.table_read_rules``
    lets read it (a members club's table: its members)."""
    held = user is not None and user.is_authenticated and bool(seats_held(user, table))
    if held:
        return True
    if table_hidden(user, table):
        return False
    if user is not None and user.is_authenticated and table.owner_id == user.pk:
        return True
    return all(rule(user, table) for rule in table_read_rules)


def may_read_record(user: User | None, table: Table) -> bool:
    """The table's players and its owner read its record (and its replay once over); not
    the owner of a hidden table (``table_hidden``)."""
    if user is None or not user.is_authenticated:
        return False
    if seats_held(user, table):
        return True
    return table.owner_id == user.pk and not table_hidden(user, table)


def table_hidden(user: User | None, table: Table) -> bool:
    """Whether ``table`` must answer ``user`` as an unknown code does: a rule of
    ``signals.table_hidden_rules`` hides it (a duplicate round's table while the round is
    played, from everyone holding none of its seats)."""
    return any(rule(user, table) for rule in table_hidden_rules)


def deal_is_public(state: TableState, deal: dict) -> bool:
    """Whether every seat (and the record) may see all four hands of a logged ``deal``.

    Once the match is over, every deal. Before, only a deal whose hand has ended (all
    four hands revealed, RULES §5): the deal in play, a deal voided by a redeal claim,
    one taken back by undo or dropped by a new match can come back, so it stays hidden
    like a future deal (RECORDS.md), however many later hands end.
    """
    return state.match.phase == MATCH_OVER or deal_hands(deal) in state.revealed


def events_for_seat(table: Table, number: int, after: int = 0, limit: int = 500) -> list[dict]:
    """The log as seat ``number`` may see it: in a deal that is not public, the other
    seats' hands are null (the seat's own is always shown)."""
    state = projection.project(table)
    rows = (
        Event.objects.filter(table=table, seq__gt=after)
        .order_by("seq")
        .values("seq", "type", "payload", "seat", "actor_kind", "created_at")[:limit]
    )
    out = []
    for row in rows:
        event = row["payload"]
        if row["type"] == "deal" and not deal_is_public(state, event):
            event = {
                **event,
                "hands": {k: (v if k == str(number) else None) for k, v in event["hands"].items()},
            }
        out.append(
            {
                "seq": row["seq"],
                "type": row["type"],
                "seat": row["seat"],
                "by": row["actor_kind"],
                "at": row["created_at"].isoformat(),
                "event": event,
            }
        )
    return out


def record_text(table: Table) -> str:
    """The engine record: complete once the match is over; before, the public prefix."""
    state = projection.project(table)
    events = list(
        Event.objects.filter(table=table).order_by("seq").values_list("payload", flat=True)
    )
    engine_events = [e for e in events if e.get("type") not in SERVER_EVENT_TYPES]
    if state.match.phase != MATCH_OVER:
        engine_events = engine_events[: _public_prefix(engine_events, state)]
    return dump_record(engine_events)


def _public_prefix(events: list[dict], state: TableState) -> int:
    """Length of the longest prefix that ends right after a hand's end (or right after
    ``match_started``) and holds no deal that is not public: a record that replays,
    hides nothing, and only ever grows (a deal hidden now may be revealed later)."""
    best = 1 if events else 0
    for done in steps(events):
        if done.event["type"] == "deal" and not deal_is_public(state, done.event):
            break
        if done.hand_results and done.phase in BETWEEN_HANDS:
            best = done.index + 1
    return best
