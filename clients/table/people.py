"""The people at the table, as the server's seat response tells them (issue 22's API):
an open takeback request (``takeback``), the seats that changed hands (``table.handovers``:
a substitute, a player who left, a replacement, a computer taking over), a match ended
by forfeit (``table.forfeited``). Plain data in and out, no pygame: the controller turns
it into toasts, the drawing into a question or a line. Every field is optional: a server
without it sends nothing and the table shows nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# What a takeback request asks for, in words (a message id per table command).
TAKEBACK_WHAT = {
    "undo": "takeback.undo",
    "redo": "takeback.redo",
    "restart_hand": "takeback.restart_hand",
    "new_match": "takeback.new_match",
}
# Why a seat changed hands (the handover's ``reason``), in words.
HANDOVER_TEXT = {
    "substitute": "handover.substitute",
    "auto_substitute": "handover.substitute",
    "replace": "handover.replace",
    "computer": "handover.computer",
    "leave": "handover.leave",
}


@dataclass(frozen=True)
class Takeback:
    """An open takeback request: who asked (``seat``), for what (``command``) and whose
    answers it still waits for (seats, one per person)."""

    seat: int
    command: str
    waiting_for: tuple[int, ...]


def takeback(raw: dict[str, Any]) -> Takeback | None:
    """The open takeback request of a seat response (``None``: none, or a server
    without them)."""
    data = raw.get("takeback")
    if not isinstance(data, dict) or not str(data.get("seat", "")).isdigit():
        return None
    return Takeback(
        int(data["seat"]),
        str(data.get("command") or "undo"),
        tuple(int(s) for s in data.get("waiting_for") or [] if str(s).isdigit()),
    )


def handovers(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's seat handovers, oldest first."""
    found = table.get("handovers")
    return [h for h in found if isinstance(h, dict)] if isinstance(found, list) else []


def forfeited(table: dict[str, Any]) -> bool:
    return bool(table.get("forfeited"))


REPLACE_AFTER = 300.0  # s a person's seat must have been away before the owner replaces it


def away_for(seconds: float) -> tuple[str, int]:
    """How long a person has been away, as a person says it: (message id, count). Under
    a minute "just now" (a clock a little ahead of the server's too), then minutes, hours
    from the hour, days from the day: never "away 0 min", never "away 1440 min"."""
    minutes = int(seconds // 60)
    if minutes < 1:
        return "presence.away_now", 0
    if minutes < 60:
        return "presence.away_for", minutes
    if minutes < 24 * 60:
        return "presence.away_hours", minutes // 60
    return "presence.away_days", minutes // (24 * 60)


def replaceable(
    table: dict[str, Any],
    me: str,
    seat: int,
    presence: tuple[str, float | None],
    now: float,
) -> bool:
    """May ``me`` (the owner of a casual table) hand ``seat`` over now? An open human seat
    at once; another person's once away ``REPLACE_AFTER`` (the server checks it too:
    ``409 seat_not_away``). Not one's own seat, not a computer's, not at a rated table."""
    if table.get("rated") or not me or table.get("owner") != me:
        return False
    info = (table.get("seats") or {}).get(str(seat)) or {}
    if info.get("kind") != "human" or info.get("is_bot"):
        return False
    if info.get("player") is None:  # an open seat: given to a computer seated here
        return computer_for(table) is not None
    if info.get("player") == me:
        return False
    state, since = presence
    return state == "away" and since is not None and now - since >= REPLACE_AFTER


def computer_for(table: dict[str, Any]) -> str | None:
    """A computer player already seated at the table (the owner may seat it again), to
    hand a seat to; None: the seat can only be opened."""
    for _, info in sorted((table.get("seats") or {}).items()):
        if isinstance(info, dict) and (info.get("kind") == "bot" or info.get("is_bot")):
            if info.get("player"):
                return str(info["player"])
    return None


def same_board(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Did a view stay where it was (nothing taken back, redone or restarted)?"""
    keys = ("hand_no", "turns", "results", "line", "phase")
    return all(before.get(k) == after.get(k) for k in keys)


Tr = Callable[..., str]


def takeback_text(tr: Tr, request: Takeback, name: Callable[[int], str]) -> str:
    """ "Seat 3 · ann asks to take back the last move." (``name``: a seat's label)"""
    what = tr(TAKEBACK_WHAT.get(request.command, "takeback.undo"))
    return tr("takeback.ask", who=name(request.seat), what=what)


def waiting_text(
    tr: Tr, request: Takeback, name: Callable[[int], str], viewer: int | None = None
) -> str:
    """The line while a request waits for others' answers: "You asked …" on the asking
    seat's own screen (``viewer``), the asker's name on the others'."""
    what = tr(TAKEBACK_WHAT.get(request.command, "takeback.undo"))
    seats = ", ".join(name(s) for s in request.waiting_for) or "…"
    if viewer is not None and request.seat == viewer:
        return tr("takeback.waiting_mine", what=what, seats=seats)
    return tr("takeback.waiting", who=name(request.seat), what=what, seats=seats)


def handover_text(tr: Tr, handover: dict[str, Any]) -> str:
    """A seat that changed hands, in words: "Seat 3: bob substitutes for ann." """
    seat = tr("seat.name", n=handover.get("seat"))
    before = handover.get("from") or tr("seat.open")
    after = handover.get("to")
    reason = str(handover.get("reason") or "")
    if after is None or reason == "leave":
        key = "handover.leave" if after is None else "handover.left_to"
    elif handover.get("kind") == "bot" and reason not in ("substitute", "auto_substitute"):
        key = "handover.computer"
    else:
        key = HANDOVER_TEXT.get(reason, "handover.replace")
    return tr(key, seat=seat, before=before, after=after or "")
