"""Writes to tables: create, join, act. ``check_*`` validates and raises a refusal of
``server.errors`` (e.g. ``StaleVersion``, ``SeatTaken``); ``do_*`` writes inside
one transaction, sends pushes only once it has committed and returns a result for the
view to answer with (views build the HTTP responses).

An action is: lock the table, check the caller and the version, let the engine fold the
new event (a rejection raises before anything is written), then append the server's own
consequences — the next deal, forced passes — in the same transaction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import secrets
import string
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import orjson
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import IllegalEventError, deal_event
from engine.table_commands import SEAT_EVENT_TYPES, TABLE_COMMANDS
from server.accounts.models import User
from server.errors import (
    ApiError,
    IdempotencyKeyReused,
    NotAllowedInRated,
    NotFound,
    NotYourSeat,
    OneSeatPerPlayer,
    Paused,
    PermissionDenied,
    SeatTaken,
    StaleVersion,
    ValidationError,
    rule_rejection,
)
from server.notices import presence
from server.tables import answers, commits, projection, seeds, selectors, store, table_state
from server.tables.locking import writing
from server.tables.models import ActionReceipt, NewEvent, Seat, Table
from server.tables.signals import match_ended, seat_joined, seat_offer_rules
from server.tables.table_state import PAUSE_ACTIONS, TAKEBACK_ANSWERS, TableState

GAME_ACTIONS = SEAT_EVENT_TYPES  # the engine's seat events and table commands, by name
ACTION_TYPES = GAME_ACTIONS + TABLE_COMMANDS + PAUSE_ACTIONS + TAKEBACK_ANSWERS
CODE_ALPHABET = "".join(c for c in string.ascii_uppercase + string.digits if c not in "0O1IL")


# -- tables and seats ---------------------------------------------------------------------
def check_seat_plan(
    seats: dict[int, str], join: list[int], bots: dict[int, str]
) -> dict[int, User]:
    if sorted(seats) != [1, 2, 3, 4] or any(k not in ("human", "bot") for k in seats.values()):
        raise ValidationError('seats must give "human" or "bot" for each of seats 1-4')
    for n in join:
        if seats.get(n) != "human":
            raise ValidationError(f"seat {n} is not a human seat: you can join human seats only")
    accounts: dict[int, User] = {}
    for n, name in bots.items():
        if seats.get(n) != "bot":
            raise ValidationError(f"seat {n} is not a bot seat")
        bot = User.objects.filter(username=name, is_bot=True).first()
        if bot is None:
            raise ValidationError(f"no bot account named {name!r}")
        accounts[n] = bot
    return accounts


def check_may_seat_bot(owner: User, bot: User) -> None:
    if bot.bot_owner_id not in (None, owner.pk):
        raise PermissionDenied(f"{bot.username} is another member's bot")


def controller_of(user: User) -> int:
    """The person behind an account: a member's bot counts as that member."""
    return user.bot_owner_id if user.is_bot and user.bot_owner_id else user.pk


def check_one_seat_per_person(players: list[User]) -> None:
    """At a rated table no two seats are controlled by the same person."""
    seen: set[int] = set()
    for player in players:
        if controller_of(player) in seen:
            raise OneSeatPerPlayer()
        seen.add(controller_of(player))


def do_create_table(
    *,
    owner: User,
    seats: dict[int, str],
    join: list[int],
    bots: dict[int, str],
    rated: bool = False,
) -> Table:
    if owner.is_bot:
        raise PermissionDenied("bot accounts do not create tables")
    bot_accounts = check_seat_plan(seats, join, bots)
    for bot in bot_accounts.values():
        check_may_seat_bot(owner, bot)
    players = {n: owner if n in join else bot_accounts.get(n) for n in (1, 2, 3, 4)}
    if rated:
        check_one_seat_per_person([p for p in players.values() if p is not None])
    return _create(owner, seats, players, rated)


