"""What a toolbar button (``render.frame.BUTTONS``) does, as a table from its name to an
action on the table (a ``context.TableContext``), for the seat on screen or the first
one held. The keyboard's G / M / S still switch the language, the sound and the
animation speed directly; the Settings button opens all of them."""

from __future__ import annotations

from collections.abc import Callable

from clients.table.context import TableContext
from clients.table.i18n import next_language

Action = Callable[[TableContext, int | None], None]  # (app, seat)


def _hint(app: TableContext, seat: int | None) -> None:
    if seat is not None and app.view_of(seat).get("legal"):
        app.conn.hint(seat)
    else:
        app.toast(app.tr("hint.none"), lasts="version")


def _undo(app: TableContext, seat: int | None) -> None:
    """Undo; at a finished match it would reopen it: ask first."""
    if seat is None or not app.allowed(seat, "undo"):
        app.toast(app.tr("err.nothing_to_undo"), lasts="version")
    elif app.view_of(seat).get("phase") == "match_over":
        app.progress.confirm = "undo_match"
    else:
        app.send(seat, "undo")


def _redo(app: TableContext, seat: int | None) -> None:
    if seat is not None and app.allowed(seat, "redo"):
        app.send(seat, "redo")
    else:
        app.toast(app.tr("err.nothing_to_redo"), lasts="version")


def _ask(name: str) -> Action:
    """Restart hand / new game ask first (``progress.confirm``)."""

    def act(app: TableContext, seat: int | None) -> None:
        if seat is not None and app.allowed(seat, name):
            app.progress.confirm = name
        else:
            app.toast(app.tr("toast.not_allowed"), lasts="version")

    return act


def _leave(app: TableContext, seat: int | None) -> None:
    """Leave my seat (a casual table): ask first."""
    if seat is not None:
        app.progress.confirm = "leave_seat"


def _lobby(app: TableContext, seat: int | None) -> None:
    if app.on_lobby is not None:
        app.on_lobby()


def _sound(app: TableContext, seat: int | None) -> None:
    app.settings.sound = not app.settings.sound
    app.apply_settings()
    app.toast(
        app.tr("toast.sound_on" if app.settings.sound else "toast.sound_off"),
        public=True,
        lasts="always",
    )
    app.save()


def _speed(app: TableContext, seat: int | None) -> None:
    speed = app.settings.next_speed()
    app.toast(app.tr("toast.speed", speed=app.tr(f"speed.{speed}")), public=True, lasts="always")
    app.save()


PRESS: dict[str, Action] = {
    "rules": lambda app, seat: app.open_panel("rules"),
    "log": lambda app, seat: app.open_panel("log"),
    "settings": lambda app, seat: app.open_panel("settings"),
    "hint": _hint,
    "undo": _undo,
    "redo": _redo,
    "restart_hand": _ask("restart_hand"),
    "new_match": _ask("new_match"),
    "lobby": _lobby,
    "leave": _leave,
    "language": lambda app, seat: app.set_language(next_language(app.tr.lang)),
    "sound": _sound,
    "speed": _speed,
    "quit": lambda app, seat: app.quit(),
}


def press(app: TableContext, name: str) -> None:
    action = PRESS.get(name)
    if action is not None:
        action(app, app.seating.acting())
