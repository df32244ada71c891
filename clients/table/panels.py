"""The rules and log panels: opening one pauses the computer players (when the server
allows it for the seat acting) until it is closed."""

from __future__ import annotations

from clients.table import render


def open_panel(app, name: str) -> None:
    if app.panel == name:  # the same key or button closes it
        close_panel(app)
        return
    if app.panel:
        close_panel(app)
    app.panel = name
    app.panel_scroll = 0
    seat = app.acting_seat()
    if seat is not None and app.allowed(seat, "pause"):
        app.send(seat, "pause")
        app.panel_paused_seat = seat
    if name == "log" and seat is not None:
        app.log_events = None
        app.conn.fetch_events(seat)


def scroll_panel(app, by: int) -> None:
    """Scroll the open panel, never past its text (the extent comes from render)."""
    app.panel_scroll = max(0, min(app.panel_scroll + by, render.panel_scroll_max(app)))


def close_panel(app) -> None:
    app.panel = None
    seat, app.panel_paused_seat = app.panel_paused_seat, None
    if seat is not None:
        app.conn.act(seat, "resume", None)
