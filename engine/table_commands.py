"""What a table can do right now, as the rules say: the table commands a match accepts
(undo, redo, restart the hand, a new match) and the seats that must act.

The server lists these among a seat's ``allowed`` actions, the bot runner and the table
client ask which of their seats must act: all of them read it here rather than
restating the rules. Only the public ``Match`` API and the seat view are read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.events import EVENT_TYPES, TABLE_COMMANDS
from engine.fold import Match
from engine.phases import ACCEPT, HAND_IN_PROGRESS, SEAT_TO_ACT
from engine.seats import SEATS

__all__ = ["SEAT_EVENT_TYPES", "TABLE_COMMANDS", "available_commands", "seats_to_act"]

# Events a seat sends in play; the others are the server's (match_started, deal) or
# table commands.
SEAT_EVENT_TYPES: tuple[str, ...] = tuple(
    kind for kind in EVENT_TYPES if kind not in ("match_started", "deal", *TABLE_COMMANDS)
)


def available_commands(match: Match) -> list[str]:
    """The table commands ``match.apply`` accepts now, in ``TABLE_COMMANDS`` order.

    None before the match starts or in a rated match (the engine refuses them there).
    Who may send them (the table's owner) is the server's business, not the rules'.
    """
    if match.phase is None or match.rated:
        return []
    commands = []
    if match.can_undo():
        commands.append("undo")
    if match.can_redo():
        commands.append("redo")
    if match.phase in HAND_IN_PROGRESS:  # the only phases restart_hand accepts
        commands.append("restart_hand")
    commands.append("new_match")
    return commands


def seats_to_act(view: Mapping[str, Any]) -> list[int]:
    """The seats (1-4) the match waits for now, read off any seat's view: ``phase``,
    ``accepted`` and ``to_act`` are public, the same in every seat's view.

    While a deal is accepted every seat that has not accepted yet must act (accept or
    claim a redeal); when the opener is chosen or a hand is played, the one seat
    ``to_act``; otherwise (a deal to come, the match over) nobody.
    """
    phase = view.get("phase")
    if phase == ACCEPT:
        accepted = view.get("accepted") or {}
        return [seat for seat in SEATS if not accepted.get(str(seat))]
    if phase in SEAT_TO_ACT:
        seat = view.get("to_act")
        return [seat] if isinstance(seat, int) else []
    return []
