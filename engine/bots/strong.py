"""Level "strong": determinized Monte Carlo scored in match equity.

For a decision it samples worlds (hidden hands) uniformly among the deals consistent
with the seat's knowledge (``sampler``), plays every legal move in every world (the
same worlds for every move, which cancels most of the sampling noise between moves)
and finishes the hand with the fast playout policy (``rollout``). Each finished hand is
worth the match equity of the situation it leads to (``equity``), so a Dékabès, a tie
or a loss are weighed by what they do to the chance of winning the match.

The effort is a fixed number of playouts per decision (not a clock), so a decision is a
pure function of the view and the rng. A forced move returns at once.
"""

from __future__ import annotations

import random
from typing import Any

from engine.bots import equity
from engine.bots.common import Event, deal_decision, opener_event
from engine.bots.knowledge import Knowledge, event_placement, read_view
from engine.bots.rollout import TIE, opening_choice, playout
from engine.bots.sampler import InconsistentKnowledge, WorldSampler
from engine.bots.solver import value_after
from engine.core import EMPTY
from engine.tiles import ALL_TILES_MASK, TILE_HI, TILE_LO

PLAYOUT_BUDGET = 2400  # playouts per decision, shared by the legal moves
MAX_WORLDS = 400  # worlds per decision when there are few moves
OPENER_WORLDS = 300  # worlds per candidate when choosing the opener


def decide(view: dict[str, Any], rng: random.Random) -> Event:
    phase = view["phase"]
    if phase == "accept":
        return deal_decision(view)
    legal: list[Event] = view["legal"]
    if len(legal) == 1:
        return legal[0]
    know = read_view(view)
    if phase == "choose_opener":
        return opener_event(view, choose_opener(know, rng))
    return legal[best_move(know, legal, rng)]


def team_values(know: Knowledge, we_opened: bool) -> tuple[float, ...]:
    """Equity of each playout result code (A win, A Dékabès, B win, B Dékabès, tie)."""
    team = know.team
    us, them = know.scores[team], know.scores[1 - team]
    win, win_dek, loss, loss_dek, tie = equity.outcome_values(us, them, know.base, we_opened)
    if team == 0:
        return (win, win_dek, loss, loss_dek, tie)
    return (loss, loss_dek, win, win_dek, tie)


def best_move(know: Knowledge, legal: list[dict[str, Any]], rng: random.Random) -> int:
    try:
        sampler = WorldSampler(know)
    except InconsistentKnowledge:
        return 0
    moves = [event_placement(e) for e in legal]
    opening = know.left == EMPTY
    we_opened = opening or (know.opener is not None and (know.opener & 1) == know.team)
    values = team_values(know, we_opened)
    worlds = max(1, min(MAX_WORLDS, PLAYOUT_BUDGET // len(moves)))
    totals = [0.0] * len(moves)
    me = know.me
    nxt = (me + 1) & 3
    for _ in range(worlds):
        hands = sampler.sample(rng)
        for i, (tid, end) in enumerate(moves):
            totals[i] += value_after(hands, me, nxt, tid, end, know, opening, values)
    best = max(range(len(moves)), key=lambda i: (totals[i], -i))
    return best


def choose_opener(know: Knowledge, rng: random.Random, worlds: int = OPENER_WORLDS) -> int:
    """Seat number (1..4) to open: me or my partner, whichever gives the better equity."""
    values = choose_opener_values(know, rng, worlds)
    me, partner = know.me, (know.me + 2) & 3
    return (me if values[me] >= values[partner] else partner) + 1


def choose_opener_values(
    know: Knowledge, rng: random.Random, worlds: int = OPENER_WORLDS
) -> dict[int, float]:
    """Seat index -> mean equity for my team if that seat (me or my partner) opens."""
    me, partner = know.me, (know.me + 2) & 3
    opening_know = Knowledge(
        me=me,
        hand=know.hand,
        unknown=ALL_TILES_MASK & ~know.hand,
        counts=[7, 7, 7, 7],
        voids=[0, 0, 0, 0],
        left=EMPTY,
        right=EMPTY,
        to_act=me,
        passes=0,
        must_open_66=False,
        opener=None,
        scores=know.scores,
        base=know.base,
        first_hand=False,
    )
    sampler = WorldSampler(opening_know)
    values = team_values(know, True)
    totals = {me: 0.0, partner: 0.0}
    for _ in range(worlds):
        hands = sampler.sample(rng)
        for opener in (me, partner):
            world = hands.copy()
            tid = opening_choice(world[opener])
            world[opener] &= ~(1 << tid)
            code = playout(world, TILE_LO[tid], TILE_HI[tid], (opener + 1) & 3, 0)
            totals[opener] += values[code]
    return {seat: total / worlds for seat, total in totals.items()}


__all__ = ["decide", "best_move", "choose_opener", "choose_opener_values", "TIE"]
