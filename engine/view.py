"""The seat view: what one seat may know at this moment, and nothing else.

Like boardgame.io's ``playerView``, it is built from the authoritative state by
keeping only public facts (the line, the turns, tile counts, passes, scores) and the
seat's own hand. Other hands appear only in ``last_hand``, which exists only once a
hand has ended and all four hands are revealed (RULES §5). The result is plain JSON.

``SeatView`` is the view as a lazy read-only mapping: each entry is built the first
time it is read, so self-play bots that read ``phase`` and ``legal`` do not pay for
the rest. Its content is exactly ``seat_view(match, seat)``; before the match changes,
a view still alive copies everything it shows, so it keeps showing its moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine.core import EMPTY
from engine.encoding import line_view, turns_view
from engine.fold import FoldState, Match, SeatViewBase, use_seat_view
from engine.seats import SEAT_KEYS, TEAMS, partner_of, team_of
from engine.tiles import mask_texts

# _NUMBERS_IN[bits]: the numbers 0-6 whose bit is set (a seat's ``lacks``), ascending
_NUMBERS_IN = tuple(tuple(n for n in range(7) if bits >> n & 1) for bits in range(128))


def seat_view(match: Match, seat: int, public: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The view of ``seat`` (1..4) as a plain dict. Works at any point of a started match.

    ``public``: ``spectator_view(match)`` when the caller has it (the entries every seat
    sees alike); they are taken from it instead of being built again, and shared."""
    view = SeatView(match, seat)
    if public is not None:
        values = view._values
        for key in SPECTATOR_KEYS:  # never a seat's own entry, whatever ``public`` holds
            values[key] = public[key]
    return view.to_dict()


class SeatView(SeatViewBase):
    """One seat's view, built entry by entry on demand (see the module docstring)."""

    __slots__ = ("_match", "_s", "_seat", "_me", "_void", "_values", "_listed", "__weakref__")

    _match: Match | None
    _s: FoldState | None

    def __init__(self, match: Match, seat: int, listed: bool = False) -> None:
        """``listed``: take ``legal`` from ``match.listed_legal_events`` (shared dicts the
        match recognises when one is applied) instead of fresh ones."""
        s = match.state()
        if s is None:
            raise ValueError("the match has not started")
        if type(seat) is not int or not 1 <= seat <= 4:
            raise ValueError("seat must be 1-4")
        self._match = match
        self._s = s
        self._seat = seat
        self._me = seat - 1
        # A claimed redeal voids the deal: nobody holds those tiles any more.
        self._void = s.phase == "deal" and s.redeal_pending
        self._values: dict[str, Any] = {}
        self._listed = listed

    def __getitem__(self, key: str) -> Any:
        values = self._values
        if key in values:
            return values[key]
        build = _BUILDERS.get(key)
        if build is None:
            raise KeyError(key)
        value = values[key] = build(self)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        values = self._values
        if key in values:
            return values[key]
        build = _BUILDERS.get(key)
        if build is None:
            return default
        value = values[key] = build(self)
        return value

    def __contains__(self, key: object) -> bool:
        return key in _BUILDERS

    def __iter__(self) -> Iterator[str]:
        return iter(VIEW_KEYS)

    def __len__(self) -> int:
        return len(VIEW_KEYS)

    def __repr__(self) -> str:
        return f"SeatView(seat={self._seat}, phase={self['phase']!r})"

    def to_dict(self) -> dict[str, Any]:
        """Every entry, in the documented order, as a plain dict."""
        values = self._values
        for key, build in _BUILDERS.items():  # the server builds two views an action
            if key not in values:
                values[key] = build(self)
        return {key: values[key] for key in VIEW_KEYS}

    def freeze(self) -> None:
        """Called by the match before its state changes (``Match.watch``): build every
        entry now, from the state it still shows."""
        if self._s is not None:
            for key in VIEW_KEYS:
                self[key]
            self._match = self._s = None

    def _state(self) -> FoldState:
        # builders run only while the view is live: freeze() builds them all first
        s = self._s
        if s is None:
            raise RuntimeError("a frozen view has every entry already")
        return s

    def _live_match(self) -> Match:
        if self._match is None:
            raise RuntimeError("a frozen view has every entry already")
        return self._match

    # -- entries ---------------------------------------------------------------------
    def _hands(self) -> list[int] | tuple[int, ...]:
        return (0, 0, 0, 0) if self._void else self._state().core.hands

    def _legal(self) -> list[dict[str, Any]]:
        match = self._live_match()
        if self._listed:
            return match.listed_legal_events(self._seat)
        return match.legal_events(self._seat)

    def _to_act(self) -> int | None:
        s = self._state()
        if s.phase == "play":
            return s.core.to_act + 1
        if s.phase == "choose_opener" and s.representative is not None:
            return s.representative + 1
        return None

    def _representative(self) -> int | None:
        s = self._state()
        choosing = s.phase in ("deal", "accept", "choose_opener") and not s.first_hand
        return s.representative + 1 if choosing and s.representative is not None else None

    def _opener(self) -> int | None:
        s = self._state()
        if s.opener is None or s.phase in ("accept", "choose_opener"):
            return None
        return s.opener + 1

    def _ends(self) -> list[int] | None:
        core = self._state().core
        return None if core.left == EMPTY or self._void else [core.left, core.right]

    def _lacks(self) -> dict[str, list[int]]:
        lacks = self._state().lacks
        return {SEAT_KEYS[i]: list(_NUMBERS_IN[lacks[i]]) for i in range(4)}

    def _last_hand(self) -> dict[str, Any] | None:
        # one dict per finished hand, shared by every view that shows it (read-only)
        last = self._state().last_hand
        return None if last is None else last.shared_dict()

    def _winner(self) -> str | None:
        winner = self._state().winner
        return None if winner is None else TEAMS[winner]


