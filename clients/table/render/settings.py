"""The settings screen, the same at the table and in the lobby: language, sound,
animations, the computer players' speed, the size of tiles and text, the theme
(standard, or colour-blind safe and high contrast). Every choice is a button; the one in
use is marked by a ✓ as well as by its colour. A small window gets one cycling button
per setting instead of a row of choices."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from clients.table import draw as d
from clients.table.config import CHOICES, Settings
from clients.table.context import TableView
from clients.table.i18n import Translator
from clients.table.i18n.catalog import MESSAGES
from clients.table.render.frame import Hits, dialog
from clients.table.ui import ChangeSetting, ClosePanel

LABELS = {
    "lang": "settings.language",
    "sound": "settings.sound",
    "speed": "settings.animations",
    "computer_speed": "settings.computers",
    "scale": "settings.size",
    "theme": "settings.theme",
}
ROW_H = 52
BUTTON_H = 44
MIN_OPTION_W = 76

AddChoice = Callable[[pygame.Rect, str, object], None]
AddClose = Callable[[pygame.Rect], None]


def option_label(tr: Translator, name: str, value: object) -> str:
    if name == "lang":
        names = MESSAGES["lang.name"]
        return str(names.get(str(value), value))
    if name == "sound":
        return tr("settings.on" if value else "settings.off")
    if name in ("speed", "computer_speed"):
        return tr(f"speed.{value}")
    if name == "scale":
        return tr("size.auto") if value == "auto" else f"{value} %"
    return tr(f"theme.{value}")


NOTE_H = 40  # the line under the choices that says a chosen size does not fit


def in_use(tr: Translator, settings: Settings, name: str) -> object:
    """The choice in use: the settings' own, and for the language the one the table
    speaks when none was chosen (the system's), so that one is ticked too."""
    current = getattr(settings, name)
    if name == "lang" and current is None:
        return tr.lang
    return current


def size_note(tr: Translator, settings: Settings, shown: float) -> str | None:
    """When the chosen size does not fit the window (``layout.fitting_scale``): what it
    is shown at instead, and why. None when it fits (or is "auto")."""
    if not settings.scale.isdigit():
        return None
    wanted = int(settings.scale)
    if round(shown * 100) >= wanted:
        return None
    if shown <= 1.0:
        return tr("settings.size_none", wanted=wanted)
    return tr("settings.size_shown", wanted=wanted, shown=round(shown * 100))


def draw_card(
    surface: pygame.Surface,
    tr: Translator,
    settings: Settings,
    add: AddChoice,
    close: AddClose,
    note: str | None = None,
) -> pygame.Rect:
    """The settings dialog over whatever is behind it; ``add`` and ``close`` receive its
    tap targets; ``note``: a line under the choices. Returns the dialog's box."""
    extra = NOTE_H if note else 0
    box = dialog(surface, 900, 56 + ROW_H * len(CHOICES) + 80 + extra)
    d.text(
        surface,
        tr("settings.title"),
        (box.centerx, box.y + 14),
        24,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    top = box.y + 56
    bottom = box.bottom - 70 - extra
    label_w = min(250, int(box.w * 0.3))
    options_w = box.w - 40 - label_w - 12
    widest = max(len(options) for options in CHOICES.values())
    roomy = (bottom - top) >= ROW_H * len(CHOICES) and options_w >= widest * MIN_OPTION_W
    if roomy:
        _rows(
            surface,
            tr,
            settings,
            add,
            pygame.Rect(box.x + 20, top, box.w - 40, bottom - top),
            label_w,
        )
    else:
        _grid(surface, tr, settings, add, pygame.Rect(box.x + 16, top, box.w - 32, bottom - top))
    if note:
        area = pygame.Rect(box.x + 16, bottom + 2, box.w - 32, NOTE_H - 4)
        d.text(surface, note, area.center, 15, d.INK, anchor="center", within=area)
    done = pygame.Rect(0, 0, min(240, box.w - 40), 52)
    done.midbottom = (box.centerx, box.bottom - 10)
    d.button(surface, done, tr("btn.close"), size=18)
    close(done)
    return box


def _rows(
    surface: pygame.Surface,
    tr: Translator,
    settings: Settings,
    add: AddChoice,
    area: pygame.Rect,
    label_w: int,
) -> None:
    y = area.y
    for name, options in CHOICES.items():
        label = pygame.Rect(area.x, y, label_w, BUTTON_H)
        d.text(
            surface,
            tr(LABELS[name]),
            (label.x, label.centery),
            17,
            d.INK,
            bold=True,
            anchor="midleft",
            within=label,
        )
        x = area.x + label_w + 12
        width = (area.right - x - 6 * (len(options) - 1)) // len(options)
        current = in_use(tr, settings, name)
        for value in options:
            rect = pygame.Rect(x, y, width, BUTTON_H)
            chosen = value == current
            text = ("✓ " if chosen else "") + option_label(tr, name, value)
            d.button(surface, rect, text, hot=chosen, size=15)
            add(rect, name, value)
            x += width + 6
        y += ROW_H


def _grid(
    surface: pygame.Surface,
    tr: Translator,
    settings: Settings,
    add: AddChoice,
    area: pygame.Rect,
) -> None:
    """One cycling button per setting ("Sound: on"), in two columns when they fit."""
    columns = 2 if area.w >= 420 else 1
    rows = -(-len(CHOICES) // columns)
    step = max(BUTTON_H + 4, min(ROW_H, area.h // rows))
    width = (area.w - 8 * (columns - 1)) // columns
    for i, name in enumerate(CHOICES):
        row, column = divmod(i, columns)
        rect = pygame.Rect(area.x + column * (width + 8), area.y + row * step, width, BUTTON_H)
        current = in_use(tr, settings, name)
        text = f"{tr(LABELS[name])}: {option_label(tr, name, current)}"
        d.button(surface, rect, text, size=15)
        add(rect, name, settings.next_choice(name))


def draw_settings(view: TableView, surface: pygame.Surface, hits: Hits) -> None:
    """The settings over the table (everything behind it stops answering taps)."""
    hits.clear()
    draw_card(
        surface,
        view.tr,
        view.settings,
        lambda rect, name, value: hits.add(rect, ChangeSetting(name, value)),
        lambda rect: hits.add(rect, ClosePanel()),
        size_note(view.tr, view.settings, view.window.scale),
    )
