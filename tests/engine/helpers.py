"""Building blocks for engine tests: scripted deals and random legal self-play."""

from __future__ import annotations

import random

from engine import Match, deal_event

HUMANS = {"1": "human", "2": "bot", "3": "human", "4": "bot"}
BOTS = {"1": "bot", "2": "bot", "3": "bot", "4": "bot"}


def start(seats=HUMANS, rated=False) -> dict:
    return {"type": "match_started", "seats": dict(seats), "rated": rated}


def deal(h1, h2, h3, h4) -> dict:
    return {"type": "deal", "hands": {"1": list(h1), "2": list(h2), "3": list(h3), "4": list(h4)}}


def accept_all() -> list[dict]:
    return [{"type": "accept", "seat": s} for s in (1, 2, 3, 4)]


def random_event(m: Match, rng: random.Random) -> dict:
    """One legal next event, chosen uniformly (deals shuffled by ``rng``)."""
    if m.needs_deal():
        return deal_event(rng)
    if m.phase == "accept":
        options = [e for s in range(1, 5) for e in m.legal_events(s)]
        return rng.choice(options)
    return rng.choice(m.legal_events(m.to_act))


def self_play(seed: int, seats=HUMANS, max_events: int = 2000, commands: bool = False):
    """A legal record played at random until the match is over (or ``max_events``).

    With ``commands`` the record also holds undo/redo/restart_hand/new_match now and then.
    Returns (events, match).
    """
    rng = random.Random(seed)
    m = Match()
    events = [start(seats)]
    m.apply(events[0])
    while m.phase != "match_over" and len(events) < max_events:
        event = None
        if commands:
            roll = rng.random()
            if roll < 0.04 and m.can_undo():
                event = {"type": "undo", "seat": 1}
            elif roll < 0.07 and m.can_redo():
                event = {"type": "redo", "seat": 1}
            elif roll < 0.075 and m.phase in ("accept", "choose_opener", "play"):
                event = {"type": "restart_hand", "seat": 1}
            elif roll < 0.0765:
                event = {"type": "new_match", "seat": 1}
        if event is None:
            event = random_event(m, rng)
        m.apply(event)
        events.append(event)
    return events, m
