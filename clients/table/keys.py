"""What a keyboard command (``input.KEYS`` names it) does on the screen shown: one table
per screen, from command to what it does to the ``TableApp``.

Another player's takeback request, a question (restart / new game) and an open panel
take every key first; the hand-off,
landing, reveal and match-end screens answer only their own keys; the accept and opener
screens answer theirs and leave the rest to the table's.
"""

from __future__ import annotations

from collections.abc import Callable

from clients.table.context import TableContext
from clients.table.ui import (
    AnswerTakeback,
    Continue,
    MatchSeen,
    Screen,
    SkipLanding,
    Tap,
    ToggleLastTiles,
)

Command = Callable[[TableContext, Screen], None]  # (app, screen)

TOOLBAR_KEYS = ("hint", "undo", "redo", "rules", "log", "settings", "language", "sound", "speed")
# Keys that decide nothing and mean the same on every screen (a panel, a setting): they
# act even when the screen changed since the last frame (``guard.py``); every other key
# then waits for the new screen to be drawn.
ANY_SCREEN = frozenset(
    ("rules", "log", "settings", "language", "sound", "speed", "last_tiles", "page_up", "page_down")
)


def _scroll(by: int) -> Command:
    return lambda app, screen: app.scroll_panel(by)


def _panel(name: str) -> Command:
    return lambda app, screen: app.open_panel(name)


def _tap(tap: Tap) -> Command:
    return lambda app, screen: app.tap(tap)


def _press(name: str) -> Command:
    return lambda app, screen: app.press(name)


PANEL: dict[str, Command] = {
    "cancel": lambda app, screen: app.close_panel(),
    "rules": _panel("rules"),  # the same key closes, the other switches
    "log": _panel("log"),
    "settings": _panel("settings"),
    "page_down": _scroll(200),
    "end_right": _scroll(40),
    "page_up": _scroll(-200),
    "end_left": _scroll(-40),
}


def _hand_over(app: TableContext, screen: Screen) -> None:
    # Only a key pressed once the hand-off was on display long enough (``guard.py``): a
    # second press of the key that accepted the last seat's deal must not pass it.
    if screen.seat is not None and app.guard.passes_key(screen.seat):
        app.show(screen.seat)


# Screens that answer only these keys.
ONLY: dict[str, dict[str, Command]] = {
    "handoff": {"confirm": _hand_over},
    "landing": {
        "confirm": _tap(SkipLanding()),
        "cancel": _tap(SkipLanding()),
        "rules": _panel("rules"),
        "log": _panel("log"),
        "settings": _panel("settings"),
    },
    "reveal": {
        "confirm": _tap(Continue()),
        "cancel": _tap(Continue()),
        "rules": _panel("rules"),
        "log": _panel("log"),
        "settings": _panel("settings"),
    },
    "match_over": {
        "confirm": _tap(MatchSeen()),
        "cancel": _tap(MatchSeen()),
        **{name: _press(name) for name in ("rules", "log", "settings", "language", "undo")},
    },
    "starting": {"settings": _panel("settings"), "language": _press("language")},
}


def _accept(app: TableContext, screen: Screen) -> None:
    app.send(screen.seat, "accept")


def _claim(app: TableContext, screen: Screen) -> None:
    if app.view_of(screen.seat).get("can_claim_redeal"):
        app.send(screen.seat, "claim_redeal")


def _opener(mine: bool) -> Command:
    def choose(app: TableContext, screen: Screen) -> None:
        opener = screen.seat if mine else app.view_of(screen.seat).get("partner")
        app.send(screen.seat, "choose_opener", opener=opener)

    return choose


# Screens that answer these keys first, then the table's.
FIRST: dict[str, dict[str, Command]] = {
    "accept": {"accept": _accept, "confirm": _accept, "claim_redeal": _claim},
    "opener": {"choose_1": _opener(True), "choose_2": _opener(False)},
}


def step_selection(app: TableContext, step: int) -> None:
    """Select the next (or previous) legal tile of the hand; nothing when none may go."""
    seat = app.seating.shown
    hand = app.view_of(seat).get("hand", [])
    legal = [t for t in hand if t in app.legal_plays(seat)] if app.my_turn(seat) else []
    if not legal:
        return
    current = app.selection.tile
    if current in legal:
        tile = legal[(legal.index(current) + step) % len(legal)]
    elif current in hand:  # from an unplayable tile: the next legal one in that direction
        after = [
            t
            for t in (
                hand[hand.index(current) + 1 :] if step > 0 else hand[: hand.index(current)][::-1]
            )
            if t in legal
        ]
        tile = after[0] if after else (legal[0] if step > 0 else legal[-1])
    else:
        tile = legal[0] if step > 0 else legal[-1]
    app.selection.tile = None
    app.select(tile)


def choose_end(app: TableContext, side: str) -> None:
    """Aim the selected tile at an end; one it does not fit falls back to its only end."""
    selection = app.selection
    selection.end = side
    if selection.tile:
        ends = app.legal_plays(app.seating.shown).get(selection.tile, [])
        if side not in ends:
            selection.end = ends[0] if len(ends) == 1 else None


def _confirm(app: TableContext, screen: Screen) -> None:
    if app.selection.tile:
        app.play(app.selection.tile, app.selection.end)


TABLE: dict[str, Command] = {
    "select_prev": lambda app, screen: step_selection(app, -1),
    "select_next": lambda app, screen: step_selection(app, 1),
    "end_left": lambda app, screen: choose_end(app, "left"),
    "end_right": lambda app, screen: choose_end(app, "right"),
    "confirm": _confirm,
    "cancel": lambda app, screen: app.clear_selection(),
    "last_tiles": _tap(ToggleLastTiles()),
    **{name: _press(name) for name in TOOLBAR_KEYS},
}


def _nothing(app: TableContext, screen: Screen) -> None:
    pass


def _answer_takeback(yes: bool) -> Command:
    def answer(app: TableContext, screen: Screen) -> None:
        question = app.takeback_question(screen)
        if question is not None:
            app.tap(AnswerTakeback(question[0], yes))

    return answer


# Another player's takeback request on screen: Enter accepts, Esc declines, nothing else.
TAKEBACK: dict[str, Command] = {
    "confirm": _answer_takeback(True),
    "cancel": _answer_takeback(False),
}


def command_for(
    name: str, screen: Screen, confirming: bool, panel_open: bool, asked: bool = False
) -> Command:
    """What the keyboard command ``name`` does now (doing nothing is a command too);
    ``asked``: another player's takeback request waits for an answer on this screen."""
    if asked:
        return TAKEBACK.get(name, _nothing)
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
