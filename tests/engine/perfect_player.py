"""A perfect-information player, for measuring only: it reads every hand.

It exists to measure the ceiling (how well a player does that sees all four hands),
so that the notes can say how much of it "strong" and "expert" reach. It is never
reachable from a seat view, from ``engine.bots`` or from any engine API: it lives here,
under tests/, and is handed the ``Match`` itself by the measuring script
(``python -m tests.engine.ceiling``).

Each decision searches the true deal with ``engine.bots.solver`` (alpha-beta between
the teams, to the end of the hand once few tiles are left, else a few plies then the
playout), valued in match equity like the real bots.
"""

from __future__ import annotations

import random

from engine import Match
from engine.autoplay import bot_players
from engine.bots.common import deal_decision, opener_event
from engine.bots.knowledge import event_placement, read_view
from engine.bots.solver import search
from engine.bots.strong import team_values
from engine.core import EMPTY
from engine.tiles import DOUBLE_MASK, OTHER, TILE_HI, TILE_ID, TILE_LO

EXACT_AT = 16
DEPTH = 5


def true_hands(match: Match) -> list[int]:
    hands_left = match.summary()["hands_left"]
    masks = []
    for seat in ("1", "2", "3", "4"):
        mask = 0
        for text in hands_left[seat]:
            mask |= 1 << TILE_ID[text]
        masks.append(mask)
    return masks


def decide(match: Match, view, rng: random.Random) -> dict:
    phase = view["phase"]
    if phase == "accept":
        return deal_decision(view)
    legal = view["legal"]
    if len(legal) == 1:
        return legal[0]
    know = read_view(view)
    hands = true_hands(match)
    if phase == "choose_opener":
        me, partner = know.me, (know.me + 2) & 3
        best = max((me, partner), key=lambda o: _best_opening(hands, o, know)[0])
        return opener_event(view, best + 1)
    opening = know.left == EMPTY
    we_opened = opening or (know.opener is not None and (know.opener & 1) == know.team)
    values_a = _values_a(know, we_opened)
    scored = []
    for i, event in enumerate(legal):
        tid, end = event_placement(event)
        value_a = _after(hands, know.me, tid, end, know.left, know.right, values_a)
        scored.append((value_a if know.team == 0 else -value_a, -i))
    return legal[-max(scored)[1]]


def _values_a(know, we_opened: bool) -> tuple[float, ...]:
    ours = team_values(know, we_opened)
    return ours if know.team == 0 else tuple(1.0 - v for v in ours)


def _best_opening(hands, opener: int, know) -> tuple[float, int]:
    """(the deciding team's value, tile) of the best opening tile for ``opener``."""
    values_a = _values_a(know, True)
    best = None
    mask = hands[opener]
    for tid in range(28):
        if mask >> tid & 1:
            value_a = _after(hands, opener, tid, None, EMPTY, EMPTY, values_a)
            value = value_a if know.team == 0 else -value_a
            if best is None or value > best[0]:
                best = (value, tid)
    return best


def _after(hands, seat, tid, end, left, right, values_a) -> float:
    world = list(hands)
    rest = world[seat] & ~(1 << tid)
    world[seat] = rest
    if left == EMPTY:
        left, right = TILE_LO[tid], TILE_HI[tid]
    else:
        if not rest:
            dekabes = (
                OTHER[tid][left] >= 0 and OTHER[tid][right] >= 0 and not DOUBLE_MASK >> tid & 1
            )
            return values_a[(seat & 1) * 2 + dekabes]
        if end == 0 or (end is None and OTHER[tid][left] >= 0):
            left = OTHER[tid][left]
        else:
            right = OTHER[tid][right]
    tiles_left = sum(h.bit_count() for h in world)
    depth = None if tiles_left <= EXACT_AT else DEPTH
    return search(world, left, right, (seat + 1) & 3, 0, values_a, depth)


def players(names, rngs, match: Match):
    """``simulate(players=...)`` factory: "perfect" seats read ``match``; others are bots."""
    bots = bot_players([n if n != "perfect" else "random" for n in names], rngs)
    out = []
    for name, rng, bot in zip(names, rngs, bots, strict=True):
        if name == "perfect":
            out.append(lambda view, rng=rng: decide(match, view, rng))
        else:
            out.append(bot)
    return out
