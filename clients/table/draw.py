"""Drawing primitives: fonts, colours, tiles (with ``pygame.draw``), buttons, text.

Nothing here knows the game; ``render.py`` composes these into screens.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pygame

FONT_DIR = Path(__file__).resolve().parents[1] / "assets" / "fonts"


@dataclass(frozen=True)
class Palette:
    """The colours of one theme. Teams are never told apart by colour alone: every team
    label carries its mark too (``TEAM_MARKS``)."""

    felt: tuple[int, int, int]
    felt_dark: tuple[int, int, int]
    panel: tuple[int, int, int]
    ink: tuple[int, int, int]
    muted: tuple[int, int, int]
    white: tuple[int, int, int]
    ivory: tuple[int, int, int]
    ivory_dim: tuple[int, int, int]
    pip: tuple[int, int, int]
    gold: tuple[int, int, int]
    team_a: tuple[int, int, int]
    team_b: tuple[int, int, int]
    button: tuple[int, int, int]
    button_off: tuple[int, int, int]
    button_hot: tuple[int, int, int]
    danger: tuple[int, int, int]
    toast: tuple[int, int, int]
    soft: tuple[int, int, int]  # light text on the felt
    turn_ink: tuple[int, int, int]  # "▶ to play" on a seat box
    team_ink_a: tuple[int, int, int]  # a team's name written on a light box
    team_ink_b: tuple[int, int, int]
    handoff: tuple[int, int, int]  # the hand-off screen's background
    row: tuple[int, int, int]  # a row inside a light dialog
    line_width: int = 1  # outlines of tiles and buttons


PALETTES = {
    "standard": Palette(
        felt=(22, 92, 62),
        felt_dark=(14, 66, 44),
        panel=(250, 247, 240),
        ink=(30, 30, 34),
        muted=(120, 124, 130),
        white=(255, 255, 255),
        ivory=(252, 249, 238),
        ivory_dim=(196, 194, 186),
        pip=(24, 24, 28),
        gold=(245, 196, 64),
        team_a=(66, 133, 244),
        team_b=(226, 92, 62),
        button=(42, 48, 58),
        button_off=(92, 96, 104),
        button_hot=(58, 120, 200),
        danger=(200, 60, 50),
        toast=(40, 44, 52),
        soft=(210, 230, 215),
        turn_ink=(150, 100, 0),
        team_ink_a=(66, 133, 244),
        team_ink_b=(226, 92, 62),
        handoff=(18, 28, 40),
        row=(236, 232, 222),
    ),
    # Colour-blind safe (Okabe-Ito blue and orange for the teams, yellow for the turn)
    # and high contrast: near-black table, white tiles with black pips, thicker lines.
    "contrast": Palette(
        felt=(16, 18, 22),
        felt_dark=(0, 0, 0),
        panel=(255, 255, 255),
        ink=(0, 0, 0),
        muted=(64, 64, 64),
        white=(255, 255, 255),
        ivory=(255, 255, 255),
        ivory_dim=(150, 150, 150),
        pip=(0, 0, 0),
        gold=(240, 228, 66),
        team_a=(86, 180, 233),
        team_b=(230, 159, 0),
        button=(0, 0, 0),
        button_off=(70, 70, 70),
        button_hot=(0, 114, 178),
        danger=(213, 94, 0),
        toast=(0, 0, 0),
        soft=(235, 235, 235),
        turn_ink=(0, 0, 0),
        team_ink_a=(0, 90, 150),
        team_ink_b=(150, 70, 0),
        handoff=(0, 0, 0),
        row=(235, 235, 235),
        line_width=2,
    ),
}
THEMES = tuple(PALETTES)
TEAM_MARKS = {"A": "●", "B": "■"}  # shape, not colour alone

# The colours of the theme in use, as module names the drawing reads at draw time
# (``use_theme`` rebinds them; nothing imports them by value).
FELT = FELT_DARK = PANEL = INK = MUTED = WHITE = IVORY = IVORY_DIM = PIP = GOLD = (0, 0, 0)
BUTTON = BUTTON_OFF = BUTTON_HOT = DANGER = TOAST = SOFT = TURN_INK = HANDOFF = ROW = (0, 0, 0)
TEAM_COLOURS: dict[str, tuple[int, int, int]] = {}
TEAM_INK: dict[str, tuple[int, int, int]] = {}
LINE_WIDTH = 1
GHOST = (255, 255, 255)
SHADOW = (0, 0, 0, 70)
_theme = ""


def use_theme(name: str) -> None:
    """Draw with the colours of theme ``name`` (unknown: the standard one)."""
    global FELT, FELT_DARK, PANEL, INK, MUTED, WHITE, IVORY, IVORY_DIM, PIP, GOLD
    global BUTTON, BUTTON_OFF, BUTTON_HOT, DANGER, TOAST, SOFT, TURN_INK, LINE_WIDTH, _theme
    global TEAM_COLOURS, TEAM_INK, HANDOFF, ROW
    if name == _theme:
        return
    p = PALETTES.get(name) or PALETTES["standard"]
    _theme = name if name in PALETTES else "standard"
    FELT, FELT_DARK, PANEL, INK, MUTED, WHITE = (
        p.felt,
        p.felt_dark,
        p.panel,
        p.ink,
        p.muted,
        p.white,
    )
    IVORY, IVORY_DIM, PIP, GOLD = p.ivory, p.ivory_dim, p.pip, p.gold
    BUTTON, BUTTON_OFF, BUTTON_HOT, DANGER = p.button, p.button_off, p.button_hot, p.danger
    TOAST, SOFT, TURN_INK, LINE_WIDTH = p.toast, p.soft, p.turn_ink, p.line_width
    TEAM_COLOURS = {"A": p.team_a, "B": p.team_b}
    TEAM_INK = {"A": p.team_ink_a, "B": p.team_ink_b}
    HANDOFF, ROW = p.handoff, p.row


def current_theme() -> str:
    return _theme


def team_ink(team: str) -> tuple[int, int, int]:
    """The colour a team's name is written in on a light box."""
    return TEAM_INK.get(str(team), INK)