Builder = Callable[[SeatView], Any]
_BUILDERS: dict[str, Builder] = {
    "seat": lambda v: v._seat,
    "team": lambda v: team_of(v._seat),
    "partner": lambda v: partner_of(v._seat),
    "seats": lambda v: {SEAT_KEYS[i]: kind for i, kind in enumerate(v._state().seats)},
    "rated": lambda v: v._state().rated,
    "phase": lambda v: v._state().phase,
    "hand_no": lambda v: v._state().hand_no,
    "first_hand": lambda v: v._state().first_hand,
    "to_act": SeatView._to_act,
    "representative": SeatView._representative,
    "opener": SeatView._opener,
    "scores": lambda v: {"A": v._state().scores[0], "B": v._state().scores[1]},
    "base": lambda v: v._state().base,
    "winner": SeatView._winner,
    "hand": lambda v: mask_texts(v._hands()[v._me]),
    "tile_counts": lambda v: {SEAT_KEYS[i]: h.bit_count() for i, h in enumerate(v._hands())},
    "accepted": lambda v: {SEAT_KEYS[i]: bool(v._state().accepted >> i & 1) for i in range(4)},
    "can_claim_redeal": lambda v: any(e["type"] == "claim_redeal" for e in v["legal"]),
    "line": lambda v: [] if v._void else line_view(v._state().line),
    "ends": SeatView._ends,
    "turns": lambda v: [] if v._void else turns_view(v._state().turns),
    "lacks": SeatView._lacks,
    "passes_in_row": lambda v: 0 if v._void else v._state().core.passes,
    "legal": SeatView._legal,
    "can_undo": lambda v: v._live_match().can_undo(),
    "can_redo": lambda v: v._live_match().can_redo(),
    "results": lambda v: [r.shared_result() for r in v._state().results],
    "last_hand": SeatView._last_hand,
}
VIEW_KEYS = tuple(_BUILDERS)

use_seat_view(SeatView)

# What a spectator sees: the public entries of any seat's view. Dropped: the seat's own
# identity and hand, its legal events and what they reveal (``can_claim_redeal`` tells
# whether that seat holds five doubles), and the table's undo stack.
_PRIVATE_KEYS = frozenset(
    ("seat", "team", "partner", "hand", "legal", "can_claim_redeal", "can_undo", "can_redo")
)
SPECTATOR_KEYS = tuple(key for key in VIEW_KEYS if key not in _PRIVATE_KEYS)


def spectator_view(match: Match) -> dict[str, Any]:
    """What anyone watching the table may know: the line, the turns, each seat's tile
    count, passes, scores, base, whose turn; the four hands only in ``last_hand``, once a
    hand has ended (RULES §5), exactly as a seat sees them. A pure function of the match."""
    view = SeatView(match, 1)
    return {key: view[key] for key in SPECTATOR_KEYS}
