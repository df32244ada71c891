"""Small value types shared by the controller (``app``) and the drawing (``render``)."""

from __future__ import annotations

from dataclasses import dataclass

import pygame


@dataclass(frozen=True)
class Hit:
    """A tappable region of the last frame and what a tap there means."""

    rect: pygame.Rect
    action: tuple


@dataclass(frozen=True)
class Flight:
    """A tile sliding from a seat to its place in the line."""

    tile: str
    origin: tuple[int, int]
    started: float


@dataclass(frozen=True)
class Toast:
    text: str
    until: float
    error: bool = False


@dataclass
class Drag:
    tile: str
    pos: tuple[int, int]
    active: bool = False


@dataclass(frozen=True)
class Screen:
    """What the client shows, decided from the newest views (see ``TableApp.decide``)."""

    kind: str  # "connecting" | "handoff" | "landing" | "reveal" | "accept"
    #                           | "opener" | "table" | "lobby"
    seat: int | None = None  # whose private screen (or the hand-off's target)


@dataclass(frozen=True)
class Finale:
    """The end of one hand as it is being shown: the last tile lands, then the result."""

    hand_no: int
    results: int  # len(view["results"]) that this finale shows
    started: float
    hold: float  # seconds the finished board stays before the result
