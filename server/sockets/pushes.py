"""Table pushes built once per (table, version) in this process and shared by its sockets.

When a table moves, every socket that follows it needs the view of the seat(s) it holds.
Built by each socket on its own, four sockets at one table cost four trips to a request
thread, four reads of the seats, four views of each seat asked twice and four JSON
encodings. Here the first socket to hear a notice builds, in one trip, the JSON text of
every seat watched in this process (each as its holder sees it: the seat's answer to
that holder, ``server.tables.answers``, which the action's own answer and the next seat
view share), and the others await the same result and send the same text. No view is
sent to a socket whose account does not hold that seat (``TableConsumer`` asks only for
``(seat, its account)`` pairs, and a pair is built only when that account holds it now).

Everything here runs on the server's event loop (the consumers' coroutines), except the
build, which runs in a request thread with a copy of what to build.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from channels.db import database_sync_to_async

from server.notices import presence
from server.tables import answers, commits, projection, selectors
from server.tables.models import Table

Watch = tuple[int, int]  # (seat number, account id)
# A push is the seat's answer with "type": "view" first: {"type": "view", **answer}.
VIEW_FRAME = b'{"type":"view",'

# table pk -> how many sockets of this process follow each (seat, account)
_watchers: dict[int, Counter[Watch]] = {}
# table pk -> (version, {(seat, account): JSON text}): the newest pushes built
_built: dict[int, tuple[int, dict[Watch, str]]] = {}
# table pk -> the build under way (its result: as in _built)
_building: dict[int, asyncio.Future] = {}


def watch(table_pk: int, pairs: list[Watch]) -> None:
    _watchers.setdefault(table_pk, Counter()).update(pairs)


def unwatch(table_pk: int, pairs: list[Watch]) -> None:
    counter = _watchers.get(table_pk)
    if counter is None:
        return
    counter.subtract(pairs)
    for pair in [p for p, n in counter.items() if n <= 0]:
        del counter[pair]
    if not counter:
        _watchers.pop(table_pk, None)
        _built.pop(table_pk, None)


async def pushes(
    table: Table, version: int | None, again: bool = True
) -> tuple[int, dict[Watch, str]]:
    """The newest pushes of ``table`` at ``version`` or later (``None``: the table changed
    without a new version, a seat was taken: built again)."""
    built = _built.get(table.pk)
    if version is not None and built is not None and built[0] >= version:
        return built
    pending = _building.get(table.pk)
    if pending is None:
        pending = asyncio.ensure_future(_build(table, list(_watchers.get(table.pk, ()))))
        _building[table.pk] = pending
        pending.add_done_callback(lambda done: _done(table.pk, done))
    result = await asyncio.shield(pending)
    if again and version is not None and result[0] < version:  # begun before that commit
        return await pushes(table, version, again=False)
    return result


def _done(table_pk: int, future: asyncio.Future) -> None:
    if _building.get(table_pk) is future:
        del _building[table_pk]
    if future.cancelled() or future.exception() is not None:
        return
    result = future.result()
    current = _built.get(table_pk)
    if table_pk in _watchers and (current is None or current[0] <= result[0]):
        _built[table_pk] = result


def prebuild(table: Table, state) -> None:
    """In the thread that committed (``commits.on_table_commit``), with its state: the
    pushes for this process's sockets, so that they send without a trip of their own."""
    try:
        wanted = list(_watchers.get(table.pk, ()))
    except RuntimeError:  # changed by the loop meanwhile: the sockets build it
        return
    if not wanted:
        return
    result = _build_now(table, wanted, state)
    current = _built.get(table.pk)
    if current is None or current[0] < result[0]:
        _built[table.pk] = result
    if table.pk not in _watchers:  # the last socket left meanwhile
        _built.pop(table.pk, None)


commits.on_table_commit(prebuild)


@database_sync_to_async
def _build(table: Table, wanted: list[Watch]) -> tuple[int, dict[Watch, str]]:
    return _build_now(table, wanted, projection.project(table))


def _build_now(table: Table, wanted: list[Watch], state) -> tuple[int, dict[Watch, str]]:
    # a full table's rows are kept in-process (selectors.table_and_seats): no read
    found = selectors.table_and_seats(table.code)
    if found is None:
        return state.version, {}
    table, seats = found
    # kept seats may predate a handover written by another process (a ladder's
    # substitute): without this the new holder's sockets here got no push at all, and
    # the former holder's went on getting the seat's view
    seats = selectors.fresh_seats(table, seats, state)
    holders = {s.number: s for s in seats if s.player_id is not None}
    texts: dict[Watch, str] = {}
    here = None  # the table's presence, read once for all its seats (on Redis: a trip)
    for number, account in wanted:
        seat = holders.get(number)
        if seat is None or seat.player_id != account:
            continue  # not (or no longer) that account's seat: nothing to send
        if here is None:
            here = presence.presence_json(table=table)
        # the seat's answer at this version, as its GET and the action's answer give it
        # (built once for all of them: ``answers``), framed as a push
        answer = answers.seat_answer(table, number, state, seat.player, seats, presence_now=here)
        texts[(number, account)] = (VIEW_FRAME + answer.text[1:]).decode()
    return state.version, texts
