"""The table's own state and rules, pure: no ORM, no clock, no presence store.

The engine folds the match (``engine.Match``). A table's log holds more than the match:
pauses, takeback requests and their answers, seat handovers, the watchable flag, an
annul or a forfeit (the server events, left out of the record). ``TableState.fold``
folds all of it, and the functions below decide the table's own rules over that state:

- **pauses**: only a person pauses (a human seat), a pause stops the computer seats,
  and it lifts by itself (``lapsed_pauses``) once its seat is away or ``PAUSE_LIMIT``
  has passed;
- **takebacks**: at a casual table with several people, a table command (undo, redo,
  restart, new match) is a request the other people answer; the last consent appends
  the command (``action_steps``);
- **handovers**: a seat changes hands while the match goes on (``check_may_hand_over``);
  a person's seat is handed on by the owner only once it has been away long enough
  (``check_away_long_enough``).

The services read the rows, the clock and presence and hand them here; the selectors
and answers show what is decided here. A seat is anything with ``number``, ``kind``
and ``player_id`` (a ``Seat`` row), a table anything with ``owner_id`` and ``rated``.
Tested without a database, like the engine (``tests/server/test_table_state.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple, Protocol

from engine import Match
from engine.events import DealtHands, deal_hands
from engine.phases import MATCH_OVER
from engine.replay import step
from engine.table_commands import TABLE_COMMANDS, available_commands
from server.errors import (
    AlreadyPaused,
    MatchAnnulled,
    MatchForfeited,
    MatchOver,
    NoTakebackRequest,
    NotAVoter,
    NotPaused,
    Paused,
    PermissionDenied,
    SeatNotAway,
    TakebackPending,
)

# In the log, not in the engine record: the record of an annulled match still replays.
# ``seat_handover`` (a seat changes hands: a substitute, a player leaving, a replacement)
# and ``forfeit`` (an organizer ends a league match against a seat's team) likewise.
SERVER_EVENT_TYPES = (
    "pause",
    "resume",
    "annul",
    "takeback_request",
    "takeback_answer",
    "watchable",
    "forfeit",
    "seat_handover",
)
PAUSE_ACTIONS = ("pause", "resume")
TAKEBACK_ANSWERS = ("accept_takeback", "decline_takeback")
# A pause lifts by itself after this long, or as soon as the pausing seat is away.
PAUSE_LIMIT = timedelta(minutes=10)
# How long a person's seat is away before the owner of a casual table hands it on.
REPLACE_AFTER = timedelta(minutes=5)


class SeatLike(Protocol):
    number: int
    kind: str  # "human" | "bot"
    player_id: int | None


class TableLike(Protocol):
    owner_id: int
    rated: bool


@dataclass
class TableState:
    match: Match
    version: int = 0  # seq of the newest event folded
    paused_by: set[int] = field(default_factory=set)  # seats that opened rules/log
    # The deals whose hand has ended somewhere in the log (all four hands revealed,
    # RULES §5): only these are shown whole before the match is over. A deal voided by
    # a redeal claim, taken back by undo or dropped by a new match can come back, so it
    # stays out (RECORDS.md); a restarted hand replays its deal, shown once it ends. When
    # a match is over, every deal of it joins (``match_deals``).
    revealed: frozenset[DealtHands] = frozenset()
    annulled: dict | None = None  # the annul event, once an organizer annulled
    # When each pause began (the pause event's "at", ISO 8601; None for old logs).
    paused_at: dict[int, str | None] = field(default_factory=dict)
    # The open takeback request (the takeback_request event, with "votes": seat -> bool),
    # or None: at a casual table with several people, undo, redo, restart and new match
    # wait for the other people's consent.
    takeback: dict | None = None
    watchable: bool = False  # a casual table its owner lets the code's holders watch
    forfeited: dict | None = None  # the forfeit event, once an organizer ended it so
    # Every seat_handover, in log order, each with its ``seq``: who took which seat when.
    handovers: tuple[dict, ...] = ()
    # (finished hands when the newest deal was folded, deals folded since that count
    # last changed): which deal of which hand comes next (duplicate rounds' shuffles).
    hand_deals: tuple[int, int] = (0, 0)
    # Every deal of the match in play, voided or taken back ones too: once the match is
    # over they all join ``revealed`` (a finished match shows everything, RECORDS.md),
    # so a new match started after it does not hide part of it again.
    match_deals: frozenset[DealtHands] = frozenset()

    @property
    def paused(self) -> bool:
        return bool(self.paused_by)

    @property
    def stopped(self) -> bool:
        """Annulled or forfeited: nothing more is played at the table."""
        return self.annulled is not None or self.forfeited is not None

    @property
    def seat_epoch(self) -> int:
        """The seq of the newest seat handover (0: the seats never changed hands)."""
        return self.handovers[-1]["seq"] if self.handovers else 0

    def next_deal(self) -> tuple[int, int]:
        """(hand, attempt) of the deal due now: the hand's number counted in finished
        hands plus one, and how many deals of that hand came before (redeals)."""
        finished = self.match.hands_finished
        at, count = self.hand_deals
        return (finished + 1, count if at == finished else 0)

    def copy(self) -> TableState:
        return TableState(
            self.match.copy(),
            self.version,
            set(self.paused_by),
            self.revealed,
            self.annulled,
            dict(self.paused_at),
            None
            if self.takeback is None
            else {**self.takeback, "votes": dict(self.takeback["votes"])},
            self.watchable,
            self.forfeited,
            self.handovers,
            self.hand_deals,
            self.match_deals,
        )

    def apply(self, seq: int, event: dict) -> None:
        """Fold a new event, all or nothing: when the engine refuses it
        (``IllegalEventError``) this state is left as it was."""
        trial = self.copy()
        trial.fold(seq, event)
        # every field at once: a field added to the class cannot be left behind
        self.__dict__.update(trial.__dict__)

    def fold(self, seq: int, payload: dict) -> None:
        """Apply one stored event (already validated when it was appended). An engine
        event the engine refuses may leave the state half-folded: ``apply`` does not."""
        kind = payload.get("type")
        if kind == "pause":
            self.paused_by.add(payload["seat"])
            self.paused_at[payload["seat"]] = payload.get("at")
        elif kind == "resume":
            self.paused_by.discard(payload["seat"])
            self.paused_at.pop(payload["seat"], None)
        elif kind == "annul":
            self.annulled = payload
        elif kind == "watchable":
            self.watchable = bool(payload["on"])
        elif kind == "takeback_request":
            self.takeback = {**payload, "seq": seq, "votes": {}}
        elif kind == "takeback_answer":
            if self.takeback is not None:
                self.takeback["votes"][str(payload["seat"])] = bool(payload["accept"])
                if not payload["accept"] or payload.get("final"):
                    self.takeback = None
        elif kind == "forfeit":
            self.forfeited = payload
        elif kind == "seat_handover":
            self.paused_by.discard(payload["seat"])  # a pause is its holder's, not the seat's
            self.paused_at.pop(payload["seat"], None)
            self.takeback = None  # its voters may have changed: a request starts again
            self.handovers = (*self.handovers, {**payload, "seq": seq})
        else:
            self.takeback = None  # any engine event ends an open request
            ended = step(self.match, payload, seq).hand_results
            if ended:
                self.revealed = self.revealed.union(hand.dealt for hand in ended)
            if kind == "deal":
                finished = self.match.hands_finished
                at, count = self.hand_deals
                self.hand_deals = (finished, count + 1 if at == finished else 1)
                self.match_deals = self.match_deals | {deal_hands(payload)}
            elif kind == "new_match":
                self.match_deals = frozenset()
            if self.match_deals and self.match.phase == MATCH_OVER:
                self.revealed = self.revealed | self.match_deals
                self.match_deals = frozenset()
        self.version = seq


# -- the people at the table and their takeback requests --------------------------------
def several_people(seats: Sequence[SeatLike]) -> bool:
    """Two or more people seated at human seats: table commands need consent."""
    return len({s.player_id for s in seats if s.kind == "human" and s.player_id}) >= 2


def voters(seats: Sequence[SeatLike], requester_id: int | None) -> list[int]:
    """The accounts that answer a takeback request by ``requester_id``: the other people
    seated at human seats (one vote per person, however many seats they hold; bots never
    vote). Empty: the command is immediate (one person at the table)."""
    people = {s.player_id for s in seats if s.kind == "human" and s.player_id is not None}
    return sorted(people - {requester_id})


def request_owner(seats: Sequence[SeatLike], state: TableState) -> int | None:
    """The account that made the open takeback request."""
    if state.takeback is None:
        return None
    return next((s.player_id for s in seats if s.number == state.takeback["seat"]), None)


def accepted_by(seats: Sequence[SeatLike], state: TableState) -> set[int]:
    """The accounts that have accepted the open takeback request so far."""
    if state.takeback is None:
        return set()
    players = {str(s.number): s.player_id for s in seats if s.player_id is not None}
    return {players[n] for n, yes in state.takeback["votes"].items() if yes and n in players}


def takeback_waiting_for(seats: Sequence[SeatLike], state: TableState) -> list[int]:
    """The seats (one per person) whose answer the open takeback request waits for."""
    if state.takeback is None:
        return []
    missing = set(voters(seats, request_owner(seats, state))) - accepted_by(seats, state)
    out: dict[int, int] = {}
    for s in seats:
        if s.kind == "human" and s.player_id in missing and s.player_id not in out:
            out[s.player_id] = s.number
    return sorted(out.values())


# -- what a seat may send -----------------------------------------------------------------
def allowed_actions(
    table: TableLike,
    seat: SeatLike,
    state: TableState,
    legal: Sequence[dict],
    user_id: int | None,
    seats: Sequence[SeatLike],
) -> list[str]:
    """What account ``user_id`` may send for ``seat`` now: the seat's ``legal`` events
    (unless the table is paused for a bot seat), the table commands the engine accepts
    (the table's owner when one person plays; every person at a human seat, as a takeback
    request, when several do), the answers to an open takeback request (the other
    people), pause or resume (human seats). Nothing at an annulled or forfeited table."""
    if state.stopped:
        return []
    allowed = []
    if not (state.paused and seat.kind == "bot"):
        allowed += list(dict.fromkeys(e["type"] for e in legal))
    several = not table.rated and several_people(seats)
    if several and seat.kind == "human":
        if state.takeback is None:
            allowed += available_commands(state.match)
        elif (
            user_id is not None
            and user_id != request_owner(seats, state)
            and user_id not in accepted_by(seats, state)
        ):
            allowed += list(TAKEBACK_ANSWERS)
    elif not several and user_id is not None and table.owner_id == user_id:
        allowed += available_commands(state.match)
    if seat.kind == "human":
        allowed.append("resume" if seat.number in state.paused_by else "pause")
    return allowed


def check_may_act(state: TableState, seat: SeatLike, kind: str) -> None:
    """What stops an action before its version is compared: a stopped match, a pause
    asked by a computer seat, any move of a computer seat while the table is paused."""
    if state.annulled is not None:
        raise MatchAnnulled()
    if state.forfeited is not None:
        raise MatchForfeited()
    if kind in PAUSE_ACTIONS:
        if seat.kind != "human":
            raise PermissionDenied("only players at human seats pause the computer")
    elif state.paused and seat.kind == "bot":
        raise Paused()


def check_request(
    table: TableLike,
    seat: SeatLike,
    state: TableState,
    kind: str,
    user_id: int,
    seats: Sequence[SeatLike],
) -> None:
    """The table's rules for an action at the current version: who may send a table
    command (at a rated table the engine refuses them all, whoever sends them: the owner
    there is the organizer, not a player), a takeback answer, a pause or a resume."""
    if kind in TABLE_COMMANDS and not table.rated:
        several = several_people(seats)
        if several and seat.kind != "human":
            raise PermissionDenied(
                f"only the people at the table may ask to {kind.replace('_', ' ')}"
            )
        if not several and table.owner_id != user_id:
            raise PermissionDenied(f"only the table's owner may {kind.replace('_', ' ')}")
        if several and state.takeback is not None:
            raise TakebackPending()
    if kind in TAKEBACK_ANSWERS:
        check_takeback_answer(seat, state, user_id, seats)
    if kind == "pause" and seat.number in state.paused_by:
        raise AlreadyPaused()
    if kind == "resume" and seat.number not in state.paused_by:
        raise NotPaused()


def check_takeback_answer(
    seat: SeatLike, state: TableState, user_id: int, seats: Sequence[SeatLike]
) -> None:
    if state.takeback is None:
        raise NoTakebackRequest()
    if seat.kind != "human" or user_id == request_owner(seats, state):
        raise NotAVoter()
    if user_id in accepted_by(seats, state):
        raise NotAVoter("you have already answered this takeback request")


class NotAtThisVersion(Exception):
    """The action was sent for another version than the table's (the services answer
    ``stale_version`` with the seat's view)."""


