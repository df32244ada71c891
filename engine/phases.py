"""The phases of a match, by name: the values the fold, the seat view, the record's
replay summary and the API all carry (plain strings, JSON as they are; typed as the
``Phase`` literal, like python-chess's ``Termination`` but without an enum's wrapper).

    deal -> accept -> (choose_opener) -> play -> deal ... -> match_over

Code outside the engine compares against these names rather than writing the strings.
"""

from __future__ import annotations

from typing import Final, Literal

Phase = Literal["deal", "accept", "choose_opener", "play", "match_over"]

DEAL: Final = "deal"  # a deal event is due (before each hand, and after a redeal claim)
ACCEPT: Final = "accept"  # each seat accepts the deal or claims a redeal
CHOOSE_OPENER: Final = "choose_opener"  # every hand after the first: the team picks its opener
PLAY: Final = "play"  # tiles are laid
MATCH_OVER: Final = "match_over"  # a team has reached the winning score

PHASES: tuple[Phase, ...] = (DEAL, ACCEPT, CHOOSE_OPENER, PLAY, MATCH_OVER)
# A hand is dealt and not over: the phases ``restart_hand`` accepts.
HAND_IN_PROGRESS: tuple[Phase, ...] = (ACCEPT, CHOOSE_OPENER, PLAY)
# No hand in progress: before a deal, or the match is over.
BETWEEN_HANDS: tuple[Phase, ...] = (DEAL, MATCH_OVER)
# Someone must choose (the opener) or play: ``to_act`` names that seat.
SEAT_TO_ACT: tuple[Phase, ...] = (CHOOSE_OPENER, PLAY)

__all__ = [
    "ACCEPT",
    "BETWEEN_HANDS",
    "CHOOSE_OPENER",
    "DEAL",
    "HAND_IN_PROGRESS",
    "MATCH_OVER",
    "PHASES",
    "PLAY",
    "Phase",
    "SEAT_TO_ACT",
]