def do_create_seated_table(
    *, owner: User, players: dict[int, User], rated: bool = True, deal_seed: str = ""
) -> Table:
    """A table with every seat assigned (league rounds): people at human seats, bot
    accounts at bot seats. Joins the caller's transaction when there is one."""
    if sorted(players) != [1, 2, 3, 4]:
        raise ValidationError("a seated table needs players for seats 1-4")
    if rated:
        check_one_seat_per_person(list(players.values()))
    kinds = {n: "bot" if p.is_bot else "human" for n, p in players.items()}
    return _create(owner, kinds, players, rated, deal_seed)


def do_create_open_table(
    *, owner: User, seats: dict[int, str], players: Mapping[int, User]
) -> Table:
    """A casual table with ``players`` seated and every other seat open (matchmaking's
    seeks: the seats ``seats`` kinds say, offered through ``signals.seat_offer_rules``).
    Unlike ``do_create_table`` the owner may be a bot account: a bot seeks a game too."""
    if sorted(seats) != [1, 2, 3, 4]:
        raise ValidationError("an open table gives a kind for each of seats 1-4")
    return _create(owner, seats, {n: players.get(n) for n in (1, 2, 3, 4)}, False)


def _create(
    owner: User,
    seats: dict[int, str],
    players: Mapping[int, User | None],
    rated: bool,
    deal_seed: str = "",
) -> Table:
    with writing(), transaction.atomic():
        table = Table.objects.create(
            code=_new_code(),
            owner=owner,
            rated=rated,
            secret_seed=seeds.new_seed(),
            deal_seed=deal_seed,
        )
        for n in (1, 2, 3, 4):
            Seat.objects.create(table=table, number=n, kind=seats[n], player=players[n])
        state = TableState(projection.Match())
        start = {
            "type": "match_started",
            "seats": {str(n): seats[n] for n in (1, 2, 3, 4)},
            "rated": rated,
        }
        _append(table, state, start, actor=owner, seat=None, actor_kind="server")
        transaction.on_commit(lambda: _after_commit(table, state))
    return table


def _new_code() -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))
        if not Table.objects.filter(code=code).exists():
            return code


def do_join(*, user: User, table: Table, number: int) -> Table:
    with writing(), transaction.atomic():
        seat = Seat.objects.select_for_update().filter(table=table, number=number).first()
        if seat is None:
            raise NotFound(f"table {table.code} has no seat {number}")
        if seat.player_id == user.pk:
            return table
        free = seat.player_id is None
        offered = free and any(rule(user, table, seat) for rule in seat_offer_rules)
        if not offered and (seat.kind == "bot") != user.is_bot:
            raise PermissionDenied(
                f"seat {number} is a {seat.kind} seat: "
                + (
                    "bot accounts take bot seats only"
                    if user.is_bot
                    else "people take human seats only"
                )
            )
        if not free:
            raise SeatTaken(number=number)
        if user.is_bot and not offered:
            check_may_seat_bot(table.owner, user)  # the same rule as at table creation
        if table.rated:
            others = [
                s.player
                for s in Seat.objects.filter(table=table, player__isnull=False).select_related(
                    "player"
                )
                if s.player is not None
            ]
            check_one_seat_per_person(others + [user])
        seat.player = user
        seat.kind = "bot" if user.is_bot else "human"  # an offered seat takes the joiner's
        seat.save(update_fields=["player", "kind"])
        seat_joined.send(sender=Table, table=table, seat=number, user=user)
        transaction.on_commit(lambda: _after_commit(table, None))
    return table


