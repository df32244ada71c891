"""The fold: a match record (a list of events) folded into the state of the table.

``Match.apply(event)`` either applies one record event or raises ``IllegalEventError``
and leaves the match exactly as it was. Undo, redo, restart and new match are
projections too: the match keeps snapshots of its own state at the points those
commands return to, so none of them replays the log.

The events' shapes and parsing are ``engine.events``; reading and writing a record is
``engine.record``; folding a record while noticing each hand's end is ``engine.replay``.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from engine.core import (
    EMPTY,
    FIT_MASK,
    LEFT,
    RIGHT,
    HandCore,
    block_winner,
    deal_masks,
    holder_of,
    is_dekabes,
)
from engine.encoding import END_NAMES, line_view, play_event, turns_view
from engine.errors import IllegalEventError
from engine.events import (
    TABLE_COMMAND_SET,
    check_shape,
    deal_record,
    is_seat_number,
    parse_deal,
    parse_end,
    parse_seat_kinds,
)
from engine.phases import HAND_IN_PROGRESS, Phase
from engine.seats import SEATS, TEAM_INDEX, TEAM_SEATS, TEAMS, Team, seat_key, team_of
from engine.tiles import (
    DOUBLE_MASK,
    DOUBLE_SIX,
    NUM_MASK,
    OTHER,
    TILE_HI,
    TILE_LO,
    TILE_TEXT,
    hands_pips,
    mask_texts,
    tile_id,
)

if TYPE_CHECKING:
    import weakref

Emit = Callable[[dict[str, Any]], None]
Picker = Callable[[str, int], int]
"""``pick(phase, count) -> index`` of the listed legal event a player chooses."""
RandBits = Callable[[int], int]
"""A ``random.Random``'s ``getrandbits`` (see ``Match.advance``)."""
WINNING_SCORE = 4
# _PLACES[tile][left * 7 + right]: the (end, end name) pairs where the tile attaches.
_FIT_PLACES = (
    (),
    ((RIGHT, END_NAMES[RIGHT]),),
    ((LEFT, END_NAMES[LEFT]),),
    ((LEFT, END_NAMES[LEFT]), (RIGHT, END_NAMES[RIGHT])),
)
_PLACES = tuple(
    # by whether it fits the left number and the right one: four tuples, shared (a few
    # hundred microseconds less at start-up than a tuple per entry)
    tuple(_FIT_PLACES[2 * fits_left + fits_right] for fits_left in fits for fits_right in fits)
    for fits in [[OTHER[t][n] >= 0 for n in range(7)] for t in range(28)]
)
_Listed = tuple[dict[str, Any], int, int | None, str, str | None]
Turn = tuple[int, int, int | None, int, int]
"""(seat index, tile id or -1 for a pass, end or None, left, right before it)"""
HandStart = tuple[Phase, int | None, int, bool]
# (pickers tuple, the pickers of bot seats, their randbits, their claims, whether every
# seat draws and claims): see advance
_Prepared = tuple[object, list[Any], list[Any], list[bool], bool]
"""(phase, opener, seat to act, must open 6-6) as the hand in progress began."""
# Tables by [left][right], the open ends (two lookups are quicker than left * 7 + right
# and one): the tiles that fit at least one end (core.FIT_MASK), and those that fit both.
_FIT_BY_ENDS = tuple(FIT_MASK[7 * a : 7 * a + 7] for a in range(7))
_BOTH_BY_ENDS = tuple(tuple(NUM_MASK[a] & NUM_MASK[b] for b in range(7)) for a in range(7))
# _NEXT_TO_ACCEPT[accepted]: the lowest seat index that has not accepted (-1: none)
_NEXT_TO_ACCEPT = tuple(next((i for i in range(4) if not a >> i & 1), -1) for a in range(16))
# _OPENERS[i]: the seat indexes of i's team in seat order (the listed opener choices)
_OPENERS = tuple(tuple(s - 1 for s in TEAM_SEATS[team_of(seat)]) for seat in SEATS)
# _NEXT_SEAT[i]: the seat index after i (a lookup is quicker than (i + 1) & 3)
_NEXT_SEAT = (1, 2, 3, 0)
# _BIT_LENGTH[n] == n.bit_length() for a count of listed play events (at most 14)
_BIT_LENGTH = tuple(n.bit_length() for n in range(15))


class FoldState:
    """Everything the fold knows at one moment. Copies are cheap snapshots.

    ``Match.state()`` hands it to the seat view's encoders (``engine.view``) to read;
    nobody outside this module changes it.

    ``results`` (one ``Reveal`` per finished hand of the effective history, the newest
    is the view's ``last_hand``) is never mutated once built, so copies share it.
    """

    __slots__ = (
        "phase",
        "seats",
        "rated",
        "hand_no",
        "first_hand",
        "redeal_pending",
        "redeals",
        "scores",
        "base",
        "winner",
        "core",
        "dealt",
        "accepted",
        "representative",
        "opener",
        "turns",
        "results",
        "hand_start",
    )

    def __init__(self, seats: tuple[str, ...], rated: bool) -> None:
        self.phase: Phase = "deal"
        self.seats = seats
        self.rated = rated
        self.hand_no = 0
        self.first_hand = True
        self.redeal_pending = False
        self.redeals = 0  # redeals claimed in this match
        self.scores: tuple[int, ...] = (0, 0)  # team A, team B
        self.base = 1
        self.winner: int | None = None
        self.core = HandCore()
        self.dealt: tuple[int, ...] = (0, 0, 0, 0)
        self.accepted = 0  # bit i: seat index i accepted the current deal
        self.representative: int | None = None  # who chooses the opener of the next hand
        self.opener: int | None = None  # who opened the current hand
        self.turns: list[
            tuple[int, int, int | None, int, int]
        ] = []  # (seat, tile or -1, end, left, right)
        self.results: tuple[Reveal, ...] = ()
        # how the hand in progress began (restart_hand returns there), None between hands
        self.hand_start: HandStart | None = None

    def copy(self) -> FoldState:
        new = FoldState.__new__(FoldState)
        # written out (not a loop over the slots): a snapshot is taken every hand
        new.phase = self.phase
        new.seats = self.seats
        new.rated = self.rated
        new.hand_no = self.hand_no
        new.first_hand = self.first_hand
        new.redeal_pending = self.redeal_pending
        new.redeals = self.redeals
        new.scores = self.scores
        new.base = self.base
        new.winner = self.winner
        new.core = self.core.copy()
        new.dealt = self.dealt
        new.accepted = self.accepted
        new.representative = self.representative
        new.opener = self.opener
        new.turns = self.turns.copy()
        new.results = self.results
        new.hand_start = self.hand_start
        return new

    @property
    def line(self) -> list[tuple[int, int, int, int]]:
        """The line as laid, left to right: (tile id, left number, right number, seat
        index) per tile, worked out from ``turns`` (no play pays for it)."""
        return line_of(self.turns)

    @property
    def lacks(self) -> list[int]:
        """Bit n of ``lacks[i]``: seat index i is known to hold no tile with n (it
        passed with n at an end), worked out from ``turns`` (no pass pays for it)."""
        lacks = [0, 0, 0, 0]
        for seat, tid, _end, left, right in self.turns:
            if tid < 0:
                lacks[seat] |= (1 << left) | (1 << right)
        return lacks

    @property
    def last_hand(self) -> Reveal | None:
        """The newest finished hand of the effective history (None before the first)."""
        return self.results[-1] if self.results else None


