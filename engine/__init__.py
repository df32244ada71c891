"""Dékabès rules engine: tiles, the match fold, the seat view, the computer players.

Pure Python, no Django. The server stores events and asks this package what they mean;
the clients render what it says.

Modules: ``tiles`` (tiles and masks), ``core`` (the fast core of one hand), ``seats``
(seats and teams), ``phases`` (phase names), ``events`` (the record's events: shapes,
parsing, a fresh deal), ``fold`` (``Match``: a record folded into the table's state),
``record`` (JSON Lines I/O), ``replay`` (a fold that notices each hand's end: ``Step``,
``HandResult``, ``Outcome``), ``view`` (a seat's view), ``table_commands``, ``bots``,
``autoplay``/``simulate`` (self-play), ``analysis``, ``cli``. ``match`` is a
compatibility module re-exporting the names the fold had before it was split.

The ``replay`` names are imported on first use (PEP 562 ``__getattr__``): ``replay``
pulls in ``dataclasses`` (and ``inspect``), a sixth of ``python -m engine simulate``'s
start-up, and self-play never needs it. ``from engine import Replay`` works as before.
"""

from typing import TYPE_CHECKING, Any

from engine.errors import REJECTION_CODES, IllegalEventError
from engine.events import deal_event
from engine.fold import Match
from engine.record import UnreadableLine, dump_record, load_record
from engine.tiles import Tile
from engine.view import seat_view, spectator_view

if TYPE_CHECKING:
    from engine.replay import HandResult, Outcome, Replay, Step, steps

_LAZY = {"HandResult", "Outcome", "Replay", "Step", "steps"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from engine import replay

        value = getattr(replay, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'engine' has no attribute {name!r}")


__all__ = [
    "REJECTION_CODES",
    "HandResult",
    "IllegalEventError",
    "Match",
    "Outcome",
    "Replay",
    "Step",
    "Tile",
    "UnreadableLine",
    "deal_event",
    "dump_record",
    "load_record",
    "seat_view",
    "spectator_view",
    "steps",
]
