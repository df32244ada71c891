"""Which screen the table client shows: a pure function of the newest seat views and a
small snapshot of the screen's own state (``UiState``). No pygame, no network; the
controller (``app.TableApp.decide``) applies what it implies (showing a seat). Also the
finished board a hand-end screen shows, read off the server's ``last_hand`` (used by
the controller and by the drawing, which import this module and not each other)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clients.table.ui import Finale, Screen


@dataclass(frozen=True)
class UiState:
    seats: tuple[int, ...]  # the human seats this account holds here
    shown: int | None  # the seat whose private screen was last shown
    handoff_done: int | None  # pass-and-play: the hand-off was confirmed for it
    revealed_upto: int  # hand results the player has dismissed
    finale: Finale | None  # the hand end being shown
    match_end_seen: bool
    now: float
    watching: bool = False  # a spectator: the table only, never a decision screen


def seat_needing_the_device(waiting: Sequence[int], ui: UiState) -> int | None:
    """The held seat that must act now, preferring the one already on screen.
    ``waiting``: the seats the match waits for (the server's ``seats_to_act``)."""
    held = [seat for seat in waiting if seat in ui.seats]
    if ui.shown in held:
        return ui.shown
    return held[0] if held else None


# Phases whose decision has a screen of its own (a play is made on the table itself).
DECISION_SCREENS = {"accept": "accept", "choose_opener": "opener"}


def screen_for(newest: dict | None, ui: UiState, waiting: Sequence[int]) -> Screen:
    """``newest``: the newest view among the seats held (public facts are the same in
    all); ``waiting``: the seats the match waits for at its version (the server's
    ``seats_to_act``)."""
    if newest is None:
        return Screen("connecting")
    results = newest.get("results") or []
    viewer = ui.shown or (ui.seats[0] if ui.seats else None)
    if len(results) > ui.revealed_upto and newest.get("last_hand"):
        # Everybody looks at the finished board, then the reveal: no private tile.
        finale = ui.finale
        if (
            finale is not None
            and finale.results == len(results)
            and ui.now < finale.started + finale.hold
        ):
            return Screen("landing", viewer)
        return Screen("reveal", viewer)
    if newest.get("phase") == "match_over" and not ui.match_end_seen:
        return Screen("match_over", viewer)
    seat = seat_needing_the_device(waiting, ui) or viewer
    if seat is None:
        return Screen("connecting")
    if len(ui.seats) > 1 and seat != ui.shown and ui.handoff_done != seat:
        return Screen("handoff", seat)
    if seat in waiting and newest.get("phase") in DECISION_SCREENS and not ui.watching:
        return Screen(DECISION_SCREENS[newest["phase"]], seat)
    return Screen("table", seat)


def finished_view(view: dict) -> dict:
    """The view of the board as the last hand ended (from the server's ``last_hand``):
    the finished line, the tiles left, no hand of one's own, nobody to act."""
    last = view.get("last_hand") or {}
    line = last.get("line") or []
    hands = last.get("hands") or {}
    return {
        **view,
        "phase": "hand_over",
        "to_act": None,
        "legal": [],
        "hand": [],
        "line": line,
        "turns": last.get("turns") or [],
        "hand_no": last.get("hand_no"),
        "tile_counts": {k: len(v or []) for k, v in hands.items()},
        "accepted": {},
        "ends": [line[0]["a"], line[-1]["b"]] if line else None,
    }


def ends_before_last_tile(last: dict) -> tuple[str, int, int] | None:
    """(the last tile, left end, right end) just before the hand's last tile was played,
    read from the finished line (line items are ``a``-``b`` left to right)."""
    line = last.get("line") or []
    plays = [t for t in last.get("turns") or [] if t.get("type") == "play"]
    if len(line) < 2 or not plays or plays[-1].get("end") not in ("left", "right"):
        return None
    tile = plays[-1]["tile"]
    if plays[-1]["end"] == "left":
        return tile, line[0]["b"], line[-1]["b"]
    return tile, line[0]["a"], line[-1]["a"]