def team_text(label: str, team: str) -> str:
    """A team's label with its mark: "● Team A", "■ Team B"."""
    mark = TEAM_MARKS.get(str(team))
    return f"{mark} {label}" if mark else label


use_theme("standard")

# Pip positions on a unit square (x, y in 0..1) for 0..6.
PIPS = {
    0: [],
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
}


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False) -> pygame.font.Font:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return pygame.font.Font(str(FONT_DIR / name), max(8, int(size)))


@lru_cache(maxsize=2048)
def _text_surface(text: str, size: int, colour: tuple, bold: bool, wrap: int) -> pygame.Surface:
    return font(size, bold).render(text, True, colour, None, wrap)


def text(
    surface: pygame.Surface,
    value: str,
    pos: tuple[int, int],
    size: int = 18,
    colour: tuple[int, ...] | None = None,
    bold: bool = False,
    anchor: str = "topleft",
    wrap: int = 0,
    within: pygame.Rect | None = None,
) -> pygame.Rect:
    """Draw ``value``; ``anchor`` is a Rect attribute name (topleft, center, midtop...).
    ``within``: the box the text must stay inside, left to right — it is made smaller
    and, if that is not enough, cut with an ellipsis; it never sticks out."""
    value, size = str(value), int(size)
    colour = INK if colour is None else colour
    if within is not None and not wrap:
        value, size = fit(value, within.w, size, bold)
    image = _text_surface(value, size, tuple(colour), bold, int(wrap))
    rect = image.get_rect(**{anchor: pos})
    if within is not None:
        rect.left = max(within.left, min(rect.left, within.right - rect.w))
    surface.blit(image, rect)
    return rect


def text_width(value: str, size: int = 18, bold: bool = False) -> int:
    return font(size, bold).size(str(value))[0]


def fit_size(value: str, width: int, size: int, bold: bool = False, minimum: int = 10) -> int:
    """The largest font size ≤ ``size`` at which ``value`` fits ``width`` px."""
    while size > minimum and text_width(value, size, bold) > width:
        size -= 1
    return size


@lru_cache(maxsize=2048)
def fit(
    value: str, width: int, size: int, bold: bool = False, minimum: int = 11
) -> tuple[str, int]:
    """``value`` at the largest size ≤ ``size`` (not below ``minimum``) that fits ``width``
    px; cut with "…" when even the smallest size is too wide."""
    size = fit_size(value, width, size, bold, minimum)
    if text_width(value, size, bold) <= width:
        return value, size
    cut = value
    while cut and text_width(cut.rstrip() + "…", size, bold) > width:
        cut = cut[:-1]
    return (cut.rstrip() + "…" if cut else ""), size


def _pips(surface, half: pygame.Rect, n: int, colour: tuple[int, ...] | None = None) -> None:
    colour = PIP if colour is None else colour
    radius = max(1, round(min(half.w, half.h) * 0.09))
    inset = min(half.w, half.h) * 0.08
    w, h = half.w - 2 * inset, half.h - 2 * inset
    for px, py in PIPS[n]:
        centre = (round(half.x + inset + px * w), round(half.y + inset + py * h))
        pygame.draw.circle(surface, colour, centre, radius)


