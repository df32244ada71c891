"""One driver for computer-only play: deal, accept, choose the opener, play.

``autoplay`` is what ``simulate``, the benchmarks, the tests and anything that seeds
finished matches use, instead of each writing its own loop. It plays through the real
fold (``Match.apply``) and gives each player the seat's lazy view (``Match.view``), so
a player sees exactly what the seat may know and pays only for the entries it reads.
Forced passes are written by the driver itself, as the server does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from engine.bots import decider, picker
from engine.events import deal_event
from engine.fold import Match, Picker
from engine.phases import BETWEEN_HANDS
from engine.seats import SEATS

Player = Callable[[Mapping[str, Any]], dict[str, Any]]
"""A computer player: a seat view in, one of ``view["legal"]`` out. It may also have a
``pick`` attribute (``Match.advance``'s picker): autoplay then uses that instead."""

ALL_BOT_SEATS = {"1": "bot", "2": "bot", "3": "bot", "4": "bot"}


def bot_players(
    levels: Sequence[str], rngs: Sequence[random.Random], expert_iterations: int | None = None
) -> list[Player]:
    """Four players of the given ``engine.bots`` levels, each with its own rng.

    ``expert_iterations``: the expert searches exactly that many worlds per decision,
    with no clock, so a simulation is reproducible whatever the machine's load.
    A level that can choose from the number of legal events alone (``random``) gets a
    ``pick`` too (``Match.advance``), which ``autoplay`` uses instead of the view.
    """
    players: list[Player] = []
    for level, rng in zip(levels, rngs, strict=True):
        choose = decider(level)
        if level == "expert" and expert_iterations is not None:
            from engine.bots.expert import Budget

            budget = Budget(iterations=expert_iterations, seconds=None)
            players.append(BotPlayer(choose, rng, budget))
        else:  # positional: simulate makes four per match
            players.append(BotPlayer(choose, rng, None, picker(level, rng)))
    return players


class BotPlayer:
    """``decide(view, rng)`` of one level bound to its rng; ``pick`` when it has one."""

    __slots__ = ("choose", "rng", "budget", "pick")

    def __init__(
        self,
        choose: Callable[..., dict[str, Any]],
        rng: random.Random,
        budget: object | None = None,
        pick: Picker | None = None,
    ) -> None:
        self.choose = choose
        self.rng = rng
        self.budget = budget
        self.pick = pick

    def __call__(self, view: Mapping[str, Any]) -> dict[str, Any]:
        if self.budget is None:
            return self.choose(view, self.rng)
        return self.choose(view, self.rng, self.budget)


def new_bot_match(rated: bool = False) -> Match:
    """A started match with four bot seats (a copy of one kept per ``rated``: a copy of
    a fresh match is a fresh match, at a third of the cost; simulate makes many)."""
    fresh = _FRESH_MATCHES.get(rated)
    if fresh is None:
        fresh = _FRESH_MATCHES[rated] = Match()
        fresh.apply({"type": "match_started", "seats": dict(ALL_BOT_SEATS), "rated": rated})
    return fresh.copy()


_FRESH_MATCHES: dict[bool, Match] = {}


def autoplay(
    match: Match,
    players: Sequence[Player],
    deal_rng: random.Random,
    *,
    until: Literal["hand", "match"] = "match",
    hands: int | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    stop: Callable[[Match], bool] | None = None,
) -> Match:
    """Play ``match`` on until the current hand ends (``until="hand"``) or the match does.

    ``players[i]`` decides for seat ``i + 1``; ``deal_rng`` shuffles every deal. Each
    applied event is passed to ``on_event`` (e.g. to write the record). A hand that is
    already over when called (phase ``deal``) means: play the next one. ``hands``: stop
    once that many more hands have ended, or the match (``until="hand"`` is
    ``hands=1``). ``stop(match)``, asked before every event, ends the play early when
    true.
    """
    apply = match.apply
    view = match.view
    if hands is None and until == "hand":
        hands = 1
    last_hand = None if hands is None else match.hands_finished + hands
    # players that choose from the number of legal events skip the view (same match)
    pickers = tuple([getattr(player, "pick", None) for player in players])
    fast = stop is None and pickers.count(None) < len(pickers)
    while True:
        phase = match.phase
        if phase == "match_over" or (stop is not None and stop(match)):
            return match
        if phase == "deal" and last_hand is not None and match.hands_finished >= last_hand:
            return match
        if fast:  # plays on, whole hands, up to a seat without a picker
            match.advance(pickers, on_event, deal_rng, last_hand)
            phase = match.phase
            if phase in BETWEEN_HANDS:
                continue
        if phase == "deal":
            event = deal_event(deal_rng)
        else:
            forced = match.forced_pass() if phase == "play" else None
            if forced is not None:
                event = forced
            else:
                seat = _next_to_accept(match) if phase == "accept" else _to_act(match)
                event = players[seat - 1](view(seat))
        apply(event)
        if on_event is not None:
            on_event(event)


def _to_act(match: Match) -> int:
    seat = match.to_act
    if seat is None:
        raise RuntimeError(f"nobody is to act in phase {match.phase}")
    return seat


def _next_to_accept(match: Match) -> int:
    for seat in SEATS:
        if match.legal_events(seat):
            return seat
    raise RuntimeError("accept phase with every seat accepted")  # the fold never allows it