# -- actions ---------------------------------------------------------------------------------
def request_hash(seat: int, body: dict) -> str:
    """The SHA-256 of the body's canonical JSON (keys sorted, no spaces, ASCII): a
    receipt stores it, so the text hashed never changes. orjson writes that same text
    when the values are plain ASCII strings (printable, no quote or backslash to
    escape), integers that fit 64 bits or null (a checked action body's: keys are its
    field names); anything else goes through ``json.dumps`` as always."""
    canonical = {"seat": seat, **body}
    if all(
        type(v) is int or v is None or (type(v) is str and _plain(v)) for v in canonical.values()
    ):
        try:
            text = orjson.dumps(canonical, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # an integer past 64 bits (or a type json.dumps writes its way)
            pass
        else:
            return hashlib.sha256(text).hexdigest()
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(text).hexdigest()


def _plain(text: str) -> bool:
    """Written alike by ``json.dumps`` and orjson: nothing to escape, nothing past ASCII."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def check_holder(*, user: User, table: Table, number: int, seats: list[Seat] | None = None) -> Seat:
    kept = seats is not None
    seats = selectors.load_seats(table) if seats is None else seats
    seat = next((s for s in seats if s.number == number), None)
    if seat is None:
        raise NotFound(f"table {table.code} has no seat {number}")
    if seat.player_id != user.pk:
        if kept:  # kept seats may predate a handover in another process: read them again
            return check_holder(user=user, table=table, number=number)
        raise NotYourSeat(number=number, table=table.code)
    return seat


@dataclass(frozen=True)
class ActionResult:
    """What an accepted action leaves: the table's new version and the seat's response.

    The response is built here, inside the transaction, because it is also the stored
    answer to the action's ``Idempotency-Key`` (``replayed``: a retry got that stored
    answer and nothing was applied again).
    """

    version: int
    response: dict | None  # None: given as ``text``
    status: int = 200
    replayed: bool = False
    text: bytes | None = None  # the response as JSON, when it was encoded already

    def body(self) -> dict:
        if self.response is not None:
            return self.response
        return orjson.loads(self.text or b"{}")


def do_action(
    *,
    user: User,
    table: Table,
    seat: int,
    action: dict,
    key: str | None,
    seats: list[Seat] | None = None,
) -> ActionResult:
    """Apply ``action`` (the checked request body) for seat number ``seat``.

    ``seats`` are the table's seats when the caller read them with the table. Raises
    ``StaleVersion`` when ``action["expected_version"]`` is not the table's version."""
    seats = selectors.load_seats(table) if seats is None else seats
    holder = check_holder(user=user, table=table, number=seat, seats=seats)
    digest = request_hash(seat, action) if key else ""
    try:
        with writing(), transaction.atomic():
            locked = _lock_table(table)
            state = projection.project(locked)
            try:
                fresh = selectors.fresh_seats(locked, seats, state)
                if fresh is not seats:  # a seat changed hands since these were read
                    seats = fresh
                    holder = check_holder(user=user, table=locked, number=seat, seats=None)
                over_before = state.match.phase == "match_over"
                rows = _accepted_rows(locked, holder, state, action, user, seats, key)
                # built and encoded once: the answer and this seat's push (its receipt
                # keeps only its version: a retry builds it again, ``_replayed``)
                answer = answers.seat_answer(locked, seat, state, user, seats, keep=False)
                if key:  # the receipt rides on the event its key names: no row of its own
                    rows[0] = rows[0]._replace(request_hash=digest, receipt=receipt(state))
                store.append_events(rows)
            except ApiError:
                # A retry of an action already applied is refused as it now stands (its
                # version is stale, the match may be over): its receipt answers it. A new
                # key has none, so the accepted path never looks receipts up.
                replayed = _replayed(locked, seat, key, digest, user) if key else None
                if replayed is not None:
                    return replayed
                raise
            if not over_before and state.match.phase == "match_over":
                match_ended.send(sender=Table, table=locked, state=state, annulled=False)
            transaction.on_commit(lambda: _after_action(locked, state, seat, user, answer))
    except Paused:
        # A bot refused because of a pause that has lapsed: lift it; the bot acts again
        # on the new version (stale_version carries the view).
        lifted = lift_lapsed_pauses(table=table)
        if lifted.paused:
            raise
        raise _stale(table, seat, lifted, user, seats) from None
    except IntegrityError:
        # Another writer got the same seq or command id first: the table moved, or this
        # key was used (a concurrent retry: its answer; another body: refused).
        projection.forget(table)
        replayed = _replayed(table, seat, key, digest, user) if key else None
        if replayed is not None:
            return replayed
        current = projection.project(table)
        raise _stale(table, seat, current, user, seats) from None
    return ActionResult(state.version, None, text=answer.text)


def _after_action(
    table: Table, state: TableState, seat: int, user: User, answer: answers.SeatAnswer
) -> None:
    answers.keep(table, seat, user, answer)  # committed: it may answer again (pushes)
    _after_commit(table, state, owned=True)  # the action is done with its state


