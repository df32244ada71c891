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

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.core import EMPTY
from engine.encoding import line_view, turns_view
from engine.match import legal_events_of
from engine.tiles import mask_texts

if TYPE_CHECKING:
    from engine.match import Match

TEAM_NAMES = ("A", "B")
SEAT_KEYS = ("1", "2", "3", "4")


def seat_view(match: Match, seat: int) -> dict:
    """The view of ``seat`` (1..4) as a plain dict. Works at any point of a started match."""
    return SeatView(match, seat).to_dict()


class SeatView(Mapping):
    """One seat's view, built entry by entry on demand (see the module docstring)."""

    __slots__ = ("_match", "_s", "_seat", "_me", "_void", "_values", "_listed", "__weakref__")

    def __init__(self, match: Match, seat: int, listed: bool = False):
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
        self._values: dict = {}
        self._listed = listed

    def __getitem__(self, key: str):
        values = self._values
        if key in values:
            return values[key]
        build = _BUILDERS.get(key)
        if build is None:
            raise KeyError(key)
        value = values[key] = build(self)
        return value

    def get(self, key, default=None):
        values = self._values
        if key in values:
            return values[key]
        build = _BUILDERS.get(key)
        if build is None:
            return default
        value = values[key] = build(self)
        return value

    def __contains__(self, key) -> bool:
        return key in _BUILDERS

    def __iter__(self):
        return iter(VIEW_KEYS)

    def __len__(self) -> int:
        return len(VIEW_KEYS)

    def __repr__(self) -> str:
        return f"SeatView(seat={self._seat}, phase={self['phase']!r})"

    def to_dict(self) -> dict:
        """Every entry, in the documented order, as a plain dict."""
        return {key: self[key] for key in VIEW_KEYS}

    def _freeze(self) -> None:
        """Called by the match before its state changes: build every entry now."""
        if self._s is not None:
            for key in VIEW_KEYS:
                self[key]
            self._match = self._s = None

    # -- entries ---------------------------------------------------------------------
    def _hands(self):
        return (0, 0, 0, 0) if self._void else self._s.core.hands

    def _legal(self) -> list[dict]:
        if self._listed:
            return self._match.listed_legal_events(self._seat)
        return legal_events_of(self._s, self._seat)

    def _to_act(self):
        s = self._s
        if s.phase == "play":
            return s.core.to_act + 1
        if s.phase == "choose_opener":
            return s.representative + 1
        return None

    def _representative(self):
        s = self._s
        choosing = s.phase in ("deal", "accept", "choose_opener") and not s.first_hand
        return s.representative + 1 if choosing and s.representative is not None else None

    def _ends(self):
        core = self._s.core
        return None if core.left == EMPTY or self._void else [core.left, core.right]

    def _lacks(self) -> dict:
        lacks = self._s.lacks
        return {SEAT_KEYS[i]: [n for n in range(7) if lacks[i] >> n & 1] for i in range(4)}

    def _last_hand(self):
        last = self._s.last_hand
        return None if last is None else last.as_dict()


def _opener(v: SeatView):
    s = v._s
    return None if s.opener is None or s.phase in ("accept", "choose_opener") else s.opener + 1


_BUILDERS = {
    "seat": lambda v: v._seat,
    "team": lambda v: TEAM_NAMES[v._me & 1],
    "partner": lambda v: (v._me + 2) % 4 + 1,
    "seats": lambda v: {SEAT_KEYS[i]: kind for i, kind in enumerate(v._s.seats)},
    "rated": lambda v: v._s.rated,
    "phase": lambda v: v._s.phase,
    "hand_no": lambda v: v._s.hand_no,
    "first_hand": lambda v: v._s.first_hand,
    "to_act": SeatView._to_act,
    "representative": SeatView._representative,
    "opener": _opener,
    "scores": lambda v: {"A": v._s.scores[0], "B": v._s.scores[1]},
    "base": lambda v: v._s.base,
    "winner": lambda v: None if v._s.winner is None else TEAM_NAMES[v._s.winner],
    "hand": lambda v: mask_texts(v._hands()[v._me]),
    "tile_counts": lambda v: {SEAT_KEYS[i]: h.bit_count() for i, h in enumerate(v._hands())},
    "accepted": lambda v: {SEAT_KEYS[i]: bool(v._s.accepted >> i & 1) for i in range(4)},
    "can_claim_redeal": lambda v: any(e["type"] == "claim_redeal" for e in v["legal"]),
    "line": lambda v: [] if v._void else line_view(v._s.line),
    "ends": SeatView._ends,
    "turns": lambda v: [] if v._void else turns_view(v._s.turns),
    "lacks": SeatView._lacks,
    "passes_in_row": lambda v: 0 if v._void else v._s.core.passes,
    "legal": SeatView._legal,
    "can_undo": lambda v: v._match.can_undo(),
    "can_redo": lambda v: v._match.can_redo(),
    "results": lambda v: v._match.results,
    "last_hand": SeatView._last_hand,
}
VIEW_KEYS = tuple(_BUILDERS)
