"""Playing a tile: what the seat view allows (``legal_plays``, ``my_turn``, both pure)
and the selection of a tile and its end on the table (a ``context.TableContext``)."""

from __future__ import annotations

from typing import Any

from clients.table.context import TableContext


def legal_plays(view: dict[str, Any]) -> dict[str, list[str]]:
    """tile -> the ends it may go to ("left"/"right", or "center" to open)."""
    out: dict[str, list[str]] = {}
    for event in view.get("legal", []):
        if event.get("type") == "play":
            out.setdefault(event["tile"], []).append(event.get("end") or "center")
    return out


def my_turn(view: dict[str, Any], seat: int | None) -> bool:
    return view.get("phase") == "play" and view.get("to_act") == seat


def on_its_way(app: TableContext, seat: int | None) -> str | None:
    """The tile ``seat`` played that the server has not answered yet (None: none)."""
    sent = app.seating.sent.get(seat) if seat is not None else None
    return sent[0] if sent is not None else None


def settle_sent(app: TableContext, busy: bool) -> None:
    """Forget the plays the server has answered: a newer view of the seat that no longer
    waits for that play (the tile left the hand, or it is not the seat's turn to play),
    or any newer view once the link has nothing on its way (``busy``: a refused action
    sent again at the newer version keeps its tile on its way). A refusal forgets it at
    once (``forget_sent``)."""
    for seat, (tile, version) in list(app.seating.sent.items()):
        state = app.seating.states.get(seat)
        if state is None:
            app.seating.sent.pop(seat)
            continue
        if state.version <= version:
            continue
        view = state.view
        answered = tile not in view.get("hand", []) or not my_turn(view, seat)
        if answered or not busy:
            app.seating.sent.pop(seat)


def forget_sent(app: TableContext, seat: int | None) -> None:
    """A refusal for ``seat`` (None: for any): its tile comes back to the hand."""
    if seat is None:
        app.seating.sent.clear()
    else:
        app.seating.sent.pop(seat, None)


def select(app: TableContext, tile: str) -> None:
    """Lift ``tile`` (or put it back); a tile with a single end is aimed at it. Nothing
    is lifted while a play of this seat is on its way to the server."""
    seat = app.seating.shown
    selection = app.selection
    if on_its_way(app, seat) is not None:
        return
    if selection.tile == tile:
        app.clear_selection()
        return
    selection.tile = tile
    selection.end = None
    ends = app.legal_plays(seat).get(tile, [])
    if not app.my_turn(seat):
        return
    if len(ends) == 1:  # no end: the guidance line says why, once
        selection.end = ends[0]
    app.sound.play("click")


def play(app: TableContext, tile: str, end: str | None) -> bool:
    """Send the play if it is legal; otherwise explain, once: when the tile is the one
    lifted, the guidance line already says why, so no toast repeats it. True when sent."""
    seat = app.seating.shown
    if on_its_way(app, seat) is not None:
        return False  # one play per decision: the one sent is answered first
    ends = app.legal_plays(seat).get(tile, [])
    explained = app.selection.tile == tile and app.my_turn(seat)
    if not app.my_turn(seat) or not ends:
        if not explained:
            app.toast(app.tr("play.not_legal", tile=tile), error=True, lasts="version")
        return False
    if end is None:
        if len(ends) > 1:
            if not explained:
                app.toast(app.tr("play.choose_end", tile=tile), lasts="version")
            return False
        end = ends[0]
    if end not in ends:
        app.toast(app.tr("err.tile_does_not_fit"), error=True, lasts="version")
        return False
    fields = {"tile": tile} if end == "center" else {"tile": tile, "end": end}
    app.send(seat, "play", **fields)
    state = app.seating.states.get(seat) if seat is not None else None
    if seat is not None and state is not None:
        app.seating.sent[seat] = (tile, state.version)
    app.clear_selection()
    app.selection.hint = None
    return True