def _accepted_rows(
    table: Table,
    holder: Seat,
    state: TableState,
    action: dict,
    user: User,
    seats: list[Seat],
    key: str | None,
) -> list[NewEvent]:
    """The log rows of ``action``, folded into ``state``, once the table's rules accept
    it (``table_state.accept_action``: the checks, then what it appends: the event
    itself, or a takeback request or answer and the command the last consent asks for),
    and the server's consequences."""
    number = holder.number
    try:
        event = _event_for(number, action)
        steps, then_consequences = table_state.accept_action(
            table, holder, state, event, action["expected_version"], user.pk, seats
        )
    except table_state.NotAtThisVersion:
        raise _stale(table, number, state, user, seats) from None
    except IllegalEventError as err:
        raise rule_rejection(err) from None
    actor_kind = "bot" if user.is_bot else "human"
    rows = [
        _fold(table, state, step.event, actor=None, seat=step.seat, actor_kind="server")
        if step.by_server
        else _fold(
            table,
            state,
            step.event,
            actor=user,
            seat=step.seat,
            actor_kind=actor_kind,
            command_id=key,
        )
        for step in steps
    ]
    return rows + _consequences(table, state) if then_consequences else rows


# -- pause limits --------------------------------------------------------------------------
def lapsed_pauses(
    table: Table, state: TableState, now: datetime | None = None, judge_away: bool = True
) -> dict[int, str]:
    """The pauses that have lifted by themselves: seat -> "away" (the pausing seat's
    client is gone, ``presence``) or "time" (``PAUSE_LIMIT`` has passed). ``judge_away``
    False: presence is not seen here, every seat counts as connected."""
    if not state.paused_by or state.stopped:
        return {}
    now = datetime.now(UTC) if now is None else now
    if judge_away:
        here = presence.seat_presence(table=table, now=now.timestamp())
        connected = [seat for seat, p in here.items() if p.connected]
    else:
        connected = list(state.paused_by)
    return table_state.lapsed_pauses(state, connected, now)


def lift_lapsed_pauses(
    *, table: Table, now: datetime | None = None, judge_away: bool = True
) -> TableState:
    """Append a server ``resume`` (with ``"lapsed": "away" | "time"``) for each pause
    that has lifted by itself. The ticking driver runs it for every table with an open
    pause (``lift_due_pauses``); a computer seat refused for a pause that has lapsed, and
    a seat's socket closing, run it at once. A read never does."""
    state = projection.project(table)
    if not lapsed_pauses(table, state, now, judge_away):
        return state
    with writing(), transaction.atomic():
        locked = _lock_table(table)
        state = projection.project(locked)
        lapsed = lapsed_pauses(locked, state, now, judge_away)
        if not lapsed:
            return state
        rows = [
            _fold(
                locked,
                state,
                {"type": "resume", "seat": seat, "lapsed": why},
                actor=None,
                seat=seat,
                actor_kind="server",
            )
            for seat, why in lapsed.items()
        ]
        store.append_events(rows)
        transaction.on_commit(lambda: _after_commit(locked, state))
    return state


def lift_due_pauses(*, now: datetime | None = None) -> list[tuple[str, int, str]]:
    """The tables' half of the server's ticking driver (the league's deadlines are the
    other): lift every pause that has lapsed by now, at every table. Returns
    (table code, seat, "away" | "time") for each pause lifted.

    "away" needs presence: in a process that does not see it (``presence.seen_here``: a
    command without Redis), only ``PAUSE_LIMIT`` lifts a pause, never a seat that merely
    looks away from there."""
    now = datetime.now(UTC) if now is None else now
    judge_away = presence.seen_here()
    lifted = []
    candidates = store.tables_with_open_pauses()
    for table in Table.objects.filter(pk__in=candidates).order_by("pk"):
        due = lapsed_pauses(table, projection.project(table), now, judge_away)
        if due:
            after = lift_lapsed_pauses(table=table, now=now, judge_away=judge_away)
            lifted += [(table.code, n, why) for n, why in due.items() if n not in after.paused_by]
    return lifted


