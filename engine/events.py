"""The record's events: their types, their shapes, and how the fold reads their fields.

A malformed event is ``bad_event`` (or ``bad_deal`` for a deal that is not the whole set)
before anything else is looked at (RECORDS.md: malformed → wrong phase → turn →
content); these checks need no state. The fold (``engine.fold``) asks them first.
"""

from __future__ import annotations

import random
from typing import Any, Literal, TypeGuard, cast

from engine.core import LEFT, RIGHT, deal_masks
from engine.errors import IllegalEventError
from engine.seats import SEAT_KEYS, seat_key
from engine.tiles import ALL_TILES_MASK, TILE_ID, TILES_IN_HAND, mask_texts, tile_id

EventType = Literal[
    "match_started",
    "deal",
    "accept",
    "claim_redeal",
    "choose_opener",
    "play",
    "pass",
    "undo",
    "redo",
    "restart_hand",
    "new_match",
]
TABLE_COMMANDS = ("undo", "redo", "restart_hand", "new_match")
EVENT_TYPES = (
    "match_started",
    "deal",
    "accept",
    "claim_redeal",
    "choose_opener",
    "play",
    "pass",
) + TABLE_COMMANDS
SEAT_KINDS = ("human", "bot")
# A deal's four hands as tile texts, seat 1 first, each sorted: what a finished hand
# reveals (``HandResult.dealt``) and how a deal event is compared with it.
DealtHands = tuple[tuple[str, ...], ...]

_EVENT_TYPE_SET = frozenset(EVENT_TYPES)
TABLE_COMMAND_SET = frozenset(TABLE_COMMANDS)
_END_OF = {"left": LEFT, "right": RIGHT}


def is_seat_number(value: object) -> TypeGuard[int]:
    return type(value) is int and 1 <= value <= 4


def check_shape(event: object) -> tuple[str, int]:
    """The event's type and seat index (-1: none); ``bad_event`` if it is malformed."""
    if not isinstance(event, dict):
        raise IllegalEventError("bad_event", "an event must be a JSON object")
    kind = event.get("type")
    if type(kind) is not str or kind not in _EVENT_TYPE_SET:
        raise IllegalEventError("bad_event", f"unknown event type {kind!r}")
    if kind in ("match_started", "deal"):
        return kind, -1
    seat = event.get("seat")
    if not is_seat_number(seat):
        raise IllegalEventError("bad_event", "seat must be a seat number 1-4")
    if kind == "play":
        tile_id(event.get("tile"))
        parse_end(event)
    elif kind == "choose_opener" and not is_seat_number(event.get("opener")):
        raise IllegalEventError("bad_event", "opener must be a seat number 1-4")
    return kind, seat - 1


def parse_end(event: dict[str, Any]) -> int | None:
    """A play's ``end`` as an end index (None: not given)."""
    end = event.get("end")
    if end is None:
        return None
    if end not in _END_OF:
        raise IllegalEventError("bad_event", 'end must be "left" or "right"')
    return _END_OF[end]


def parse_seat_kinds(seats: object) -> tuple[str, ...]:
    """``match_started``'s ``seats``: the kind of seats 1-4, in seat order."""
    if not isinstance(seats, dict) or len(seats) != 4:
        raise IllegalEventError("bad_event", "seats must name the kind of seats 1-4")
    kinds = []
    for i in range(4):
        kind = seats.get(seat_key(i), seats.get(i + 1))
        if kind not in SEAT_KINDS:
            raise IllegalEventError("bad_event", 'each seat is "human" or "bot"')
        kinds.append(kind)
    return tuple(kinds)


def parse_deal(event: dict[str, Any]) -> list[int]:
    """A deal's four hands as tile masks (seat index order); ``bad_deal`` unless they are
    seven distinct tiles each making up the whole set."""
    hands = event.get("hands")
    if not isinstance(hands, dict):
        raise IllegalEventError("bad_deal", "a deal names the hands of seats 1-4")
    for tiles in hands.values():
        if isinstance(tiles, list):
            for text in tiles:
                tile_id(text)  # a malformed tile is bad_event, like anywhere else
    masks = []
    seen = 0
    if len(hands) != 4:
        raise IllegalEventError("bad_deal", "a deal has exactly four hands")
    for i in range(4):
        tiles = hands.get(seat_key(i))
        if not isinstance(tiles, list) or len(tiles) != TILES_IN_HAND:
            raise IllegalEventError("bad_deal", "each hand has seven tiles")
        mask = 0
        for text in tiles:
            mask |= 1 << TILE_ID[text]
        if mask.bit_count() != TILES_IN_HAND or mask & seen:
            raise IllegalEventError("bad_deal", "a tile appears twice in the deal")
        seen |= mask
        masks.append(mask)
    if seen != ALL_TILES_MASK:
        raise IllegalEventError("bad_deal", "a deal uses all 28 tiles")
    return masks


def dealt_hands(masks: tuple[int, ...] | list[int]) -> DealtHands:
    """Four hand masks as ``DealtHands``."""
    return tuple(tuple(mask_texts(mask)) for mask in masks)


def deal_hands(event: object) -> DealtHands:
    """A deal event's hands as ``DealtHands`` (however its tiles were written or
    ordered); ``IllegalEventError`` if it is not a well-formed deal."""
    kind, _ = check_shape(event)
    if kind != "deal":
        raise IllegalEventError("bad_event", "not a deal")
    return dealt_hands(parse_deal(cast("dict[str, Any]", event)))  # check_shape: a dict


def deal_record(hands: list[int]) -> dict[str, Any]:
    """Four hand masks as a record ``deal`` event."""
    return {"type": "deal", "hands": {SEAT_KEYS[i]: mask_texts(hands[i]) for i in range(4)}}


def deal_event(rng: random.Random) -> dict[str, Any]:
    """A fresh shuffle as a record event."""
    return deal_record(deal_masks(rng))


__all__ = [
    "EVENT_TYPES",
    "SEAT_KINDS",
    "TABLE_COMMANDS",
    "DealtHands",
    "EventType",
    "check_shape",
    "deal_event",
    "deal_hands",
    "deal_record",
    "dealt_hands",
    "is_seat_number",
    "parse_deal",
    "parse_end",
    "parse_seat_kinds",
]
