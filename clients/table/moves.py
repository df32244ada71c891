"""Playing a tile: what the seat view allows (``legal_plays``, ``my_turn``, both pure)
and the selection of a tile and its end on the ``TableApp``."""

from __future__ import annotations


def legal_plays(view: dict) -> dict[str, list[str]]:
    """tile -> the ends it may go to ("left"/"right", or "center" to open)."""
    out: dict[str, list[str]] = {}
    for event in view.get("legal", []):
        if event.get("type") == "play":
            out.setdefault(event["tile"], []).append(event.get("end") or "center")
    return out


def my_turn(view: dict, seat: int | None) -> bool:
    return view.get("phase") == "play" and view.get("to_act") == seat


def select(app, tile: str) -> None:
    """Lift ``tile`` (or put it back); a tile with a single end is aimed at it."""
    seat = app.shown
    if app.selected == tile:
        app.clear_selection()
        return
    app.selected = tile
    app.chosen_end = None
    ends = app.legal_plays(seat).get(tile, [])
    if not app.my_turn(seat):
        return
    if len(ends) == 1:  # no end: the guidance line says why, once
        app.chosen_end = ends[0]
    app.sound.play("click")


def play(app, tile: str, end: str | None) -> bool:
    """Send the play if it is legal; otherwise explain. True when sent."""
    seat = app.shown
    ends = app.legal_plays(seat).get(tile, [])
    if not app.my_turn(seat) or not ends:
        app.toast(app.tr("play.not_legal", tile=tile), error=True)
        return False
    if end is None:
        if len(ends) > 1:
            app.toast(app.tr("play.choose_end", tile=tile))
            return False
        end = ends[0]
    if end not in ends:
        app.toast(app.tr("err.tile_does_not_fit"), error=True)
        return False
    fields = {"tile": tile} if end == "center" else {"tile": tile, "end": end}
    app.send(seat, "play", **fields)
    app.clear_selection()
    app.hint = None
    return True
