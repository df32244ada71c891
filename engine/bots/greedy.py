"""Level "greedy": the heaviest playable tile; it always opens itself.

Ties between equally heavy tiles go to the first in the view's legal order (tiles in
ascending order, the left end before the right), so the choice is deterministic.
"""

from __future__ import annotations

import random

from engine.bots.common import Event, View, deal_decision, event_pips, opener_event


def decide(view: View, rng: random.Random) -> Event:
    phase = view["phase"]
    if phase == "accept":
        return deal_decision(view)
    if phase == "choose_opener":
        return opener_event(view, view["seat"])
    legal: list[Event] = view["legal"]
    best = legal[0]
    for event in legal[1:]:
        if event["type"] == "play" and event_pips(event) > event_pips(best):
            best = event
    return best