def receipt(state: TableState) -> str:
    """What an action's key keeps beside its request hash: the version its answer is at.
    A retry is answered by the seat's answer at that version, built again from the log
    (``_replayed``): the answer is a projection like every other read, so it is not stored
    (it was ~4.6 KB an action, 68x the log itself; docs/server.md, "Receipts")."""
    return f'{{"version":{state.version}}}'


def _replayed(table: Table, seat: int, key: str, digest: str, user: User) -> ActionResult | None:
    """The first answer to ``key``, or None when the key is new: the seat's answer at the
    version its action made (the receipt on the event the key wrote; migration 0006 cut
    every whole answer stored there down to its version), or, for an action written
    before receipts moved onto the event, the answer its ``ActionReceipt`` row stored."""
    row = store.receipt_on_event(table.pk, key)
    if row is None:
        return None
    hash_, account_id, text = row
    if text is not None:
        _check_same_request(hash_, account_id, digest, user)
        version = orjson.loads(text)["version"]
        state = projection.project(table, upto=version)
        seats = selectors.load_seats(table)
        answer = answers.seat_answer(table, seat, state, user, seats, keep=False)
        return ActionResult(version, None, 200, True, text=answer.text)  # only accepted ones
    older = ActionReceipt.objects.filter(table=table, key=key).first()
    if older is None:
        return None
    _check_same_request(older.request_hash, older.account_id, digest, user)
    body = older.response
    return ActionResult(body.get("version", 0), body, older.status_code, True, orjson.dumps(body))


def _check_same_request(hash_: str | None, account_id: int | None, digest: str, user: User) -> None:
    """A key answers again only the request that used it: the same body and account."""
    if hash_ != digest or account_id != user.pk:
        raise IdempotencyKeyReused()


def _lock_table(table: Table) -> Table:
    """The table, locked for this transaction's writes.

    PostgreSQL: the row lock serialises actions on one table. SQLite: ``writing()`` and
    the IMMEDIATE transaction already hold the only write lock, so the row is not read
    again (its columns never change after creation).
    """
    # Only the lock is needed: the columns never change, so the row already read stands.
    store.lock_table(table.pk)
    return table


def _stale(
    table: Table, number: int, state: TableState, user: User, seats: list[Seat] | None = None
) -> StaleVersion:
    """The refusal of a stale action, with the seat's view at ``state``. Only the seat's
    holder at that state may read it: seats read before a handover that landed meanwhile
    (a lapsed pause lifted, another writer first) are read again, and a former holder
    is refused as such (``NotYourSeat``), not shown the seat's hand."""
    if seats is not None:
        fresh = selectors.fresh_seats(table, seats, state)
        if fresh is not seats:
            check_holder(user=user, table=table, number=number)
            seats = fresh
    view = selectors.seat_response(table, number, state, user=user, seats=seats)
    return StaleVersion(state.version, view)


def _event_for(number: int, body: dict) -> dict:
    event = {"type": body["type"], "seat": number}
    if body["type"] == "pause":
        event["at"] = datetime.now(UTC).isoformat()  # when it lifts by itself (PAUSE_LIMIT)
    for name in ("tile", "end", "opener"):
        if body.get(name) is not None:
            event[name] = body[name]
    return event


def _append(
    table: Table,
    state: TableState,
    event: dict,
    *,
    actor: User | None,
    seat: int | None,
    actor_kind: str,
    command_id: str | None = None,
    consequences: bool = True,
) -> None:
    """Fold ``event`` and the server's consequences into ``state`` and write them to the
    log in one statement. The engine may refuse ``event``: then nothing is written."""
    rows = [
        _fold(
            table,
            state,
            event,
            actor=actor,
            seat=seat,
            actor_kind=actor_kind,
            command_id=command_id,
        )
    ]
    if consequences:
        rows += _consequences(table, state)
    store.append_events(rows)  # one INSERT (hotpath: plain SQL, not bulk_create)