def accept_action(
    table: TableLike,
    seat: SeatLike,
    state: TableState,
    event: dict,
    expected_version: int,
    user_id: int,
    seats: Sequence[SeatLike],
) -> tuple[list[Step], bool]:
    """The table's rules for ``event`` sent by account ``user_id`` for ``seat``, in the
    order a client is told why not: a stopped match, a pause (``check_may_act``), the
    version (``NotAtThisVersion``), who may send it (``check_request``); then what it
    appends (``action_steps``)."""
    kind = event["type"]
    check_may_act(state, seat, kind)
    if expected_version != state.version:
        raise NotAtThisVersion()
    check_request(table, seat, state, kind, user_id, seats)
    return action_steps(table, state, seats, event, user_id)


class Step(NamedTuple):
    """An event an accepted action appends: the sender's own (``by_server`` False) or
    the server's (the command a takeback request asked for, once every person agreed)."""

    event: dict
    seat: int
    by_server: bool = False


def action_steps(
    table: TableLike,
    state: TableState,
    seats: Sequence[SeatLike],
    event: dict,
    user_id: int,
) -> tuple[list[Step], bool]:
    """The events an accepted action appends, and whether the server's consequences (the
    next deal, forced passes) follow them. At a casual table with several people a table
    command becomes a ``takeback_request`` (the engine must accept the command now:
    ``IllegalEventError`` otherwise), and the last consent appends the command it asked
    for; anything else is the event itself."""
    kind, seat = event["type"], event["seat"]
    if kind in TABLE_COMMANDS and not table.rated and several_people(seats):
        state.copy().fold(state.version + 1, event)  # refused here, or accepted later
        request = {"type": "takeback_request", "seat": seat, "command": kind}
        return [Step(request, seat)], False
    if kind in TAKEBACK_ANSWERS:
        accept = kind == "accept_takeback"
        request = state.takeback or {}
        agreed = {*accepted_by(seats, state), user_id}
        final = accept and not set(voters(seats, request_owner(seats, state))) - agreed
        answer = {"type": "takeback_answer", "seat": seat, "accept": accept}
        if not final:
            return [Step(answer, seat)], False
        answer["final"] = True
        command = {"type": request["command"], "seat": request["seat"]}
        return [Step(answer, seat), Step(command, request["seat"], by_server=True)], True
    return [Step(event, seat)], True