def tile(
    surface: pygame.Surface,
    rect: pygame.Rect,
    first: int,
    second: int,
    upright: bool,
    *,
    face: tuple[int, ...] | None = None,
    outline: tuple[int, ...] = (60, 60, 60),
    width: int = 1,
    alpha: int = 255,
    shadow: bool = True,
) -> None:
    """One domino: ``first`` on the left (or top when ``upright``), ``second`` right/bottom."""
    rect = pygame.Rect(rect)
    face = IVORY if face is None else face
    width = max(width, LINE_WIDTH)
    radius = max(2, min(rect.w, rect.h) // 7)
    target = surface
    if alpha < 255:
        target = pygame.Surface(rect.size, pygame.SRCALPHA)
        origin = rect
        rect = pygame.Rect(0, 0, origin.w, origin.h)
    if shadow and alpha == 255:
        pygame.draw.rect(target, (0, 0, 0), rect.move(2, 3), border_radius=radius)
    pygame.draw.rect(target, face, rect, border_radius=radius)
    pygame.draw.rect(target, outline, rect, width=max(1, width), border_radius=radius)
    if upright:
        a = pygame.Rect(rect.x, rect.y, rect.w, rect.h // 2)
        b = pygame.Rect(rect.x, rect.y + rect.h // 2, rect.w, rect.h - rect.h // 2)
        pygame.draw.line(target, (90, 90, 90), (rect.x + 3, a.bottom), (rect.right - 4, a.bottom))
    else:
        a = pygame.Rect(rect.x, rect.y, rect.w // 2, rect.h)
        b = pygame.Rect(rect.x + rect.w // 2, rect.y, rect.w - rect.w // 2, rect.h)
        pygame.draw.line(target, (90, 90, 90), (a.right, rect.y + 3), (a.right, rect.bottom - 4))
    _pips(target, a, first)
    _pips(target, b, second)
    if alpha < 255:
        target.set_alpha(alpha)
        surface.blit(target, origin)


def tile_back(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """The back of a tile (other seats' hands before the reveal: no numbers)."""
    radius = max(2, min(rect.w, rect.h) // 6)
    pygame.draw.rect(surface, (40, 40, 46), rect, border_radius=radius)
    pygame.draw.rect(surface, (150, 150, 150), rect, width=1, border_radius=radius)


def dashed_rect(
    surface: pygame.Surface, rect: pygame.Rect, colour, dash: int = 6, width: int = 2
) -> None:
    x0, y0, x1, y1 = rect.left, rect.top, rect.right - 1, rect.bottom - 1
    for x in range(x0, x1, dash * 2):
        pygame.draw.line(surface, colour, (x, y0), (min(x + dash, x1), y0), width)
        pygame.draw.line(surface, colour, (x, y1), (min(x + dash, x1), y1), width)
    for y in range(y0, y1, dash * 2):
        pygame.draw.line(surface, colour, (x0, y), (x0, min(y + dash, y1)), width)
        pygame.draw.line(surface, colour, (x1, y), (x1, min(y + dash, y1)), width)


def button(
    surface: pygame.Surface,
    rect: pygame.Rect,
    label: str,
    enabled: bool = True,
    hot: bool = False,
    size: int = 17,
) -> None:
    colour = BUTTON_HOT if hot else (BUTTON if enabled else BUTTON_OFF)
    pygame.draw.rect(surface, colour, rect, border_radius=8)
    if enabled:
        pygame.draw.rect(surface, (200, 205, 215), rect, width=LINE_WIDTH, border_radius=8)
    text(
        surface,
        label,
        rect.center,
        size,
        WHITE if enabled else (170, 172, 176),
        bold=enabled,
        anchor="center",
        within=rect.inflate(-16, 0),
    )


def marker_triangle(surface: pygame.Surface, centre_x: int, top: int, size: int, colour) -> None:
    """A small ▼ above a tile: legal tiles are marked by shape, not by colour alone."""
    pygame.draw.polygon(
        surface,
        colour,
        [(centre_x - size, top - size - 2), (centre_x + size, top - size - 2), (centre_x, top - 2)],
    )


def clear_caches() -> None:
    """Fonts die with ``pygame.quit()``: a new window (or test) starts with fresh ones."""
    font.cache_clear()
    _text_surface.cache_clear()
    fit.cache_clear()
