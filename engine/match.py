"""Compatibility module: the names ``engine.match`` had before the fold was split.

The fold is ``engine.fold`` (``Match``, its state and transitions), the events' shapes
and parsing ``engine.events``, record I/O ``engine.record``, seats and teams
``engine.seats``, phase names ``engine.phases``; a fold that notices each hand's end is
``engine.replay``. Code outside the engine imports from ``engine`` itself; this module
only keeps older imports (``from engine.match import Match, deal_event``) working, so it
re-exports and defines nothing.
"""

from engine.events import EVENT_TYPES, SEAT_KINDS, TABLE_COMMANDS, EventType, deal_event
from engine.fold import (
    WINNING_SCORE,
    Emit,
    FoldState,
    Match,
    Picker,
    RandBits,
    Reveal,
    SeatViewBase,
    use_seat_view,
)
from engine.phases import Phase
from engine.record import UnreadableLine, dump_record, load_record
from engine.seats import SEAT_KEYS, TEAMS, Team, seat_key
from engine.tiles import mask_ids, mask_pips

__all__ = [
    "EVENT_TYPES",
    "SEAT_KEYS",
    "SEAT_KINDS",
    "TABLE_COMMANDS",
    "TEAMS",
    "WINNING_SCORE",
    "Emit",
    "EventType",
    "FoldState",
    "Match",
    "Phase",
    "Picker",
    "RandBits",
    "Reveal",
    "SeatViewBase",
    "Team",
    "UnreadableLine",
    "deal_event",
    "dump_record",
    "load_record",
    "mask_ids",
    "mask_pips",
    "seat_key",
    "use_seat_view",
]
