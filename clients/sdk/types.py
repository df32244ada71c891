"""Small typed wrappers around the server's JSON.

The wrappers keep the raw dict (``raw``) so nothing the server adds is lost, and name
the fields a client reads every time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Account:
    username: str
    is_bot: bool
    token: str | None = None
    id: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Account:
        return cls(
            username=data.get("username", ""),
            is_bot=bool(data.get("is_bot")),
            token=data.get("token"),
            id=data.get("id"),
        )


@dataclass(frozen=True)
class SeatInfo:
    kind: str  # "human" | "bot"
    player: str | None  # username holding the seat, or None while open
    is_bot: bool


@dataclass(frozen=True)
class Table:
    code: str
    owner: str | None
    rated: bool
    version: int
    paused: bool
    phase: str | None
    seats: dict[int, SeatInfo]
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        seats = {}
        for key, info in (data.get("seats") or {}).items():
            info = info or {}
            seats[int(key)] = SeatInfo(
                kind=info.get("kind", ""),
                player=info.get("player"),
                is_bot=bool(info.get("is_bot")),
            )
        return cls(
            code=data.get("code", ""),
            owner=data.get("owner"),
            rated=bool(data.get("rated")),
            version=int(data.get("version") or 0),
            paused=bool(data.get("paused")),
            phase=data.get("phase"),
            seats=seats,
            raw=data,
        )

    def seats_held_by(self, username: str) -> list[int]:
        return sorted(n for n, info in self.seats.items() if info.player == username)

    @property
    def handovers(self) -> list[dict[str, Any]]:
        """Every time a seat changed hands, oldest first (docs/api.md, "Seat handovers"):
        ``{"seq","seat","from","to","kind","reason","note"}``."""
        return list(self.raw.get("handovers") or [])


@dataclass(frozen=True)
class SeatState:
    """One seat view response: what one seat may know, at one table version."""

    code: str
    seat: int
    version: int
    paused: bool
    allowed: list[str]
    view: dict[str, Any]
    table: Table | None
    raw: dict[str, Any] = field(repr=False, compare=False, default_factory=dict)
    # the seats the match waits for now (the server's ``seats_to_act``, from the engine)
    seats_to_act: list[int] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict[str, Any], code: str = "", seat: int | None = None) -> SeatState:
        table_json = data.get("table") if isinstance(data.get("table"), dict) else None
        table = Table.from_json(table_json) if table_json else None
        view = data.get("view") or {}
        return cls(
            code=code or (table.code if table else ""),
            seat=int(seat if seat is not None else data.get("seat", view.get("seat", 0))),
            version=int(data.get("version") or 0),
            paused=bool(data.get("paused", table.paused if table else False)),
            allowed=list(data.get("allowed") or []),
            view=view,
            table=table,
            raw=data,
            seats_to_act=[int(n) for n in data.get("seats_to_act") or []],
        )

    @property
    def phase(self) -> str | None:
        return self.view.get("phase")

    @property
    def to_act(self) -> int | None:
        return self.view.get("to_act")

    @property
    def legal(self) -> list[dict[str, Any]]:
        """Engine events this seat may send now (accept, claim_redeal, choose_opener, play, pass)."""
        return list(self.view.get("legal") or [])

    @property
    def match_over(self) -> bool:
        return self.phase == "match_over"
