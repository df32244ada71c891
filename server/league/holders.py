"""Who really played: the people who held each seat of a match, one after another
(docs/league.md, "Who really played").

A seat changes hands by a ``seat_handover`` server event in the table's log (an
organizer's or the tick's substitute, a casual player leaving or being replaced). The
record (engine events only) does not show it, so the league reads it here, once, for
every use:

- the match answer and pages name each holding ("from hand 3, seat 3:
  riverside-strong-1 for farid");
- the analysis counts a decision for the holding it was made in (``analysis_queue``),
  so a player's accuracy is over their own decisions only;
- the ratings rate a seat for the holder who played at least half of the match's hands
  (``projections.rate``).

``fold_holdings`` is pure (the log's rows in, the holdings out); ``match_holdings``
reads a match's rows. A match whose seats never changed hands is answered without
folding its record (one indexed read of its handovers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from engine.replay import Replay
from server.league.models import LeagueMatch, LeagueMatchSeat
from server.tables.models import Event, Seat
from server.tables.table_state import SERVER_EVENT_TYPES

SEATS = (1, 2, 3, 4)
TURNS = ("play", "pass")  # a move of a hand: what a seat lays or passes


@dataclass(frozen=True)
class Holding:
    """One person's time at a seat. ``step`` is the record's index (0-based, the
    replay's step) of the first engine event after they took the seat; ``hand`` and
    ``move`` say where that was: the hand it belongs to and the move of that hand
    (1 = its first play or pass) that came next. The first holder of a seat has
    ``since_seq`` 0, ``step`` 0, hand 1, move 1 and no ``previous``. ``hands``: the
    hands that ended while they held the seat (they finished them)."""

    seat: int
    player: str | None  # the username (None: nobody is known to have held it)
    since_seq: int
    step: int
    hand: int
    move: int
    previous: str | None = None  # who held the seat before
    reason: str | None = None  # the handover's reason code (substitute, auto_substitute, …)
    note: str = ""
    hands: int = 0

    @property
    def handed_over(self) -> bool:
        return self.since_seq > 0


@dataclass(frozen=True)
class Holdings:
    """Every seat's holdings in order (``by_seat[n]``: seat n's, first holder first)
    and how many hands the match has had."""

    by_seat: dict[int, tuple[Holding, ...]]
    hands: int

    @property
    def all(self) -> list[Holding]:
        return [h for seat in SEATS for h in self.by_seat.get(seat, ())]

    @property
    def changed_hands(self) -> bool:
        return any(len(held) > 1 for held in self.by_seat.values())

    def handovers(self) -> list[Holding]:
        """The holdings that began with a handover, in the order they happened."""
        return sorted((h for h in self.all if h.handed_over), key=lambda h: h.since_seq)

    def holding_at(self, seat: int, step: int) -> int:
        """The index (in ``by_seat[seat]``) of the holding the record's event ``step``
        was made in."""
        held = self.by_seat[seat]
        index = 0
        for i, holding in enumerate(held):
            if holding.step <= step:
                index = i
        return index

    def rated_holder(self, seat: int) -> Holding | None:
        """The holder a seat is rated for: the one who finished the most hands (the
        earlier on a tie), if that is at least half of the match's hands."""
        held = self.by_seat[seat]
        best = max(held, key=lambda h: (h.hands, -h.since_seq))
        if len(held) == 1 or 2 * best.hands >= self.hands:
            return best
        return None

    def main_holder(self, seat: int) -> Holding:
        """The holder who finished the most hands at the seat (the earlier on a tie)."""
        return max(self.by_seat[seat], key=lambda h: (h.hands, -h.since_seq))


def unchanged(players: Mapping[int, str | None], hands: int) -> Holdings:
    """The holdings of a match whose seats never changed hands."""
    return Holdings(
        {n: (Holding(n, players.get(n), 0, 0, 1, 1, hands=hands),) for n in SEATS}, hands
    )