# -- pauses that lift by themselves, and seats away ---------------------------------------
def lapsed_pauses(state: TableState, connected: Collection[int], now: datetime) -> dict[int, str]:
    """The pauses that have lifted by themselves at ``now``: seat -> "away" (the pausing
    seat is not among the ``connected`` ones) or "time" (``PAUSE_LIMIT`` has passed)."""
    if not state.paused_by or state.stopped:
        return {}
    out = {}
    for seat in sorted(state.paused_by):
        at = state.paused_at.get(seat)
        if seat not in connected:
            out[seat] = "away"
        elif at is not None and now - datetime.fromisoformat(at) >= PAUSE_LIMIT:
            out[seat] = "time"
    return out


def check_away_long_enough(number: int, since: datetime | None, now: datetime) -> None:
    """A person's seat is handed on by the table's owner once it has been away
    ``REPLACE_AFTER`` (``since``: when it went away; None: it is connected)."""
    if since is None or now - since < REPLACE_AFTER:
        raise SeatNotAway(number=number, minutes=int(REPLACE_AFTER.total_seconds() // 60))


# -- a match that stops, or changes hands ---------------------------------------------------
def check_may_annul(state: TableState) -> None:
    if state.annulled is not None:
        raise MatchAnnulled("this match is already annulled")
    if state.forfeited is not None:
        raise MatchForfeited()
    if state.match.phase == MATCH_OVER:
        raise MatchOver()


def check_may_hand_over(state: TableState) -> None:
    """A seat changes hands (or the match is forfeited) only while its match goes on."""
    if state.annulled is not None:
        raise MatchAnnulled()
    if state.forfeited is not None:
        raise MatchForfeited()
    if state.match.phase == MATCH_OVER:
        raise MatchOver("the match is over: its seats no longer change hands")
