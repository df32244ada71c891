"""Decisions every level shares and small helpers on view events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.tiles import TILE_ID, TILE_PIPS

Event = dict[str, Any]
View = Mapping[str, Any]


def deal_decision(view: View) -> Event:
    """Accept phase: a computer seat always claims a redeal when entitled (RULES §2)."""
    legal: list[Event] = view["legal"]
    if view.get("can_claim_redeal"):
        for event in legal:
            if event["type"] == "claim_redeal":
                return event
    for event in legal:
        if event["type"] == "accept":
            return event
    return legal[0]


def opener_event(view: View, opener_seat: int) -> Event:
    legal: list[Event] = view["legal"]
    for event in legal:
        if event["type"] == "choose_opener" and event["opener"] == opener_seat:
            return event
    return legal[0]


def event_pips(event: Event) -> int:
    return TILE_PIPS[TILE_ID[event["tile"]]]


def only_plays(view: View) -> list[Event]:
    return [e for e in view["legal"] if e["type"] == "play"]