def fold_holdings(
    rows: Iterable[tuple[int, dict]],
    first: Mapping[int, str | None],
    last: Mapping[int, str | None],
) -> Holdings:
    """The holdings from a table's log ``rows`` ((seq, payload), in seq order, up to the
    match's end). ``first``: each seat's holder at the start when no handover says who
    it was (a handover's ``from`` does); ``last``: the seats' holders now, for a seat
    handed to nobody (a casual player left) and taken since by a join, which writes no
    event (the next handover's ``from`` says who, else ``last``)."""
    started: dict[int, list[Holding]] = {n: [] for n in SEATS}
    pending: list[dict] = []  # handovers waiting for the next engine event
    replay = Replay()
    step = 0
    hand, turns = 1, 0  # the hand of the next event, and the moves laid in it so far
    hands_by_seat: dict[int, list[int]] = {n: [] for n in SEATS}  # per holding, hands ended
    for seq, payload in rows:
        kind = payload.get("type")
        if kind == "seat_handover":
            pending.append({**payload, "seq": seq})
            continue
        if kind in SERVER_EVENT_TYPES:
            continue
        if kind == "deal":
            turns = 0
        if pending:
            next_hand = hand
            move = turns + 1
            for handover in pending:
                _begin(started, hands_by_seat, handover, step, next_hand, move)
            pending = []
        done = replay.apply(payload)
        if kind in TURNS:
            turns += 1
        for _ in done.hand_results:
            for n in SEATS:
                if not started[n]:
                    started[n].append(Holding(n, first.get(n), 0, 0, 1, 1))
                    hands_by_seat[n].append(0)
                hands_by_seat[n][-1] += 1
        if done.hand_results:
            hand = done.hand_results[-1].hand_no + 1
        step += 1
    for handover in pending:  # a live match: the newest handovers have no event after them
        _begin(started, hands_by_seat, handover, step, hand, turns + 1)
    by_seat = {}
    for n in SEATS:
        held = started[n] or [Holding(n, first.get(n), 0, 0, 1, 1)]
        counts = hands_by_seat[n] or [0]
        filled = []
        for i, holding in enumerate(held):
            player = holding.player
            if player is None:  # handed to nobody, then joined: who held it after
                player = held[i + 1].previous if i + 1 < len(held) else last.get(n)
            filled.append(replace(holding, player=player, hands=counts[i]))
        for i in range(1, len(filled)):
            filled[i] = replace(filled[i], previous=filled[i - 1].player)
        by_seat[n] = tuple(filled)
    # every hand that ended is counted once at each seat: seat 1's holdings have them all
    return Holdings(by_seat, sum(h.hands for h in by_seat[1]))


def _begin(
    started: dict[int, list[Holding]],
    hands_by_seat: dict[int, list[int]],
    handover: dict,
    step: int,
    hand: int,
    move: int,
) -> None:
    seat = handover["seat"]
    if not started[seat]:
        started[seat].append(Holding(seat, handover.get("from"), 0, 0, 1, 1))
        hands_by_seat[seat].append(0)
    started[seat].append(
        Holding(
            seat,
            handover.get("to"),
            handover["seq"],
            step,
            hand,
            move,
            previous=handover.get("from"),
            reason=handover.get("reason"),
            note=handover.get("note") or "",
        )
    )
    hands_by_seat[seat].append(0)


def by_holding(decisions: list[dict], held: Holdings) -> dict[tuple[int, int], list[dict]]:
    """An analysis's decisions grouped by who made them: (seat, index of the holding in
    ``held.by_seat[seat]``) -> that holding's decisions, in record order."""
    made: dict[tuple[int, int], list[dict]] = {}
    for d in decisions:
        made.setdefault((d["seat"], held.holding_at(d["seat"], d["at"])), []).append(d)
    return made


# -- reads -------------------------------------------------------------------------------------
def match_holdings(match: LeagueMatch) -> Holdings:
    """Who held each seat of ``match`` when. Over the log up to the match's end (its
    whole log while it is played)."""
    drawn = dict(
        LeagueMatchSeat.objects.filter(match=match).values_list("number", "player__username")
    )
    log = Event.objects.filter(table_id=match.table_id)
    if match.end_seq is not None:
        log = log.filter(seq__lte=match.end_seq)
    if not log.filter(type="seat_handover").exists():
        return unchanged(drawn, match.hands)
    now = dict(
        Seat.objects.filter(table_id=match.table_id).values_list("number", "player__username")
    )
    first = {n: drawn.get(n, now.get(n)) for n in SEATS}
    rows = log.order_by("seq").values_list("seq", "payload")
    return fold_holdings(rows.iterator(), first, now)
