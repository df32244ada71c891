"""What a toolbar button (``render.BUTTONS``) does, as a table from its name to an action
on the ``TableApp`` (for the seat on screen, or the first one held)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clients.table.i18n import next_language

Action = Callable[[Any, int | None], None]  # (app, seat)


def _hint(app, seat: int | None) -> None:
    if seat is not None and app.view_of(seat).get("legal"):
        app.conn.hint(seat)
    else:
        app.toast(app.tr("hint.none"))


def _undo_or_redo(name: str) -> Action:
    def act(app, seat: int | None) -> None:
        if seat is not None and app.allowed(seat, name):
            app.send(seat, name)
        else:
            app.toast(app.tr(f"err.nothing_to_{name}"))

    return act


def _ask(name: str) -> Action:
    """Restart hand / new game ask first (``app.confirm``)."""

    def act(app, seat: int | None) -> None:
        if seat is not None and app.allowed(seat, name):
            app.confirm = name
        else:
            app.toast(app.tr("toast.not_allowed"))

    return act


def _lobby(app, seat: int | None) -> None:
    if app.on_lobby is not None:
        app.on_lobby()


def _sound(app, seat: int | None) -> None:
    app.settings.sound = not app.settings.sound
    app.sound.enabled = app.settings.sound
    app.toast(app.tr("toast.sound_on" if app.settings.sound else "toast.sound_off"), public=True)
    app.save()


def _speed(app, seat: int | None) -> None:
    speed = app.settings.next_speed()
    app.toast(app.tr("toast.speed", speed=app.tr(f"speed.{speed}")), public=True)
    app.save()


PRESS: dict[str, Action] = {
    "rules": lambda app, seat: app.open_panel("rules"),
    "log": lambda app, seat: app.open_panel("log"),
    "hint": _hint,
    "undo": _undo_or_redo("undo"),
    "redo": _undo_or_redo("redo"),
    "restart_hand": _ask("restart_hand"),
    "new_match": _ask("new_match"),
    "lobby": _lobby,
    "language": lambda app, seat: app.set_language(next_language(app.tr.lang)),
    "sound": _sound,
    "speed": _speed,
}


def press(app, name: str) -> None:
    action = PRESS.get(name)
    if action is not None:
        action(app, app.acting_seat())
