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


def select(app: TableContext, tile: str) -> None:
    """Lift ``tile`` (or put it back); a tile with a single end is aimed at it."""
    seat = app.seating.shown
    selection = app.selection
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
    app.clear_selection()
    app.selection.hint = None
    return True
