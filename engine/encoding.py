"""How the fold's compact state is written out as plain JSON (seat views, reveals).

The fold keeps the line and the turns as small tuples of integers; these encoders turn
them into the dicts the seat view and the end-of-hand reveal document. Both the fold
(``match``) and the view (``view``) use them, so neither reaches into the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.tiles import TILE_TEXT

END_NAMES = ("left", "right")


def line_view(line: Iterable[tuple[int, int, int, int]]) -> list[dict[str, Any]]:
    """``[(tile id, left number, right number, seat index)]`` -> the view's ``line``."""
    return [{"tile": TILE_TEXT[tid], "a": a, "b": b, "seat": seat + 1} for tid, a, b, seat in line]


def turns_view(
    turns: Iterable[tuple[int, int, int | None, int, int]],
) -> list[dict[str, Any]]:
    """``[(seat index, tile id or -1, end, left, right)]`` -> the view's ``turns``."""
    out: list[dict[str, Any]] = []
    for seat, tid, end, left, right in turns:
        if tid < 0:
            out.append({"seat": seat + 1, "type": "pass", "ends": [left, right]})
        else:
            out.append(
                {
                    "seat": seat + 1,
                    "type": "play",
                    "tile": TILE_TEXT[tid],
                    "end": None if end is None else END_NAMES[end],
                }
            )
    return out


def play_event(seat: int, tid: int, end: int | None) -> dict[str, Any]:
    """The record event for seat number ``seat`` laying tile ``tid`` (end index or None)."""
    event = {"type": "play", "seat": seat, "tile": TILE_TEXT[tid]}
    if end is not None:
        event["end"] = END_NAMES[end]
    return event
