"""What an input event does on the table: quit, a resized window, focus, a key (its
command, ``keys.py``), or a pointer (mouse or finger, ``input.Pointer``): a tap on a
region of the last frame, a tile dragged onto an end, a panel scrolled."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pygame

from clients.table import input as table_input
from clients.table.context import TableContext
from clients.table.ui import Drag, Hit, PickTile, PlaceAt, Tap

FOCUS = {pygame.WINDOWFOCUSGAINED: True, pygame.WINDOWFOCUSLOST: False}


def handle_event(app: TableContext, event: Any) -> None:
    if event.type == pygame.QUIT:
        app.quit()
        return
    if event.type in FOCUS:
        app.window.focused = FOCUS[event.type]
        return
    if event.type in (pygame.VIDEORESIZE, pygame.WINDOWRESIZED, pygame.WINDOWSIZECHANGED):
        surface = pygame.display.get_surface()
        if surface is not None:
            app.window.surface = surface
            app.set_window_size(surface.get_size())
        return
    if event.type == pygame.KEYDOWN:
        app.guard.key_down(event.key)
    elif event.type == pygame.KEYUP:
        app.guard.key_up(event.key)
        return
    command = table_input.key_action(event)
    if command:
        app.command(command)
        return
    for p in app.pointer.feed(event):
        if app.window.scale != 1.0:  # window pixels -> the drawing's pixels
            p = replace(p, pos=app.to_drawing(p.pos), start=app.to_drawing(p.start))
        pointer_event(app, p)


def hit_at(hits: list[Hit[Tap]], pos: tuple[int, int]) -> Tap | None:
    for hit in reversed(hits):  # drawn last = on top
        if hit.rect.collidepoint(pos):
            return hit.action
    return None


def pointer_event(app: TableContext, p: table_input.Pointer) -> None:
    selection = app.selection
    if p.kind == "wheel":
        if app.panel.name:
            app.scroll_panel(-p.dy * 40)
        return
    if p.kind == "down":
        app.guard.pressed()
        tap = hit_at(app.hits, p.pos)
        if isinstance(tap, PickTile) and app.my_turn(app.seating.shown):
            selection.drag = Drag(tap.tile, p.pos)
        return
    if p.kind == "move":
        if selection.drag and p.dragging:
            selection.drag.active = True
            selection.drag.pos = p.pos
        elif app.panel.name and p.dragging and p.source == "touch":
            app.scroll_panel((app.pointer.start[1] - p.pos[1]) // 8)
        return
    if p.kind == "up":
        drag, selection.drag = selection.drag, None
        if drag and drag.active:
            drop(app, drag.tile, p.pos)
            return
        if p.dragging:
            return
        tap = hit_at(app.hits, p.pos)
        if tap is not None:
            app.tap(tap)


def drop(app: TableContext, tile: str, pos: tuple[int, int]) -> None:
    """A tile dragged onto an end plays there (the drop is the confirmation)."""
    for hit in reversed(app.hits):
        if isinstance(hit.action, PlaceAt) and hit.rect.inflate(24, 24).collidepoint(pos):
            app.play(tile, hit.action.end)
            return
    app.selection.tile = tile
    app.selection.end = None
