"""Typed errors. A rejected event carries one of the record format's exact codes."""

from __future__ import annotations

REJECTION_CODES = (
    "bad_event",
    "bad_deal",
    "wrong_phase",
    "not_your_turn",
    "tile_not_in_hand",
    "tile_does_not_fit",
    "end_required",
    "must_play",
    "must_open_double_six",
    "not_entitled",
    "already_accepted",
    "not_representative",
    "opener_not_on_team",
    "nothing_to_undo",
    "nothing_to_redo",
    "not_allowed_in_rated",
)


class IllegalEventError(ValueError):
    """An event the rules refuse. ``code`` is one of ``REJECTION_CODES``.

    The message is written for the seat that sent the event: it never names a tile
    of another seat's hand.
    """

    code: str
    message: str
    # Position of the refused event in a folded record (``Match.from_events``, the
    # command line); None for a single ``apply``.
    index: int | None = None

    def __init__(self, code: str, message: str = ""):
        if code not in REJECTION_CODES:  # a bug in the engine, not in the event
            raise ValueError(f"unknown rejection code {code!r}")
        super().__init__(message or code)
        self.code = code
        self.message = message or code

    def __repr__(self) -> str:
        return f"IllegalEventError({self.code!r}, {self.message!r})"
