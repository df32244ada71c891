"""What a keyboard command (``input.KEYS`` names it) does on the screen shown: one table
per screen, from command to what it does to the ``TableApp``.

A question (restart / new game) and an open panel take every key first; the hand-off,
landing, reveal and match-end screens answer only their own keys; the accept and opener
screens answer theirs and leave the rest to the table's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clients.table.ui import Continue, MatchSeen, Screen, SkipLanding

Command = Callable[[Any, Screen], None]  # (app, screen)

TOOLBAR_KEYS = ("hint", "undo", "redo", "rules", "log", "language", "sound", "speed")


def _scroll(by: int) -> Command:
    return lambda app, screen: app.scroll_panel(by)


def _panel(name: str) -> Command:
    return lambda app, screen: app.open_panel(name)


def _tap(tap) -> Command:
    return lambda app, screen: app.tap(tap)


def _press(name: str) -> Command:
    return lambda app, screen: app.press(name)


PANEL: dict[str, Command] = {
    "cancel": lambda app, screen: app.close_panel(),
    "rules": _panel("rules"),  # the same key closes, the other switches
    "log": _panel("log"),
    "page_down": _scroll(200),
    "end_right": _scroll(40),
    "page_up": _scroll(-200),
    "end_left": _scroll(-40),
}


def _hand_over(app, screen: Screen) -> None:
    if screen.seat is not None:
        app.show(screen.seat)


# Screens that answer only these keys.
ONLY: dict[str, dict[str, Command]] = {
    "handoff": {"confirm": _hand_over},
    "landing": {
        "confirm": _tap(SkipLanding()),
        "cancel": _tap(SkipLanding()),
        "rules": _panel("rules"),
        "log": _panel("log"),
    },
    "reveal": {
        "confirm": _tap(Continue()),
        "cancel": _tap(Continue()),
        "rules": _panel("rules"),
        "log": _panel("log"),
    },
    "match_over": {
        "confirm": _tap(MatchSeen()),
        "cancel": _tap(MatchSeen()),
        **{name: _press(name) for name in ("rules", "log", "language")},
    },
}


def _accept(app, screen: Screen) -> None:
    app.send(screen.seat, "accept")


def _claim(app, screen: Screen) -> None:
    if app.view_of(screen.seat).get("can_claim_redeal"):
        app.send(screen.seat, "claim_redeal")


def _opener(mine: bool) -> Command:
    def choose(app, screen: Screen) -> None:
        opener = screen.seat if mine else app.view_of(screen.seat).get("partner")
        app.send(screen.seat, "choose_opener", opener=opener)

    return choose


# Screens that answer these keys first, then the table's.
FIRST: dict[str, dict[str, Command]] = {
    "accept": {"accept": _accept, "confirm": _accept, "claim_redeal": _claim},
    "opener": {"choose_1": _opener(True), "choose_2": _opener(False)},
}


def step_selection(app, step: int) -> None:
    """Select the next (or previous) tile of the hand; the first legal one to start."""
    hand = app.view_of(app.shown).get("hand", [])
    if not hand:
        return
    if app.selected in hand:
        index = (hand.index(app.selected) + step) % len(hand)
    else:
        legal = [t for t in hand if t in app.legal_plays(app.shown)]
        index = hand.index(legal[0]) if legal else (0 if step > 0 else len(hand) - 1)
    app.selected = None
    app.select(hand[index])


def choose_end(app, side: str) -> None:
    """Aim the selected tile at an end; one it does not fit falls back to its only end."""
    app.chosen_end = side
    if app.selected:
        ends = app.legal_plays(app.shown).get(app.selected, [])
        if side not in ends:
            app.chosen_end = ends[0] if len(ends) == 1 else None


def _confirm(app, screen: Screen) -> None:
    if app.selected:
        app.play(app.selected, app.chosen_end)


TABLE: dict[str, Command] = {
    "select_prev": lambda app, screen: step_selection(app, -1),
    "select_next": lambda app, screen: step_selection(app, 1),
    "end_left": lambda app, screen: choose_end(app, "left"),
    "end_right": lambda app, screen: choose_end(app, "right"),
    "confirm": _confirm,
    "cancel": lambda app, screen: app.clear_selection(),
    **{name: _press(name) for name in TOOLBAR_KEYS},
}


def _nothing(app, screen: Screen) -> None:
    pass


def command_for(name: str, screen: Screen, confirming: bool, panel_open: bool) -> Command:
    """What the keyboard command ``name`` does now (doing nothing is a command too)."""
    if confirming:
        if name in ("confirm", "cancel"):
            return lambda app, screen: app.answer(name == "confirm")
        return _nothing
    if panel_open:
        return PANEL.get(name, _nothing)
    if screen.kind in ONLY:
        return ONLY[screen.kind].get(name, _nothing)
    first = FIRST.get(screen.kind, {})
    return first.get(name) or TABLE.get(name, _nothing)