def _fold(
    table: Table,
    state: TableState,
    event: dict,
    *,
    actor: User | None,
    seat: int | None,
    actor_kind: str,
    command_id: str | None = None,
) -> NewEvent:
    """Fold ``event`` into ``state`` (or raise the engine's refusal, ``state`` untouched);
    its unsaved log row."""
    seq = state.version + 1
    try:
        state.apply(seq, event)
    except IllegalEventError as err:
        raise rule_rejection(err) from None
    return NewEvent(
        table_id=table.pk,
        seq=seq,
        type=event["type"],
        payload=event,
        actor_id=None if actor is None else actor.pk,
        seat=seat,
        actor_kind=actor_kind,
        command_id=command_id,
    )


def do_set_watchable(*, user: User, table: Table, on: bool) -> TableState:
    """The owner of a casual table lets anyone holding its code watch it (or stops):
    a ``watchable`` server event. A club's tables are watched by the club's rules, and
    the flag does not change them (``server.league.spectate``)."""
    if table.owner_id != user.pk:
        raise PermissionDenied("only the table's owner marks it watchable")
    with writing(), transaction.atomic():
        locked = _lock_table(table)
        state = projection.project(locked)
        if state.watchable != on:
            _append(
                locked,
                state,
                {"type": "watchable", "on": on},
                actor=user,
                seat=None,
                actor_kind="server",
                consequences=False,
            )
            transaction.on_commit(lambda: _after_commit(locked, state))
    return state


# -- seat handovers and forfeits (server events) ----------------------------------------------
def do_hand_over(
    *,
    actor: User | None,
    table: Table,
    seat: int,
    to: User | None,
    reason: str,
    note: str = "",
    kind: str | None = None,
    check=None,
) -> TableState:
    """Seat ``seat`` changes hands: ``to`` takes it (a person at a human seat, a bot
    account at a bot seat), or nobody (``to`` None: the seat is open for someone to join).

    One ``seat_handover`` server event in the table's log, written with the seat's new
    holder in one transaction: ``{"type": "seat_handover", "seat", "from", "to", "kind",
    "reason", "note"}`` (``from``/``to`` usernames or null, ``kind`` the seat's kind from
    now on, ``reason`` a code: substitute, auto_substitute, leave, replace, computer).
    It is not an engine event: the match goes on from the same state (no new deal) and
    the record replays as before; the log shows who played which hands. ``check(state,
    seat_row)`` runs under the table's lock before anything is written (the caller's
    own conditions). ``kind`` (with ``to`` None): the open seat's kind from now on."""
    with writing(), transaction.atomic():
        locked = _lock_table(table)
        state = projection.project(locked)
        table_state.check_may_hand_over(state)
        row = Seat.objects.select_for_update().filter(table=locked, number=seat).first()
        if row is None:
            raise NotFound(f"table {table.code} has no seat {seat}")
        if check is not None:
            check(state, row)
        before = row.player
        if to is not None:
            if to.pk == row.player_id:
                raise ValidationError(f"{to.username} holds seat {seat} already")
            others = [
                s.player
                for s in Seat.objects.filter(table=locked, player__isnull=False)
                .exclude(number=seat)
                .select_related("player")
                if s.player is not None
            ]
            # (A casual table lets one account hold several seats, as at its creation.)
            if table.rated:
                check_one_seat_per_person(others + [to])
        if to is not None:
            kind = "bot" if to.is_bot else "human"
        kind = kind or row.kind  # an open seat: the caller's kind, or the seat's own
        event = {
            "type": "seat_handover",
            "seat": seat,
            "from": before.username if before is not None else None,
            "to": to.username if to is not None else None,
            "kind": kind,
            "reason": reason,
            "note": note,
        }
        row.player, row.kind = to, kind
        row.save(update_fields=["player", "kind"])
        _append(
            locked, state, event, actor=actor, seat=None, actor_kind="server", consequences=False
        )
        transaction.on_commit(lambda: _after_handover(locked, state))
    return state


# -- leave and replace (casual tables) -------------------------------------------------------
def away_since(table: Table, seat: int) -> dt.datetime | None:
    """When seat ``seat`` went away (None: connected), from the presence module."""
    return presence.away_since(table=table, seat=seat)


def check_casual(table: Table) -> None:
    if table.rated:
        raise NotAllowedInRated(
            "not at a rated table: a league organizer substitutes a seat there instead"
        )


