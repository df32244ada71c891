"""What is new in a seat view, compared with what the player has seen: the tiles that
just reached the line, the passes, a hand that ended, a redeal. Plain data in, plain
data out (no pygame, no clock): ``TableApp`` turns the answers into flights, flashes,
toasts and sounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Changes:
    """What appeared on the board of the seat shown since its last view."""

    placed: tuple[tuple[str, int | None], ...] = ()  # (tile, seat) newly in the line
    passes: tuple[int, ...] = ()  # seats that passed, in order


@dataclass(frozen=True)
class HandEnd:
    """A hand just ended: its finished board is shown first (the last tile landing)."""

    hand_no: int
    results: int  # len(view["results"]) with this hand
    last_tile: tuple[str, int] | None  # (tile, seat) to fly, if the line had not shown it


@dataclass
class News:
    """What the player has seen so far: the line and turns of the screen shown, how many
    hand results, each seat's last deal."""

    line: list[str] | None = None  # None: nothing seen yet on this screen
    turns: int = 0
    results: int | None = None  # None: nothing seen yet
    deals: dict[int, tuple] = field(default_factory=dict)  # seat -> (hand_no, hand)

    def forget_screen(self) -> None:
        """Another seat's screen is shown: what it shows now is not "new"."""
        self.line = None

    def forget_results(self) -> None:
        """A new match was asked for: its first result is news again."""
        self.results = None

    def changes(self, view: dict) -> Changes:
        """The tiles and passes new in ``view`` (of the seat shown); marks them seen."""
        line = [item["tile"] for item in view.get("line", [])]
        turns = view.get("turns", [])
        seen = self.line
        placed: tuple[tuple[str, int | None], ...] = ()
        passes: tuple[int, ...] = ()
        if seen is not None and len(line) > len(seen) and set(seen) <= set(line):
            placed = tuple(
                (item["tile"], item.get("seat"))
                for item in view["line"]
                if item["tile"] not in seen
            )
        if seen is not None and len(turns) > self.turns:
            passes = tuple(t["seat"] for t in turns[self.turns :] if t.get("type") == "pass")
        self.line = line
        self.turns = len(turns)
        return Changes(placed, passes)

    def hand_end(self, view: dict) -> HandEnd | bool | None:
        """A ``HandEnd`` when ``view`` has a result more than seen; True when it has fewer
        (a new match began); None otherwise. Marks the results (and the line) seen."""
        results = len(view.get("results") or [])
        seen, self.results = self.results, results
        if seen is None or results <= seen or not view.get("last_hand"):
            return True if seen is not None and results < seen else None
        last = view["last_hand"]
        plays = [t for t in last.get("turns") or [] if t.get("type") == "play"]
        flying = None
        if plays and plays[-1]["tile"] not in (self.line or []):
            flying = (plays[-1]["tile"], plays[-1]["seat"])
        self.line = [item["tile"] for item in last.get("line") or []]
        self.turns = len(last.get("turns") or [])
        return HandEnd(last.get("hand_no") or 0, results, flying)

    def redealt(self, seat: int, view: dict) -> bool:
        """Has ``seat`` been dealt a new hand under the same hand number (a redeal)?"""
        if view.get("phase") != "accept":
            return False
        key = (view.get("hand_no"), tuple(view.get("hand") or ()))
        old = self.deals.get(seat)
        self.deals[seat] = key
        return old is not None and old[0] == key[0] and old[1] != key[1]


def hint_text(tr, event: dict, opening: bool) -> str | None:
    """What the strong bot's suggestion (``event``) says to the player."""
    kind = event.get("type")
    if kind == "play":
        if opening:
            return tr("hint.open", tile=event["tile"])
        return tr("hint.play", tile=event["tile"], end=tr(f"end.{event.get('end') or 'center'}"))
    if kind == "choose_opener":
        return tr("hint.opener", n=event["opener"])
    key = {"accept": "hint.accept", "claim_redeal": "hint.claim", "pass": "hint.pass"}.get(
        str(kind)
    )
    return tr(key) if key else None
