"""Spectators: who may watch a table, and what they see.

What: the engine's spectator view (``engine.spectator_view``: the public facts of the
match, the four hands only once a hand has ended, exactly as for the seats), with the
table's public facts (players, version, pause), whose turn it is and presence. No event
log and no record travel to spectators, so no deal that is not public
(``selectors.deal_is_public``) can reach them.

Who (``check_may_watch``):

- nobody, while the table is one of a duplicate round still being played
  (``selectors.live_duplicate``): every table of the round deals the same cards, so its
  play is the other tables' secret until the round is over — not its players, not the
  organizer who started it, not an organizer overseeing it, not anyone holding the code.
  The answer is the one an unknown code gets (``404 not_found``; a socket closes 4404);
  a socket already following such a table is closed at its next push, and no frame of
  it is built (docs/league.md, "Duplicate rounds");
- the table's owner and players, always (otherwise);
- a table of a club (a league match): its members for a ``members`` club, anyone for a
  ``public`` club (signed in or not);
- a casual table: anyone signed in who holds its code — the players' *invitees* — once
  its owner has marked it watchable (``POST /api/tables/{code}/watchable``), and only
  while it stays so: an invitee's socket is closed (4403) at the version that unmarks it,
  read off that version's kept frame (``open_to_invitees``), in every process.

The answer is built once per table version and kept (``frame``): every spectator of a
version gets the same bytes. Only a full table's: a free seat is taken without a new
version (``do_join`` writes no event), so a table with one is built again for each ask. While a spectator socket of this process follows a table
(``follow``/``unfollow``), the thread that commits a change builds that version's frame
with the state it holds (``prebuild``, through ``commits.on_table_commit``): one build per
version, whatever the number of spectators, and the socket fan-out then only writes it.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict

import orjson

from engine import spectator_view
from engine.table_commands import seats_to_act
from server.accounts.models import User
from server.errors import NotFound, NotWatchable
from server.league.models import Club, LeagueMatch
from server.league.selectors import can_read_club, league_match_of, live_duplicate
from server.notices import presence
from server.tables import commits, projection, selectors
from server.tables.models import Table
from server.tables.table_state import TableState


def club_of(table: Table) -> Club | None:
    """The club whose league match the table is, or None (a casual table)."""
    match = LeagueMatch.objects.filter(table=table).select_related("club").first()
    return None if match is None else match.club


def watch_closed(table: Table) -> bool:
    """Whether nobody may watch the table now: a duplicate round's, while it is played."""
    return live_duplicate(league_match_of(table))


def may_watch(user: User | None, table: Table, state: TableState) -> bool:
    try:
        check_may_watch(user, table, state)
    except (NotFound, NotWatchable):
        return False
    return True


def check_may_watch(
    user: User | None, table: Table, state: TableState, asked: str | None = None
) -> str:
    """Refuses a watcher the module docstring does not let in. ``asked``: the code as the
    caller wrote it, so that a refusal as an unknown table reads exactly as one. Says why
    the watcher is let in: ``"player"`` (the owner or a seat's holder), ``"club"``, or
    ``"invitee"`` (a casual table's code holder, only while it is watchable)."""
    code = asked if asked is not None else table.code
    unknown = NotFound(f"no table {code!r}")
    match = league_match_of(table)
    if live_duplicate(match):
        raise unknown
    if user is not None and (table.owner_id == user.pk or selectors.seats_held(user, table)):
        return "player"
    club = None if match is None else match.club
    if club is not None:
        if can_read_club(club, user):
            return "club"
        if club.visibility == "members":
            raise unknown  # as an unknown code: nothing told
        raise NotWatchable()
    if user is not None and state.watchable:
        return "invitee"
    raise NotWatchable()