def do_leave(*, user: User, table: Table, seat: int) -> TableState:
    """The holder of ``seat`` at a casual table leaves it: the seat is open (a human
    seat: someone may join it; the owner may hand it to a computer player)."""
    check_casual(table)

    def holder_only(state: TableState, row: Seat) -> None:
        if row.player_id != user.pk:
            raise NotYourSeat(number=seat, table=table.code)

    return do_hand_over(
        actor=user, table=table, seat=seat, to=None, kind="human", reason="leave", check=holder_only
    )


def do_replace(*, user: User, table: Table, seat: int, bot: User | None) -> TableState:
    """The owner of a casual table hands seat ``seat`` to the computer player ``bot``
    (None: opens it for someone to join). A seat held by another person must have been
    away ``table_state.REPLACE_AFTER`` (presence); an open seat, the owner's own and a
    bot's seat are the owner's to give at once."""
    check_casual(table)
    if table.owner_id != user.pk:
        raise PermissionDenied("only the table's owner replaces a seat")
    if bot is not None:
        if not bot.is_bot:
            raise ValidationError("a seat is handed to a computer player (a bot account)")
        check_may_seat_bot(user, bot)

    def away_long_enough(state: TableState, row: Seat) -> None:
        held_by_person = row.player is not None and not row.player.is_bot
        if held_by_person and row.player_id != user.pk:
            table_state.check_away_long_enough(seat, away_since(table, seat), timezone.now())

    return do_hand_over(
        actor=user,
        table=table,
        seat=seat,
        to=bot,
        kind="human",
        reason="computer" if bot is not None else "replace",
        check=away_long_enough,
    )


def _after_handover(table: Table, state: TableState) -> None:
    selectors.forget_full_table(table.code)
    _after_commit(table, state)


def do_forfeit(*, actor: User, table: Table, seat: int, team: str, reason: str) -> TableState:
    """Append a ``forfeit`` server event: the match ends against ``team`` (the team of
    the absent ``seat``); the hands played stay in the log and the record."""
    with writing(), transaction.atomic():
        locked = _lock_table(table)
        state = projection.project(locked)
        table_state.check_may_hand_over(state)
        _append(
            locked,
            state,
            {"type": "forfeit", "seat": seat, "team": team, "reason": reason},
            actor=actor,
            seat=None,
            actor_kind="server",
            consequences=False,
        )
        match_ended.send(sender=Table, table=locked, state=state, annulled=False)
        transaction.on_commit(lambda: _after_commit(locked, state))
    return state


def do_annul(*, actor: User, table: Table, reason: str) -> TableState:
    """Append an ``annul`` server event: the match stops; its log and record stay."""
    with writing(), transaction.atomic():
        locked = _lock_table(table)
        state = projection.project(locked)
        table_state.check_may_annul(state)
        _append(
            locked,
            state,
            {"type": "annul", "reason": reason},
            actor=actor,
            seat=None,
            actor_kind="server",
            consequences=False,
        )
        match_ended.send(sender=Table, table=locked, state=state, annulled=True)
        transaction.on_commit(lambda: _after_commit(locked, state))
    return state


def _consequences(table: Table, state: TableState) -> list[NewEvent]:
    """The server's own events, folded: the next shuffle, and passes nobody can avoid."""
    rows: list[NewEvent] = []
    while True:
        m = state.match
        if m.needs_deal():
            if table.deal_seed:
                # A duplicate round: every table of the round deals the same shuffles,
                # by hand and redeal (docs/league.md), whatever its log looks like.
                hand, attempt = state.next_deal()
                rng = random.Random(f"{table.deal_seed}:hand:{hand}:deal:{attempt}")
            else:
                rng = random.Random(f"{table.secret_seed}:{state.version + 1}")
            event = deal_event(rng)
        else:
            passed = m.forced_pass()
            if passed is None:
                return rows
            event = passed
        rows.append(_fold(table, state, event, actor=None, seat=None, actor_kind="server"))


def _after_commit(table: Table, state: TableState | None, owned: bool = False) -> None:
    """``owned``: the caller never changes ``state`` again, so it is kept as it is."""
    if state is not None:
        projection.remember(table, state, owned=owned)
    commits.table_committed(table, state.version if state is not None else None, state)
