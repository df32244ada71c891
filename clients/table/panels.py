"""The panels: rules and log pause the computer players (when the server allows it for
the seat acting) until closed; the log opens at its newest entry. Settings open over
the table without pausing anything."""

from __future__ import annotations

from clients.table.context import TableContext
from clients.table.render.panel import panel_scroll_max

AT_THE_END = 1 << 30  # a scroll past any text: the drawing shows its end


def open_panel(app: TableContext, name: str) -> None:
    panel = app.panel
    if panel.name == name:  # the same key or button closes it
        close_panel(app)
        return
    if panel.name:
        close_panel(app)
    panel.name = name
    panel.scroll = AT_THE_END if name == "log" else 0
    if name == "settings":
        return
    seat = app.seating.acting()
    if seat is not None and app.allowed(seat, "pause"):
        app.send(seat, "pause")
        panel.paused_seat = seat
    if name == "log" and seat is not None:
        panel.log_events = None
        panel.log_seat = seat
        app.conn.fetch_events(seat)


def scroll_panel(app: TableContext, by: int) -> None:
    """Scroll the open panel, never past its text (the extent comes from the drawing)."""
    most = panel_scroll_max(app)
    app.panel.scroll = max(0, min(min(app.panel.scroll, most) + by, most))


def close_panel(app: TableContext) -> None:
    panel = app.panel
    panel.name = None
    seat, panel.paused_seat = panel.paused_seat, None
    if seat is not None:
        app.conn.act(seat, "resume", None)