def still_may_watch(user: User, table: Table, admitted: str) -> None:
    """Refuses (as ``check_may_watch``) a spectator let in as ``admitted`` who may no
    longer watch, reading only what can have changed for them (a spectator socket's
    look at every ping): a club's reader, the club (its visibility) and their membership;
    a seat's holder, their seats. The owner stays (a live duplicate round's table is
    closed to all at its next change); a code holder is checked per version
    (``open_to_invitees``)."""
    if admitted == "club":
        match = league_match_of(table)
        if match is not None and match.club is not None and can_read_club(match.club, user):
            return
    elif admitted != "player" or table.owner_id == user.pk or selectors.seats_held(user, table):
        return
    check_may_watch(user, table, projection.project(table))  # no longer so: the full check


def spectator_answer(table: Table, state: TableState) -> dict:
    """``GET /api/tables/{code}/spectate``: the same for every spectator of a version."""
    return _answer(table, state)[0]


def _answer(table: Table, state: TableState) -> tuple[dict, bool]:
    """The spectate answer, and whether every seat of the table is taken."""
    view = spectator_view(state.match)
    # a full table's rows are kept in-process (selectors.table_and_seats): no read
    found = selectors.table_and_seats(table.code)
    seats = None
    if found is not None:
        table, seats = found[0], selectors.fresh_seats(found[0], found[1], state)
    full = seats is not None and all(s.player_id is not None for s in seats)
    return {
        "version": state.version,
        "paused": state.paused,
        "seats_to_act": [] if state.stopped else seats_to_act(view),
        "table": selectors.table_json(table, state, seats),
        "view": view,
        "presence": presence.presence_json(table=table),
    }, full


# -- one frame per version ---------------------------------------------------------------------
FRAMES_KEPT = 256
# (table pk, version) -> (the frame, whether the table was watchable at that version)
_frames: OrderedDict[tuple[int, int], tuple[bytes, bool]] = OrderedDict()
_frames_lock = threading.Lock()


def cached_frame(table_id: int, version: int) -> bytes | None:
    with _frames_lock:
        kept = _frames.get((table_id, version))
    return None if kept is None else kept[0]


def open_to_invitees(table_id: int, version: int) -> bool | None:
    """Whether the code's holders may watch the table at ``version`` (its owner's
    ``watchable``), as kept with the version's frame, which a process builds before it
    sends it; None: that frame is no longer kept (read the table's state)."""
    with _frames_lock:
        kept = _frames.get((table_id, version))
    return None if kept is None else kept[1]


def frame(table: Table) -> tuple[int, bytes]:
    """The socket frame of the table's current version (``{"type": "view", ...}``),
    built once per version in this process; ``NotFound`` for a table nobody may watch now
    (``watch_closed``): its sockets are closed instead."""
    if watch_closed(table):
        raise NotFound(f"no table {table.code!r}")
    return _frame_of(table, projection.project(table))


def _frame_of(table: Table, state: TableState) -> tuple[int, bytes]:
    key = (table.pk, state.version)
    with _frames_lock:
        found = _frames.get(key)
    if found is not None:
        return state.version, found[0]
    answer, full = _answer(table, state)
    text = orjson.dumps({"type": "view", **answer})
    if not full:  # a free seat is taken without a new version: built again for each ask
        return state.version, text
    with _frames_lock:
        _frames[key] = (text, state.watchable)
        while len(_frames) > FRAMES_KEPT:
            _frames.popitem(last=False)
    return state.version, text


# table pk -> this process's spectator sockets following it (changed on the server's loop,
# read by the committing threads)
_followed: Counter[int] = Counter()


def follow(table_id: int) -> None:
    _followed[table_id] += 1


def unfollow(table_id: int) -> None:
    _followed[table_id] -= 1
    if _followed[table_id] <= 0:
        del _followed[table_id]


def prebuild(table: Table, state) -> None:
    """In the thread that committed, with its state: the frame of the new version, once,
    when a spectator socket of this process follows the table; the sockets then find it
    (``cached_frame``) without a trip to a thread or a read of their own."""
    if not _followed.get(table.pk) or watch_closed(table):
        return
    _frame_of(table, state)


commits.on_table_commit(prebuild)


def forget_frames() -> None:
    with _frames_lock:
        _frames.clear()


projection.also_forget(forget_frames)  # their names: an account closed (projection.py)
