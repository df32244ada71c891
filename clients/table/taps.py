"""What a tap on a region of the table (a ``ui.Tap``) does to the ``TableApp``."""

from __future__ import annotations

from clients.table.ui import (
    Accept,
    Answer,
    BackToLobby,
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
    SkipLanding,
    Tap,
)


def tap(app, tap: Tap) -> None:
    match tap:
        case PickTile(tile):
            app.select(tile)
        case PlaceAt(end):
            if app.selected:
                app.play(app.selected, end)
        case Press(button):
            app.press(button)
        case HandOver(seat):
            app.show(seat)
        case Accept(seat):
            app.send(seat, "accept")
        case ClaimRedeal(seat):
            app.send(seat, "claim_redeal")
        case ChooseOpener(seat, opener):
            app.send(seat, "choose_opener", opener=opener)
        case SkipLanding():
            app.finale = None
        case Continue():
            result_seen(app)
        case MatchSeen():
            app.match_end_seen = True
        case BackToLobby():
            if app.on_lobby is not None:
                app.on_lobby()
        case ClosePanel():
            app.close_panel()
        case Answer(yes):
            answer(app, yes)
        case NewMatch():
            app.press("new_match")


def result_seen(app) -> None:
    newest = app.newest
    app.revealed_upto = len(newest.view.get("results") or []) if newest else 0
    app.finale = None
    if len(app.seats) > 1:
        # Pass-and-play: the reveal was for everyone; the next private screen,
        # whoever's it is, starts with a hand-off.
        app.shown = app.handoff_done = None


def answer(app, yes: bool) -> None:
    """The restart / new game question was answered."""
    what, app.confirm = app.confirm, None
    seat = app.acting_seat()
    if yes and what and seat is not None:
        app.send(seat, what)
        if what == "new_match":
            app.revealed_upto = None
            app.news.forget_results()
            app.finale = None
            app.match_end_seen = True
