"""Small value types shared by the controller (``app``) and the drawing (``render``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

import pygame

ActionT = TypeVar("ActionT")


@dataclass(frozen=True)
class Hit(Generic[ActionT]):
    """A tappable region of the last frame and what a tap there means (a ``Tap`` at the
    table, a ``LobbyTap`` in the lobby)."""

    rect: pygame.Rect
    action: ActionT


# ---------------------------------------------------------------------- what a tap means
@dataclass(frozen=True)
class Tap:
    """What a tap on a region of the table means (``TableApp.tap``)."""


@dataclass(frozen=True)
class PickTile(Tap):
    tile: str  # a tile of the hand: select it (or put it back)


@dataclass(frozen=True)
class PlaceAt(Tap):
    end: str  # an open end or its ghost: "left" | "right" | "center"


@dataclass(frozen=True)
class Press(Tap):
    button: str  # a toolbar button (``render.BUTTONS``)


@dataclass(frozen=True)
class HandOver(Tap):
    seat: int  # pass-and-play: the device is now with this seat


@dataclass(frozen=True)
class Accept(Tap):
    seat: int


@dataclass(frozen=True)
class ClaimRedeal(Tap):
    seat: int


@dataclass(frozen=True)
class ChooseOpener(Tap):
    seat: int
    opener: int


@dataclass(frozen=True)
class SkipLanding(Tap):
    pass


@dataclass(frozen=True)
class Continue(Tap):
    pass  # the hand's result was seen


@dataclass(frozen=True)
class MatchSeen(Tap):
    pass  # the match-end screen: look at the board


@dataclass(frozen=True)
class NewMatch(Tap):
    pass  # the match-end screen's New game


@dataclass(frozen=True)
class BackToLobby(Tap):
    pass


@dataclass(frozen=True)
class ClosePanel(Tap):
    pass


@dataclass(frozen=True)
class Answer(Tap):
    yes: bool  # the restart / new game / undo-into-the-match question


@dataclass(frozen=True)
class ChangeSetting(Tap):
    name: str  # a setting of the settings screen (``config.CHOICES``)
    value: object


@dataclass(frozen=True)
class ToggleLastTiles(Tap):
    pass  # a seat box: mark (or stop marking) each seat's last tile


@dataclass(frozen=True)
class ReplaceSeat(Tap):
    seat: int  # the owner hands an away (or open) seat over: asked first


@dataclass(frozen=True)
class AnswerTakeback(Tap):
    seat: int  # the seat answering another player's takeback request
    yes: bool


# ---------------------------------------------------------------- what a lobby tap means
@dataclass(frozen=True)
class LobbyTap:
    """What a tap on a region of the lobby means (``Lobby.tap``)."""


@dataclass(frozen=True)
class FocusField(LobbyTap):
    name: str  # a text field: "server" | "username" | "password" | "code"


@dataclass(frozen=True)
class SignIn(LobbyTap):
    pass


@dataclass(frozen=True)
class Register(LobbyTap):
    pass


@dataclass(frozen=True)
class SignOut(LobbyTap):
    pass


@dataclass(frozen=True)
class Refresh(LobbyTap):
    pass


@dataclass(frozen=True)
class OpenTable(LobbyTap):
    code: str  # one of my tables, or my league table (Play now)


@dataclass(frozen=True)
class OpenReplay(LobbyTap):
    url: str  # a finished match's web replay


@dataclass(frozen=True)
class ToggleSeat(LobbyTap):
    seat: int  # a new table's seat: a player or a computer


@dataclass(frozen=True)
class NextLevel(LobbyTap):
    pass  # the new table's computer level


@dataclass(frozen=True)
class CreateTable(LobbyTap):
    pass


@dataclass(frozen=True)
class JoinByCode(LobbyTap):
    pass  # the code field's table


@dataclass(frozen=True)
class NextLanguage(LobbyTap):
    pass


@dataclass(frozen=True)
class OpenSettings(LobbyTap):
    pass


@dataclass(frozen=True)
class CloseSettings(LobbyTap):
    pass


@dataclass(frozen=True)
class ChooseSetting(LobbyTap):
    name: str  # a setting of the settings screen (``config.CHOICES``)
    value: object


@dataclass(frozen=True)
class ShowPage(LobbyTap):
    page: str  # "home" | "league"


@dataclass(frozen=True)
class ShowClub(LobbyTap):
    slug: str  # the club whose standings and ratings the league page shows


@dataclass(frozen=True)
class JoinClub(LobbyTap):
    pass  # the invite field: a link /join/<slug>/<code>, "slug/code" or a bare code


@dataclass(frozen=True)
class TakeOpenSeat(LobbyTap):
    code: str  # a table seeking players (``GET /api/tables/open``): take a free seat there


@dataclass(frozen=True)
class WatchTable(LobbyTap):
    code: str  # a live table of one of my clubs, watched read-only (``watch.py``)


@dataclass
class TextField:
    """A text field of the lobby: its name, what was typed (``secret``: shown as dots)."""

    name: str
    value: str = ""
    secret: bool = False

    def shown(self) -> str:
        return "•" * len(self.value) if self.secret else self.value


@dataclass(frozen=True)
class Flight:
    """A tile sliding from a seat to its place in the line."""

    tile: str
    origin: tuple[int, int]
    started: float


@dataclass(frozen=True)
class Toast:
    """A short message. It goes when its time is up, and earlier when the state it
    describes is gone (``lasts``): "hand" when a hand ends, "version" when the seat's view
    moves on, "turn" when it is the seat's turn again, "language" when the language
    changes again (the language just chosen, said), "always" on time only."""

    text: str
    until: float
    error: bool = False
    seat: int | None = None  # the private screen it belongs to; None: anyone may see it
    lasts: str = "hand"
    hand: int = 0  # the number of hand results when it was made
    version: int = 0  # the version of the seat's view when it was made
    lang: str = ""  # the language it is written in


@dataclass
class Drag:
    tile: str
    pos: tuple[int, int]
    active: bool = False


@dataclass(frozen=True)
class Screen:
    """What the client shows, decided from the newest views (see ``TableApp.decide``)."""

    kind: str  # "starting" | "connecting" | "handoff" | "landing" | "reveal" | "accept"
    #          | "opener" | "table" | "match_over" | "signin" | "lobby" | "league"
    seat: int | None = None  # whose private screen (or the hand-off's target)


@dataclass(frozen=True)
class Finale:
    """The end of one hand as it is being shown: the last tile lands, then the result."""

    hand_no: int
    results: int  # len(view["results"]) that this finale shows
    started: float
    hold: float  # seconds the finished board stays before the result