class Match:
    """A match folded from its record. Seats are numbered 1..4 in the public API."""

    def __init__(self) -> None:
        self._s: FoldState | None = None
        self._start: FoldState | None = None  # right after match_started, for new_match
        self._effective: list[dict[str, Any]] = []  # events since the last restart/new match
        self._checkpoints: list[
            tuple[int, FoldState]
        ] = []  # (position in _effective, state before)
        self._redo_stack: list[list[dict[str, Any]]] = []  # segments undo removed, newest last
        # Lazy seat views still alive that read this state; frozen before it changes.
        self._views: list[weakref.ref[Freezable]] = []
        # the listed play events of the current state: (event, tile, end, text, end name)
        self._legal_cache: list[_Listed] | None = None
        # advance's reading of the pickers tuple it was last given
        self._prepared: _Prepared | None = None

    # -- building --------------------------------------------------------------------
    @classmethod
    def from_events(cls, events: Iterable[object]) -> Match:
        """Fold a whole record; a rejection raises with ``index`` set to its position."""
        match = cls()
        for index, event in enumerate(events):
            try:
                match.apply(event)
            except IllegalEventError as err:
                err.index = index
                raise
        return match

    def copy(self) -> Match:
        new = Match.__new__(Match)
        new._s = self._s.copy() if self._s else None
        new._start = self._start
        new._effective = self._effective.copy()
        new._checkpoints = self._checkpoints.copy()
        new._redo_stack = [seg.copy() for seg in self._redo_stack]
        new._views = []
        new._legal_cache = None
        new._prepared = None
        return new

    # -- the one entry point ---------------------------------------------------------
    def apply(self, event: object) -> None:
        """Apply one record event, or raise ``IllegalEventError`` and change nothing."""
        if self._views:
            self._freeze_views()
        cached = self._legal_cache
        if cached is not None:
            self._legal_cache = None
            if self._apply_listed(event, cached):
                return
        kind, seat = check_shape(event)
        s = self._s
        if kind in TABLE_COMMAND_SET:
            if s is None:
                raise IllegalEventError("wrong_phase", "the match has not started")
            if s.rated:
                raise IllegalEventError(
                    "not_allowed_in_rated", f"{kind} is not allowed in a rated match"
                )
            getattr(self, "_" + kind)()
            return
        self._do(kind, seat, cast("dict[str, Any]", event))  # check_shape: a dict
        self._redo_stack.clear()

    def _apply_listed(self, event: object, cached: list[_Listed]) -> bool:
        """The fast path for a play event this state listed as legal and nobody changed:
        same object, same field values (checked by identity: any edit falls back to the
        full checks). Legal moves are thus worked out once per state."""
        s = self._s
        for listed, tid, end, text, end_name in cached:
            if listed is event and s is not None:
                # seat by identity: True == 1, but True is no seat number (bad_event)
                if (
                    listed.get("type") != "play"
                    or listed.get("tile") != text
                    or listed.get("end") != end_name
                    or listed.get("seat") is not s.core.to_act + 1
                ):
                    return False
                checkpoint = _lay(s, s.core.to_act, tid, end)
                if checkpoint is not None:
                    self._checkpoints.append((len(self._effective), checkpoint))
                self._effective.append(event)
                self._redo_stack.clear()
                return True
        return False

    def listed_legal_events(self, seat: int) -> list[dict[str, Any]]:
        """``legal_events(seat)``, remembered until the next ``apply`` so that applying
        one of them skips the checks (legal moves worked out once per state)."""
        s = self._s
        if s is None or s.phase != "play" or s.core.to_act != seat - 1:
            return self.legal_events(seat)
        core = s.core
        mask = core.playable_mask(seat - 1)
        if not mask:
            return [{"type": "pass", "seat": seat}]
        events: list[dict[str, Any]] = []
        cached: list[_Listed] = []
        if core.left == EMPTY:
            while mask:
                low = mask & -mask
                mask ^= low
                tid = low.bit_length() - 1
                text = TILE_TEXT[tid]
                event: dict[str, Any] = {"type": "play", "seat": seat, "tile": text}
                events.append(event)
                cached.append((event, tid, None, text, None))
        else:
            ends = core.left * 7 + core.right
            while mask:
                low = mask & -mask
                mask ^= low
                tid = low.bit_length() - 1
                text = TILE_TEXT[tid]
                for end, end_name in _PLACES[tid][ends]:
                    event = {"type": "play", "seat": seat, "tile": text, "end": end_name}
                    events.append(event)
                    cached.append((event, tid, end, text, end_name))
        self._legal_cache = cached
        return events

    # -- the driver's trusted steps (``engine.autoplay``) -----------------------------
    def deal(
        self, rng: random.Random, emit: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        """Shuffle with ``rng`` and deal: exactly ``apply(deal_event(rng))``, without
        writing the event out and reading it back. ``emit`` gets the event (a record)."""
        s = self._s
        if s is None or s.phase != "deal":
            raise IllegalEventError("wrong_phase", "no deal is due now")
        if self._views:
            self._freeze_views()
        self._legal_cache = None
        self._deal_now(s, rng, emit)

    def _deal_now(self, s: FoldState, rng: random.Random, emit: Emit | None) -> None:
        """The deal in phase ``deal``, views frozen and the legal cache dropped."""
        hands = deal_masks(rng)
        _begin_deal(s, hands)
        if self._redo_stack:
            self._redo_stack.clear()
        if emit is not None or self._checkpoints:
            event = deal_record(hands)
            self._effective.append(event)
            if emit is not None:
                emit(event)

    def advance(
        self,
        pickers: Sequence[Picker | None],
        emit: Callable[[dict[str, Any]], None] | None = None,
        deal_rng: random.Random | None = None,
        deal_until: int | None = None,
    ) -> None:
        """Play on while the seat to decide has a picker; forced passes are made too.

        ``pickers[i]`` (or None) decides for seat ``i + 1``: ``pick(phase, count)``
        returns the index, in ``listed_legal_events``' order, of the event it chooses
        among ``count``. The events are the engine's own legal moves, so they are not
        checked again, and built as dicts only if ``emit`` wants them (or an undo
        checkpoint needs them). It stops at a deal, at the end of the match, or at a
        seat without a picker (only seats of kind ``bot`` use theirs). Applying the
        chosen events one by one with ``apply`` gives exactly the same match.

        A picker may also have ``randbits``, a ``random.Random``'s own ``getrandbits``
        (or None): it promises that its choice in the phases ``choose_opener`` and
        ``play`` is that rng's ``randrange(count)``, and the fold then draws the number
        itself, exactly as ``random.Random`` does (the same draws, without the calls).
        A picker whose ``claims`` is True promises that its choice in the phase ``accept``
        is ``count - 1`` (it claims a redeal whenever entitled, as computer seats do) with
        no side effect: the fold then makes that choice without calling it.

        ``pickers`` given as a tuple is read once: calling again with the same tuple
        (``autoplay`` does, every match) reuses what was read from it, ``randbits`` and
        ``claims`` included.

        ``deal_rng``: a deal that is due is made with it too (as ``deal`` does) while
        fewer than ``deal_until`` hands of the match have ended (None: no limit), so
        whole hands are played on; without it, advance stops at a deal.
        """
        s = self._s
        if s is None or s.phase == "match_over":
            return
        if s.phase == "deal" and not _deals(s, deal_rng, deal_until):
            return
        if self._views:
            self._freeze_views()
        self._legal_cache = None
        prepared = self._prepared
        if prepared is not None and prepared[0] is pickers:
            _, seated, draws, claims, drawn = prepared
        else:
            seated, draws, claims = [], [], []
            for pick, kind in zip(pickers, s.seats, strict=True):
                seat_pick = pick if kind == "bot" else None
                seated.append(seat_pick)
                draws.append(getattr(seat_pick, "randbits", None))
                claims.append(getattr(seat_pick, "claims", False) is True)
            drawn = all(claims) and None not in draws
            # the seats' kinds never change in a match: a tuple's reading can be kept
            prepared = (pickers, seated, draws, claims, drawn)
            self._prepared = prepared if type(pickers) is tuple else None
        pickers = seated
        record = emit is not None or bool(self._checkpoints)
        moved = False
        try:
            if drawn and not record and deal_rng is not None and s.phase == "deal":
                # to the match's end or the last hand wanted: nothing left for _advance
                moved = _play_drawn_hands(s, pickers, draws, deal_rng, deal_until)
            else:
                moved = self._advance(s, pickers, draws, claims, emit, record, deal_rng, deal_until)
        finally:
            if moved:
                self._redo_stack.clear()

    def _advance(
        self,
        s: FoldState,
        pickers: list[Picker | None],
        draws: list[RandBits | None],
        claims: list[bool],
        emit: Emit | None,
        record: bool,
        deal_rng: random.Random | None,
        deal_until: int | None,
    ) -> bool:
        moved = False
        while True:
            phase = s.phase
            if phase == "play":
                moved = self._play_picked(s, pickers, draws, emit, record) or moved
                if s.phase == "play":
                    break  # a seat without a picker is to act
                continue
            if phase == "accept":
                index = _NEXT_TO_ACCEPT[s.accepted]
                pick = pickers[index]
                if pick is None:
                    break
                if claims[index] and not record:  # claims when entitled: the transitions
                    moved = True
                    dealt, accepted = s.dealt, s.accepted
                    while True:  # this seat and the next ones that claim alike
                        if (dealt[index] & DOUBLE_MASK).bit_count() >= 5:
                            _redeal(s)
                            break
                        accepted |= 1 << index
                        s.accepted = accepted
                        if accepted == 0b1111:
                            _start_hand(s)
                            break
                        index = _NEXT_TO_ACCEPT[accepted]
                        if pickers[index] is None or not claims[index]:
                            break
                    continue
                count = 2 if (s.dealt[index] & DOUBLE_MASK).bit_count() >= 5 else 1
                # 1: the redeal claim, listed second
                claim = count - 1 if claims[index] else _checked_pick(pick, phase, count)
                moved = True
                if not record:  # the event is not kept: only its transition
                    if claim:
                        _redeal(s)
                    else:
                        _accept_deal(s, index)
                    continue
                kind = "claim_redeal" if claim else "accept"
                event: dict[str, Any] = {"type": kind, "seat": index + 1}
            elif phase == "choose_opener":
                index = _required(s.representative)
                pick = pickers[index]
                if pick is None:
                    break
                opener = _OPENERS[index][_drawn_pick(pick, draws[index], phase, 2)]
                moved = True
                if not record:  # the event is not kept: only its transition (a bot's)
                    _set_opener(s, opener)
                    continue
                kind = "choose_opener"
                event = {"type": kind, "seat": index + 1, "opener": opener + 1}
            elif phase == "deal" and _deals(s, deal_rng, deal_until):
                self._deal_now(s, cast("random.Random", deal_rng), emit)
                moved = True
                continue
            else:  # a deal not to make here, match_over
                break
            self._do(kind, index, event)
            if emit is not None:
                emit(event)
        return moved

    def _play_picked(
        self,
        s: FoldState,
        pickers: list[Picker | None],
        draws: list[RandBits | None],
        emit: Emit | None,
        record: bool,
    ) -> bool:
        """The play phase on locals: plays and passes while the seat to act has a picker
        or must pass; True if any was made. The same transitions as ``_lay`` and
        ``_pass`` (a test checks both give the same records), inlined because this is
        self-play's hot loop. The events, when kept, are written afterwards from the
        turns: the loop itself only plays."""
        core = s.core
        turns = s.turns
        turns_before = len(turns)  # every play and pass adds a turn
        ended = None
        try:  # the fold is written back even if a picker fails
            if core.left != EMPTY or _open_picked(s, pickers, draws):
                ended = _play_on(s, pickers, draws)
        finally:
            if record:
                self._record_turns(turns, turns_before, emit)
        if ended == "block":
            _end_hand(s, "block", None, False)
        elif ended is not None:  # the seat before the one to act went out
            _end_hand(s, "domino", (core.to_act - 1) & 3, ended == "dekabes")
        return len(turns) != turns_before

    def _record_turns(self, turns: list[Turn], start: int, emit: Emit | None) -> None:
        """The events of ``turns[start:]`` (made by ``_play_picked``), kept in the record
        (undo needs them) and passed to ``emit``, in order."""
        effective = self._effective
        for seat, tid, end, _left, _right in turns[start:]:
            if tid < 0:
                event: dict[str, Any] = {"type": "pass", "seat": seat + 1}
            else:
                event = play_event(seat + 1, tid, end)
            effective.append(event)
            if emit is not None:
                emit(event)

    def _before_change(self) -> None:
        if self._views:
            self._freeze_views()
        self._legal_cache = None

    def _freeze_views(self) -> None:
        """Lazy views read the live state: let them copy what they show before it moves."""
        for ref in self._views:
            view = ref()
            if view is not None:
                view.freeze()
        self._views.clear()

    def watch(self, view: Freezable) -> None:
        """Call ``view.freeze()`` before the state changes next (lazy views that read
        the live state take their snapshot then). Kept by weak reference."""
        import weakref  # here, not at start-up: self-play takes no view

        views = self._views
        if len(views) >= 64:  # views taken without any event in between: drop dead ones
            views[:] = [ref for ref in views if ref() is not None]
        views.append(weakref.ref(view))

    def _do(self, kind: str, seat: int, event: dict[str, Any]) -> None:
        if kind == "match_started":
            self._match_started(event)
            return
        s = self._s
        if s is None:
            raise IllegalEventError("wrong_phase", "the match has not started")
        handler = _HANDLERS[kind]
        checkpoint = handler(self, s, seat, event)
        if checkpoint is not None:
            self._checkpoints.append((len(self._effective), checkpoint))
        self._effective.append(event)

    # -- events ----------------------------------------------------------------------
    def _match_started(self, event: dict[str, Any]) -> None:
        if self._s is not None:
            raise IllegalEventError("wrong_phase", "the match has already started")
        seats = event.get("seats")
        kinds = parse_seat_kinds(seats)
        rated = event.get("rated", False)
        if not isinstance(rated, bool):
            raise IllegalEventError("bad_event", "rated must be true or false")
        self._s = FoldState(kinds, rated)
        self._start = self._s.copy()
        self._effective = [event]

    def _deal(self, s: FoldState, seat: int, event: dict[str, Any]) -> FoldState | None:
        hands = parse_deal(event)
        if s.phase != "deal":
            raise IllegalEventError("wrong_phase", "no deal is due now")
        _begin_deal(s, hands)
        return None

    def _accept(self, s: FoldState, seat: int, event: dict[str, Any]) -> FoldState | None:
        if s.phase != "accept":
            raise IllegalEventError("wrong_phase", "there is no deal to accept")
        if s.accepted >> seat & 1:
            raise IllegalEventError("already_accepted", "you have already accepted this deal")
        _accept_deal(s, seat)
        return None

    def _claim_redeal(self, s: FoldState, seat: int, event: dict[str, Any]) -> FoldState | None:
        if s.phase != "accept":
            raise IllegalEventError("wrong_phase", "there is no deal to refuse")
        if s.accepted >> seat & 1:
            raise IllegalEventError("already_accepted", "you have already accepted this deal")
        if (s.dealt[seat] & DOUBLE_MASK).bit_count() < 5:
            raise IllegalEventError("not_entitled", "a redeal needs five or more doubles")
        _redeal(s)
        return None

    def _choose_opener(self, s: FoldState, seat: int, event: dict[str, Any]) -> FoldState | None:
        opener = event.get("opener")
        if not is_seat_number(opener):
            raise IllegalEventError("bad_event", "opener must be a seat number 1-4")
        if s.phase != "choose_opener":
            raise IllegalEventError("wrong_phase", "no opener is to be chosen now")
        if seat != s.representative:
            raise IllegalEventError(
                "not_representative", "only your team's representative chooses the opener"
            )
        chosen = opener - 1
        if TEAM_INDEX[chosen] != TEAM_INDEX[seat]:
            raise IllegalEventError("opener_not_on_team", "the opener must be you or your partner")
        before = s.copy() if s.seats[seat] == "human" else None
        _set_opener(s, chosen)
        return before

    def _play(self, s: FoldState, seat: int, event: dict[str, Any]) -> FoldState | None:
        tid = tile_id(event.get("tile"))
        end = parse_end(event)
        if s.phase != "play":
            raise IllegalEventError("wrong_phase", "tiles are not being played now")
        core = s.core
        if seat != core.to_act:
            raise IllegalEventError("not_your_turn", "it is not your turn")
        if not core.hands[seat] >> tid & 1:
            raise IllegalEventError("tile_not_in_hand", f"{TILE_TEXT[tid]} is not in your hand")
        left, right = core.left, core.right
        if left == EMPTY:
            if core.must_open_66 and tid != DOUBLE_SIX:
                raise IllegalEventError(
                    "must_open_double_six", "the first hand of a match opens with 6-6"
                )
            end = None
        else:
            end = _choose_end(tid, end, left, right)
        return _lay(s, seat, tid, end)

    def _pass(self, s: FoldState, seat: int, event: dict[str, Any]) -> FoldState | None:
        if s.phase != "play":
            raise IllegalEventError("wrong_phase", "tiles are not being played now")
        core = s.core
        if seat != core.to_act:
            raise IllegalEventError("not_your_turn", "it is not your turn")
        if core.playable_mask(seat):
            raise IllegalEventError("must_play", "you can play, so you must")
        s.turns.append((seat, -1, None, core.left, core.right))
        if core.pass_turn():
            _end_hand(s, "block", None, False)
        return None

    # -- table commands --------------------------------------------------------------
    def _undo(self) -> None:
        if not self._checkpoints:
            raise IllegalEventError("nothing_to_undo", "there is no human move to take back")
        position, before = self._checkpoints.pop()
        self._redo_stack.append(self._effective[position:])
        del self._effective[position:]
        self._s = before.copy()  # the checkpoint stays intact for copies that share it

    def _redo(self) -> None:
        if not self._redo_stack:
            raise IllegalEventError("nothing_to_redo", "there is nothing to redo")
        segment = self._redo_stack.pop()
        # The segment was legal when first applied and the state is exactly the one it
        # was applied to, so re-applying it cannot fail.
        for event in segment:
            kind, seat = check_shape(event)
            self._do(kind, seat, event)

    def _restart_hand(self) -> None:
        s = self._live()
        if s.phase not in HAND_IN_PROGRESS:
            raise IllegalEventError("wrong_phase", "there is no hand in progress to restart")
        if s.phase == "accept":
            restarted = s.copy()
            restarted.accepted = 0b1111
            _start_hand(restarted)
        else:
            restarted = _hand_start_state(s)
        self._s = restarted
        self._barrier()

    def _new_match(self) -> None:
        self._s = _required_state(self._start).copy()
        self._barrier()

    def _barrier(self) -> None:
        """Undo never reaches back past a restart or a new match."""
        self._effective = []
        self._checkpoints = []
        self._redo_stack.clear()

    def _live(self) -> FoldState:
        if self._s is None:
            raise IllegalEventError("wrong_phase", "the match has not started")
        return self._s

    # -- queries ---------------------------------------------------------------------
    @property
    def phase(self) -> Phase | None:
        return self._s.phase if self._s else None

    @property
    def seats(self) -> dict[int, str]:
        return {i + 1: kind for i, kind in enumerate(self._s.seats)} if self._s else {}

    @property
    def rated(self) -> bool:
        return bool(self._s and self._s.rated)

    @property
    def to_act(self) -> int | None:
        s = self._s
        if s is None:
            return None
        if s.phase == "play":
            return s.core.to_act + 1
        if s.phase == "choose_opener":
            return _required(s.representative) + 1
        return None

    @property
    def hand_no(self) -> int:
        return self._s.hand_no if self._s else 0

    @property
    def results(self) -> list[dict[str, Any]]:
        return [r.result() for r in self._s.results] if self._s else []

    @property
    def hands_finished(self) -> int:
        """``len(results)`` without copying them."""
        return len(self._s.results) if self._s else 0

    @property
    def winner(self) -> Team | None:
        """The team that won the match, once it is over."""
        s = self._s
        return None if s is None or s.winner is None else TEAMS[s.winner]

    @property
    def redeals(self) -> int:
        """Redeals claimed in this match (the state's history: undo takes one back)."""
        return self._s.redeals if self._s else 0

    @property
    def last_result(self) -> dict[str, Any] | None:
        """The newest entry of ``results`` (a copy), or None."""
        if not self._s or not self._s.results:
            return None
        return self._s.results[-1].result()

    def needs_deal(self) -> bool:
        return self.phase == "deal"

    def forced_pass(self) -> dict[str, Any] | None:
        s = self._s
        if s and s.phase == "play" and not s.core.playable_mask(s.core.to_act):
            return {"type": "pass", "seat": s.core.to_act + 1}
        return None

    def can_undo(self) -> bool:
        return bool(self._checkpoints) and not self.rated

    def kept_size(self) -> int:
        """How many events and undo points this match holds (its events since the last
        restart or new match, a state before each undoable one, what undo took back):
        what its memory grows with, about 1 KB each. For callers that bound how many
        matches they keep by size, not count."""
        taken_back = sum(len(segment) for segment in self._redo_stack)
        return len(self._effective) + len(self._checkpoints) + taken_back

    def can_redo(self) -> bool:
        return bool(self._redo_stack) and not self.rated

    def legal_events(self, seat: int) -> list[dict[str, Any]]:
        """Every legal non-table event for ``seat`` (1..4) right now."""
        s = self._s
        if s is None or not is_seat_number(seat):
            return []
        return _legal_events_of(s, seat)

    def hand_of(self, seat: int) -> list[str]:
        """Tiles ``seat`` holds now (sorted). For the seat itself or after the hand."""
        return mask_texts(self._s.core.hands[seat - 1]) if self._s else []

    def state(self) -> FoldState | None:
        """The fold's current state, for the seat view's encoders only (read it, never
        change it; it changes with the next ``apply``)."""
        return self._s

    def summary(self) -> dict[str, Any]:
        s = self._s
        if s is None:  # nothing folded yet: an empty table
            return {
                "phase": None,
                "hand_no": 0,
                "to_act": None,
                "scores": {"A": 0, "B": 0},
                "base": 1,
                "winner": None,
                "ends": None,
                "hands_left": {seat_key(i): [] for i in range(4)},
                "results": [],
            }
        core = s.core
        ends = None if core.left == EMPTY else [core.left, core.right]
        return {
            "phase": s.phase,
            "hand_no": s.hand_no,
            "to_act": self.to_act,
            "scores": {"A": s.scores[0], "B": s.scores[1]},
            "base": s.base,
            "winner": None if s.winner is None else TEAMS[s.winner],
            "ends": ends,
            "hands_left": {seat_key(i): mask_texts(core.hands[i]) for i in range(4)},
            "results": self.results,
        }

    def seat_view(self, seat: int) -> dict[str, Any]:
        """The seat view as a plain dict (JSON), see ``engine.view``."""
        return _view_class()(self, seat, False).to_dict()

    def view(self, seat: int) -> SeatViewBase:
        """The same seat view, computed lazily: a read-only mapping whose entries are
        built on first access (a bot that reads only ``legal`` pays only for that). It
        shows the moment it was taken, also after the match moves on."""
        view = _view_class()(self, seat, True)
        self.watch(view)
        return view

    def __repr__(self) -> str:
        if self._s is None:
            return "Match()"
        s = self._s
        return (
            f"<Match phase={s.phase} hand_no={s.hand_no} scores={s.scores} base={s.base} "
            f"to_act={self.to_act}>"
        )


def _legal_events_of(s: FoldState, seat: int) -> list[dict[str, Any]]:
    """Every legal non-table event for seat number ``seat`` in state ``s``."""
    index = seat - 1
    if s.phase == "accept":
        if s.accepted >> index & 1:
            return []
        events = [{"type": "accept", "seat": seat}]
        if (s.dealt[index] & DOUBLE_MASK).bit_count() >= 5:
            events.append({"type": "claim_redeal", "seat": seat})
        return events
    if s.phase == "choose_opener":
        if index != s.representative:
            return []
        return [{"type": "choose_opener", "seat": seat, "opener": o + 1} for o in _OPENERS[index]]
    if s.phase == "play" and s.core.to_act == index:
        placements = s.core.placements(index)
        if not placements:
            return [{"type": "pass", "seat": seat}]
        return [play_event(seat, tid, end) for tid, end in placements]
    return []


class Reveal:
    """A finished hand, all four hands shown (RULES §5): an entry of ``results``, the
    view's ``last_hand``, and what ``engine.replay.HandResult`` is read from.

    Kept compact (masks and tuples) and written out as JSON only when asked.
    ``record`` is the ``results`` entry; ``scores`` (team A, team B) and ``base`` are
    the match's right after the hand.
    """

    __slots__ = (
        "record",
        "hands",
        "dealt",
        "turns",
        "opener",
        "scores",
        "base",
        "_shared",
        "_shared_result",
    )

    def __init__(
        self,
        record: dict[str, Any],
        hands: tuple[int, ...],
        dealt: tuple[int, ...],
        turns: tuple[tuple[int, int, int | None, int, int], ...],
        opener: int | None,
        scores: tuple[int, ...],
        base: int,
    ) -> None:
        self.record = record
        self.hands = hands
        self.dealt = dealt
        self.turns = turns
        self.opener = opener
        self.scores = scores
        self.base = base
        # as_dict() and result() built once, on first use, for the seat views (below)
        self._shared: dict[str, Any] | None = None
        self._shared_result: dict[str, Any] | None = None

    @property
    def line(self) -> tuple[tuple[int, int, int, int], ...]:
        """The final line (see ``FoldState.line``), worked out from ``turns``."""
        return tuple(line_of(self.turns))

    def result(self) -> dict[str, Any]:
        """The ``results`` entry, a fresh copy (callers may change it)."""
        return dict(self.record, pips=dict(self.record["pips"]))

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        # pickled (server snapshots) without the shared dicts: they are built again on use
        return None, {name: getattr(self, name) for name in _REVEAL_FIELDS}

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for name, value in state[1].items():
            setattr(self, name, value)
        self._shared = self._shared_result = None

    # The seat view shows every finished hand's result and the last hand whole, in every
    # view until the match ends; built once per hand and shared they cost nothing (they
    # were half of a view's building time, and the server builds two views an action).
    # Read-only: copy one before changing it.
    def shared_dict(self) -> dict[str, Any]:
        """``as_dict()``, built once and shared (read-only)."""
        shared = self._shared
        if shared is None:
            shared = self._shared = self.as_dict()
        return shared

    def shared_result(self) -> dict[str, Any]:
        """``result()``, built once and shared (read-only)."""
        shared = self._shared_result
        if shared is None:
            shared = self._shared_result = self.result()
        return shared

    def as_dict(self) -> dict[str, Any]:
        """A fresh JSON dict every call (callers may change it)."""
        return dict(
            self.record,
            pips=dict(self.record["pips"]),
            hands={seat_key(i): mask_texts(self.hands[i]) for i in range(4)},
            dealt={seat_key(i): mask_texts(self.dealt[i]) for i in range(4)},
            line=line_view(self.line),
            turns=turns_view(self.turns),
            opener=None if self.opener is None else self.opener + 1,
        )


_REVEAL_FIELDS = tuple(name for name in Reveal.__slots__ if not name.startswith("_"))


def line_of(
    turns: Iterable[tuple[int, int, int | None, int, int]],
) -> list[tuple[int, int, int, int]]:
    """The line laid by ``turns`` (a hand's turns in order), left to right: the opening
    tile, then each tile put at the left end or at the right end."""
    lefts: list[tuple[int, int, int, int]] = []
    rights: list[tuple[int, int, int, int]] = []
    for seat, tid, end, left, right in turns:
        if tid < 0:  # a pass
            continue
        if left == EMPTY:  # the opening
            rights.append((tid, TILE_LO[tid], TILE_HI[tid], seat))
        elif end == LEFT:
            lefts.append((tid, OTHER[tid][left], left, seat))
        else:
            rights.append((tid, right, OTHER[tid][right], seat))
    lefts.reverse()
    return lefts + rights


# -- transitions ----------------------------------------------------------------------
def _begin_deal(s: FoldState, hands: list[int]) -> None:
    """A checked deal (seven distinct tiles each, all 28) in phase ``deal``."""
    if not s.redeal_pending:
        s.hand_no += 1
    s.redeal_pending = False
    s.dealt = tuple(hands)
    core = s.core = HandCore.__new__(HandCore)  # HandCore(hands), without the call's cost
    core.hands = list(hands)
    core.left = core.right = EMPTY
    core.to_act = core.passes = 0
    core.must_open_66 = False
    s.accepted = 0
    s.turns = []
    s.phase = "accept"


def _accept_deal(s: FoldState, seat: int) -> None:
    """Seat index ``seat`` accepts the deal (checked); the fourth acceptance starts the hand."""
    s.accepted |= 1 << seat
    if s.accepted == 0b1111:
        _start_hand(s)


def _redeal(s: FoldState) -> None:
    """A redeal claim (checked): the same hand is dealt again."""
    s.accepted = 0
    s.redeal_pending = True
    s.redeals += 1
    s.phase = "deal"


def _set_opener(s: FoldState, opener: int) -> None:
    """The representative's choice (checked): seat index ``opener`` opens the hand."""
    s.phase = "play"
    s.opener = opener
    s.core.to_act = opener


def _lay(s: FoldState, seat: int, tid: int, end: int | None) -> FoldState | None:
    """Seat index ``seat`` lays ``tid`` (already checked legal); the undo checkpoint."""
    core = s.core
    left, right = core.left, core.right
    before = s.copy() if s.seats[seat] == "human" else None
    dekabes = left != EMPTY and is_dekabes(tid, left, right)
    s.turns.append((seat, tid, end, left, right))
    if core.play(tid, end):
        _end_hand(s, "domino", seat, dekabes)
    return before


def _start_hand(s: FoldState) -> None:
    """All four accepted: the first hand's 6-6 holder plays, later hands choose an opener."""
    s.hand_start = None
    if s.first_hand:
        opener = holder_of(s.core.hands, DOUBLE_SIX)
        s.core.to_act = opener
        s.core.must_open_66 = True
        s.opener = opener
        s.phase = "play"
    else:
        s.core.must_open_66 = False
        s.phase = "choose_opener"
    # what the hand's start has that a state later in the hand may not (no copy: every
    # hand starts here, a restart is rare; ``_hand_start_state`` builds the state)
    s.hand_start = (s.phase, s.opener, s.core.to_act, s.core.must_open_66)


def _hand_start_state(s: FoldState) -> FoldState:
    """The state as the hand in progress began (phase choose_opener or play): nothing
    else changes from the hand's start until it ends, so the deal (``dealt``) and the
    few fields ``hand_start`` kept give it back exactly."""
    phase, opener, to_act, must_open_66 = _required_start(s.hand_start)
    start = s.copy()
    start.phase = phase
    start.opener = opener
    start.core = HandCore(s.dealt, EMPTY, EMPTY, to_act, 0, must_open_66)
    start.turns = []
    return start


def _end_hand(s: FoldState, how: str, winner_seat: int | None, dekabes: bool) -> None:
    hands = s.core.hands
    pips = hands_pips(hands)
    team: int | None
    representative: int | None
    if winner_seat is not None:  # a domino
        team, representative = winner_seat & 1, winner_seat
    else:
        team, representative = block_winner(pips)
        if team is None:
            representative = s.opener
    if team is None:
        result, points, team_name = "tie", 0, None
        s.base = 2
    else:
        result, team_name = how, TEAMS[team]
        points = s.base * 2 if dekabes else s.base
        # the winners add their points, the other team goes back to 0 (RULES §6)
        scores = s.scores
        s.scores = (scores[0] + points, 0) if team == 0 else (0, scores[1] + points)
        s.base = 1
    p1, p2, p3, p4 = pips
    record = {
        "hand_no": s.hand_no,
        "result": result,
        "team": team_name,
        "points": points,
        "dekabes": dekabes,
        "pips": {"1": p1, "2": p2, "3": p3, "4": p4},
    }
    reveal = Reveal(record, tuple(hands), s.dealt, tuple(s.turns), s.opener, s.scores, s.base)
    s.results += (reveal,)
    s.representative = representative
    s.first_hand = False
    s.hand_start = None
    if team is not None and s.scores[team] >= WINNING_SCORE:
        s.winner = team
        s.phase = "match_over"
    else:
        s.phase = "deal"


# -- helpers --------------------------------------------------------------------------
def _required_start(start: HandStart | None) -> HandStart:
    if start is None:
        raise RuntimeError("the fold's state lacks the start of the hand its phase requires")
    return start


def _required_state(state: FoldState | None) -> FoldState:
    if state is None:
        raise RuntimeError("the fold's state lacks a snapshot its phase requires")
    return state


def _required(value: int | None) -> int:
    """A seat index the phase guarantees (e.g. the representative while choosing)."""
    if value is None:
        raise RuntimeError("the fold's state lacks a seat its phase requires")
    return value


def _play_drawn_hands(
    s: FoldState,
    pickers: list[Picker | None],
    draws: list[RandBits | None],
    deal_rng: random.Random,
    until: int | None,
) -> bool:
    """``advance`` from a deal when every seat is a bot whose choices the fold draws
    (``randbits``) and that claims a redeal whenever entitled, and no event is kept:
    whole hands, the phases' transitions one after the other (no event, no dispatch on
    the phase), until the match ends or ``until`` hands have ended. True if it dealt."""
    dealt_any = False
    drawing = [randbits for randbits in draws if randbits is not None]  # all four
    while s.phase == "deal" and (until is None or len(s.results) < until):
        dealt_any = True
        hands = deal_masks(deal_rng)
        # the seats accept in turn, and the first one entitled claims: a redeal if any is
        if (
            (hands[0] & DOUBLE_MASK).bit_count() >= 5
            or (hands[1] & DOUBLE_MASK).bit_count() >= 5
            or (hands[2] & DOUBLE_MASK).bit_count() >= 5
            or (hands[3] & DOUBLE_MASK).bit_count() >= 5
        ):
            _begin_deal(s, hands)
            _redeal(s)
            continue
        _start_drawn_hand(s, hands, drawing)
        ended = _play_on(s, pickers, draws)
        if ended == "block":
            _end_hand(s, "block", None, False)
        else:  # the seat before the one to act went out
            _end_hand(s, "domino", (s.core.to_act - 1) & 3, ended == "dekabes")
    return dealt_any


def _start_drawn_hand(s: FoldState, dealt: list[int], draws: list[RandBits]) -> None:
    """A deal all four accept, every seat's choice drawn by the fold: ``_begin_deal``,
    the acceptances, ``_start_hand``, the representative's choice of opener in a later
    hand and the opening tile, with the same transitions and the same draws as through
    the phases, on locals (each field set once)."""
    if not s.redeal_pending:
        s.hand_no += 1
    s.redeal_pending = False
    s.dealt = tuple(dealt)
    s.accepted = 0b1111
    core = s.core = HandCore.__new__(HandCore)  # as in _begin_deal
    core.hands = hands = list(dealt)
    core.passes = 0
    if s.first_hand:  # the 6-6 holder opens with it: a choice among one, still drawn
        seat = holder_of(hands, DOUBLE_SIX)
        s.hand_start = ("play", seat, seat, True)
        randbits = draws[seat]
        while randbits(1):  # _draw(randbits, 1) written out, as the next two
            pass
        low = 1 << DOUBLE_SIX
    else:  # the representative chooses the opener, who lays any of its seven tiles
        s.hand_start = ("choose_opener", s.opener, 0, False)  # to_act 0: as dealt
        chooser = _required(s.representative)
        randbits = draws[chooser]
        index = randbits(2)  # randrange(2): 2 bits (its bit_length), drawn until below 2
        while index >= 2:
            index = randbits(2)
        seat = _OPENERS[chooser][index]
        randbits = draws[seat]
        index = randbits(3)  # randrange(7): three bits, drawn until below 7
        while index == 7:
            index = randbits(3)
        low = hands[seat]
        while index:
            low &= low - 1
            index -= 1
        low &= -low
    tid = low.bit_length() - 1
    s.opener = seat
    s.phase = "play"
    s.turns = [(seat, tid, None, EMPTY, EMPTY)]
    hands[seat] -= low
    core.left, core.right = TILE_LO[tid], TILE_HI[tid]
    core.must_open_66 = False
    core.to_act = _NEXT_SEAT[seat]


def _draw(randbits: RandBits, count: int) -> int:
    """``randrange(count)`` of the ``random.Random`` whose ``getrandbits`` is ``randbits``,
    drawn as its ``_randbelow`` does: the same draws, the same number."""
    bits = _BIT_LENGTH[count]
    index = randbits(bits)
    while index >= count:
        index = randbits(bits)
    return index


def _deals(s: FoldState, rng: random.Random | None, until: int | None) -> bool:
    """Whether ``advance`` deals (phase ``deal``): with an rng, below ``until`` hands."""
    return rng is not None and (until is None or len(s.results) < until)


def _open_picked(s: FoldState, pickers: list[Picker | None], draws: list[RandBits | None]) -> bool:
    """The opening tile by the picker of the seat to act (any tile; 6-6 in a match's
    first hand, still drawn as a choice among one); False if that seat has none."""
    core = s.core
    seat = core.to_act
    pick = pickers[seat]
    if pick is None:
        return False
    if core.must_open_66:
        tid = DOUBLE_SIX
        _drawn_pick(pick, draws[seat], "play", 1)
    else:
        legal = core.hands[seat]
        index = _drawn_pick(pick, draws[seat], "play", legal.bit_count())
        while index:
            legal &= legal - 1
            index -= 1
        tid = (legal & -legal).bit_length() - 1
    # _lay(s, seat, tid, None) written out: a seat with a picker is a bot's
    s.turns.append((seat, tid, None, EMPTY, EMPTY))
    core.play(tid, None)
    return True


def _play_on(
    s: FoldState, pickers: list[Picker | None], draws: list[RandBits | None]
) -> str | None:
    """Plays and passes after the opening while the seat to act has a picker or must
    pass: "domino", "dekabes" (a domino by a Dékabès) or "block" when the hand ended,
    else None.

    On locals, the fold's state written back at the end (also if a picker fails). A
    tile's bit leaves a mask by subtraction (CPython's int ``-`` has a fast path, ``^``
    and ``&`` have not)."""
    core = s.core
    hands, add_turn = core.hands, s.turns.append
    left, right, seat, passes = core.left, core.right, core.to_act, core.passes
    fit_masks, both_masks = _FIT_BY_ENDS, _BOTH_BY_ENDS
    other, bit_length, next_seat = OTHER, _BIT_LENGTH, _NEXT_SEAT
    to_left, to_right = LEFT, RIGHT  # locals are read faster than globals
    try:
        while True:
            hand = hands[seat]
            legal = hand & fit_masks[left][right]
            if not legal:  # a forced pass
                add_turn((seat, -1, None, left, right))
                passes += 1
                seat = next_seat[seat]
                if passes == 4:
                    return "block"
                continue
            randbits = draws[seat]
            both = legal & both_masks[left][right]  # tiles that fit either end: listed twice
            if both:
                # the listed events: tiles ascending, a tile that fits both ends twice
                # (left, then right); its bit in ``both`` << 28 counts it twice
                count = (legal + (both << 28)).bit_count()
                if randbits is not None:  # _drawn_pick(..., "play", count) written out
                    bits = bit_length[count]
                    index = randbits(bits)
                    while index >= count:
                        index = randbits(bits)
                else:
                    pick = pickers[seat]
                    if pick is None:
                        return None
                    index = _checked_pick(pick, "play", count)
                while True:  # the index-th listed event
                    low = legal & -legal
                    if not both & low:
                        if not index:
                            end = to_left if other[low.bit_length() - 1][left] >= 0 else to_right
                            break
                        index -= 1
                    elif index < 2:
                        end = index
                        break
                    else:
                        index -= 2
                    legal -= low
                hand -= low
                tid = low.bit_length() - 1
                add_turn((seat, tid, end, left, right))
                if end == to_left:
                    left = other[tid][left]
                else:
                    right = other[tid][right]
            else:  # each playable tile fits one end only
                low = legal & -legal  # the lowest one
                if legal != low:  # several: the index-th
                    count = legal.bit_count()
                    if randbits is not None:
                        bits = bit_length[count]
                        index = randbits(bits)
                        while index >= count:
                            index = randbits(bits)
                    else:
                        pick = pickers[seat]
                        if pick is None:
                            return None
                        index = _checked_pick(pick, "play", count)
                    if index:
                        while index:
                            legal &= legal - 1
                            index -= 1
                        low = legal & -legal
                elif randbits is not None:  # one: randrange(1) still draws until 0
                    while randbits(1):
                        pass
                else:
                    pick = pickers[seat]
                    if pick is None:
                        return None
                    _checked_pick(pick, "play", 1)
                hand -= low
                tid = low.bit_length() - 1
                row = other[tid]
                if (new := row[left]) >= 0:
                    add_turn((seat, tid, to_left, left, right))
                    left = new
                else:
                    add_turn((seat, tid, to_right, left, right))
                    right = row[right]
            hands[seat] = hand
            passes = 0
            seat = next_seat[seat]
            if not hand:  # Dékabès: the last tile fits both ends and is not a double
                return "dekabes" if both & low and not DOUBLE_MASK & low else "domino"
    finally:
        core.left, core.right, core.to_act, core.passes = left, right, seat, passes


def _required_picker(pick: Picker | None) -> Picker:
    if pick is None:
        raise RuntimeError("a seat without a picker where every seat has one")
    return pick


def _checked_pick(pick: Picker, phase: str, count: int) -> int:
    index = pick(phase, count)
    if type(index) is not int or not 0 <= index < count:
        raise ValueError(f"a picker chose {index!r} among {count} legal events")
    return index


def _drawn_pick(pick: Picker, randbits: RandBits | None, phase: str, count: int) -> int:
    """``pick(phase, count)``, checked; for a ``randbits`` picker the fold draws its
    ``randrange(count)`` as ``random.Random._randbelow`` does: the same draws, the same
    number (the play loop has this written out)."""
    if randbits is None:
        return _checked_pick(pick, phase, count)
    return _draw(randbits, count)


def _choose_end(tid: int, end: int | None, left: int, right: int) -> int:
    fits_left = OTHER[tid][left] >= 0
    fits_right = OTHER[tid][right] >= 0
    if end is None:
        if fits_left and fits_right:
            raise IllegalEventError("end_required", "this tile fits both ends: choose one")
        if not (fits_left or fits_right):
            raise IllegalEventError("tile_does_not_fit", f"{TILE_TEXT[tid]} fits neither end")
        return LEFT if fits_left else RIGHT
    if not (fits_left if end == LEFT else fits_right):
        raise IllegalEventError(
            "tile_does_not_fit", f"{TILE_TEXT[tid]} does not fit the {END_NAMES[end]} end"
        )
    return end


_HANDLERS = {
    "deal": Match._deal,
    "accept": Match._accept,
    "claim_redeal": Match._claim_redeal,
    "choose_opener": Match._choose_opener,
    "play": Match._play,
    "pass": Match._pass,
}


# -- the seat view --------------------------------------------------------------------
class Freezable(Protocol):
    def freeze(self) -> None: ...


class SeatViewBase(Mapping[str, Any]):
    """What ``Match.view`` returns: ``engine.view.SeatView``, a read-only mapping."""

    __slots__ = ()

    @abstractmethod
    def freeze(self) -> None:
        """Build every entry now: the match is about to change."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Every entry as a plain dict."""


SeatViewFactory = Callable[["Match", int, bool], SeatViewBase]
_seat_view_class: list[SeatViewFactory] = []


def use_seat_view(factory: SeatViewFactory) -> None:
    """``engine.view`` gives the fold its seat view class here when it is imported (the
    package imports it): the view builds on the fold, the fold never imports the view."""
    _seat_view_class[:] = [factory]


def _view_class() -> SeatViewFactory:
    # engine/__init__ imports engine.view, and it runs before any engine.* module is used
    return _seat_view_class[0]


__all__ = ["FoldState", "Match", "Reveal", "SeatViewBase", "WINNING_SCORE", "use_seat_view"]
