"""What a tap on a region of the table (a ``ui.Tap``) does to the table (a
``context.TableContext``)."""

from __future__ import annotations

from clients.table.context import TableContext
from clients.table.people import computer_for
from clients.table.ui import (
    Accept,
    Answer,
    AnswerTakeback,
    BackToLobby,
    ChangeSetting,
    ChooseOpener,
    ClaimRedeal,
    ClosePanel,
    Continue,
    HandOver,
    MatchSeen,
    NewMatch,
    PickTile,
    PlaceAt,
    Press,
    ReplaceSeat,
    SkipLanding,
    Tap,
    ToggleLastTiles,
)


def tap(app: TableContext, tap: Tap) -> None:
    match tap:
        case PickTile(tile):
            app.select(tile)
        case PlaceAt(end):
            if app.selection.tile:
                app.play(app.selection.tile, end)
        case Press(button):
            app.press(button)
        case HandOver(seat):
            if app.guard.passes_tap(seat):  # a tap begun before it was armed: not this
                app.show(seat)
        case Accept(seat):
            app.send(seat, "accept")
        case ClaimRedeal(seat):
            app.send(seat, "claim_redeal")
        case ChooseOpener(seat, opener):
            app.send(seat, "choose_opener", opener=opener)
        case SkipLanding():
            app.progress.finale = None
        case Continue():
            result_seen(app)
        case MatchSeen():
            app.progress.match_end_seen = True
        case BackToLobby():
            if app.on_lobby is not None:
                app.on_lobby()
        case ClosePanel():
            app.close_panel()
        case Answer(yes):
            answer(app, yes)
        case NewMatch():
            app.press("new_match")
        case ChangeSetting(name, value):
            change_setting(app, name, value)
        case ToggleLastTiles():
            app.progress.last_tiles = not app.progress.last_tiles
        case ReplaceSeat(seat):
            app.progress.replacing = seat
            app.progress.confirm = "replace_seat"
        case AnswerTakeback(seat, yes):
            app.send(seat, "accept_takeback" if yes else "decline_takeback")


def result_seen(app: TableContext) -> None:
    newest = app.newest
    app.progress.revealed_upto = len(newest.view.get("results") or []) if newest else 0
    app.progress.finale = None
    if len(app.seating.seats) > 1:
        # Pass-and-play: the reveal was for everyone; the next private screen,
        # whoever's it is, starts with a hand-off.
        app.seating.shown = app.seating.handoff_done = None


def answer(app: TableContext, yes: bool) -> None:
    """The restart / new game / undo-into-the-match question was answered."""
    what, app.progress.confirm = app.progress.confirm, None
    seat = app.seating.acting()
    if not yes or not what or seat is None:
        app.progress.replacing = None
        return
    if what == "leave_seat":
        app.send(seat, "leave")
        return
    if what == "replace_seat":
        target, app.progress.replacing = app.progress.replacing, None
        newest = app.newest
        if target is not None and newest is not None and newest.table is not None:
            app.send(target, "replace", bot=computer_for(newest.table.raw))
        return
    if what == "undo_match":
        app.send(seat, "undo")
        app.progress.match_end_seen = True  # the board is back in play
        return
    app.send(seat, what)
    if what == "new_match":
        app.progress.revealed_upto = None
        app.progress.finale = None
        app.progress.match_end_seen = True
        app.news.forget_results()


def change_setting(app: TableContext, name: str, value: object) -> None:
    """A choice on the settings screen: taken into use at once and remembered."""
    if not app.settings.choose(name, value):
        return
    app.apply_settings()
    app.save()
