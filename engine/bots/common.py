"""Decisions every level shares and small helpers on view events."""

from __future__ import annotations

from typing import Any

from engine.tiles import TILE_ID, TILE_PIPS


def deal_decision(view: dict[str, Any]) -> dict[str, Any]:
    """Accept phase: a computer seat always claims a redeal when entitled (RULES §2)."""
    legal = view["legal"]
    if view.get("can_claim_redeal"):
        for event in legal:
            if event["type"] == "claim_redeal":
                return event
    for event in legal:
        if event["type"] == "accept":
            return event
    return legal[0]


def opener_event(view: dict[str, Any], opener_seat: int) -> dict[str, Any]:
    for event in view["legal"]:
        if event["type"] == "choose_opener" and event["opener"] == opener_seat:
            return event
    return view["legal"][0]


def event_pips(event: dict[str, Any]) -> int:
    return TILE_PIPS[TILE_ID[event["tile"]]]


def only_plays(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in view["legal"] if e["type"] == "play"]
