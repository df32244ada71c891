"""Drawing primitives: fonts, colours, tiles (with ``pygame.draw``), buttons, text.

Nothing here knows the game; ``render.py`` composes these into screens.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pygame

FONT_DIR = Path(__file__).resolve().parents[1] / "assets" / "fonts"

FELT = (22, 92, 62)
FELT_DARK = (14, 66, 44)
PANEL = (250, 247, 240)
INK = (30, 30, 34)
MUTED = (120, 124, 130)
WHITE = (255, 255, 255)
IVORY = (252, 249, 238)
IVORY_DIM = (196, 194, 186)
PIP = (24, 24, 28)
GOLD = (245, 196, 64)
TEAM_COLOURS = {"A": (66, 133, 244), "B": (226, 92, 62)}
BUTTON = (42, 48, 58)
BUTTON_OFF = (92, 96, 104)
BUTTON_HOT = (58, 120, 200)
GHOST = (255, 255, 255)
DANGER = (200, 60, 50)
SHADOW = (0, 0, 0, 70)

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
    colour=INK,
    bold: bool = False,
    anchor: str = "topleft",
    wrap: int = 0,
    within: pygame.Rect | None = None,
) -> pygame.Rect:
    """Draw ``value``; ``anchor`` is a Rect attribute name (topleft, center, midtop...).
    ``within``: the box the text must stay inside, left to right — it is made smaller
    and, if that is not enough, cut with an ellipsis; it never sticks out."""
    value, size = str(value), int(size)
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


def _pips(surface, half: pygame.Rect, n: int, colour=PIP) -> None:
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
    face=IVORY,
    outline=(60, 60, 60),
    width: int = 1,
    alpha: int = 255,
    shadow: bool = True,
) -> None:
    """One domino: ``first`` on the left (or top when ``upright``), ``second`` right/bottom."""
    rect = pygame.Rect(rect)
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
        pygame.draw.rect(surface, (200, 205, 215), rect, width=1, border_radius=8)
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
