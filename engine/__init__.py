"""Dékabès rules engine: tiles, the match fold, the seat view, the computer players.

Pure Python, no Django. The server stores events and asks this package what they mean;
the clients render what it says.
"""

from engine.errors import REJECTION_CODES, IllegalEventError
from engine.events import deal_event
from engine.fold import Match
from engine.record import UnreadableLine, dump_record, load_record
from engine.tiles import Tile
from engine.view import seat_view

__all__ = [
    "IllegalEventError",
    "Match",
    "REJECTION_CODES",
    "Tile",
    "UnreadableLine",
    "deal_event",
    "dump_record",
    "load_record",
    "seat_view",
]
