"""What a computer seat sends, given only its seat view.

The decision itself is ``engine.bots.decide``; this module adds the table policy
around it (RULES §2: a computer seat always claims a redeal it is entitled to) and
checks the decision against the view's own ``legal`` list, so a bug in a bot level
can never make the runner send an action the server will refuse over and over.
"""

from __future__ import annotations

import logging
import random

log = logging.getLogger("dekabes.bots")

DEFAULT_LEVEL = "strong"


def event_identity(event: dict) -> tuple:
    """What makes two events the same move (field order and absent ``end`` aside)."""
    return (
        event.get("type"),
        int(event.get("seat", 0)),
        event.get("tile"),
        event.get("end"),
        event.get("opener"),
    )


def choose_event(view: dict, level: str, rng: random.Random) -> dict | None:
    """The event this seat sends now, or None when it has nothing to do."""
    legal = [e for e in (view.get("legal") or []) if isinstance(e, dict)]
    if not legal:
        return None
    if view.get("can_claim_redeal"):
        for event in legal:
            if event.get("type") == "claim_redeal":
                return dict(event)
    from engine.bots import decide  # imported late: the SDK and runner load without it

    decision = decide(view, level, rng)
    return _checked(decision, legal, view)


def _checked(decision: object, legal: list[dict], view: dict) -> dict:
    if isinstance(decision, dict):
        wanted = event_identity(decision)
        for event in legal:
            if event_identity(event) == wanted:
                return dict(decision)
        # A play that names no end, where the legal list names one (or the reverse).
        if decision.get("type") == "play":
            same_tile = [
                e
                for e in legal
                if e.get("type") == "play" and e.get("tile") == decision.get("tile")
            ]
            if len(same_tile) == 1:
                return dict(same_tile[0])
    # Never send an event the seat may not send: fall back to the first legal one. The
    # log names no tile: an unplayed tile is the seat's secret, even in a local log.
    log.warning(
        "seat %s: bot decision (%s) is not in the legal list; sending the first "
        "legal event instead",
        view.get("seat"),
        decision.get("type") if isinstance(decision, dict) else type(decision).__name__,
    )
    return dict(legal[0])
