"""A table link whose seat answers the test writes (``Answers``): the app, its drawing
and its input run for real; the server's answer is the test's, so a rare table (a
computer's seat, a seat never taken, one just left, a person away for minutes) is one
call away."""

from __future__ import annotations

import queue
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from clients.sdk import SeatState
from clients.table.connection import NewState


def iso_minutes_ago(minutes: float) -> str:
    return (datetime.now(UTC) - timedelta(minutes=minutes)).isoformat()


SEATS = {
    "1": {"kind": "human", "player": "ann", "is_bot": False},
    "2": {"kind": "bot", "player": "house", "is_bot": True},
    "3": {"kind": "human", "player": None, "is_bot": False},  # never taken
    "4": {"kind": "human", "player": None, "is_bot": False},  # bob left it a moment ago
}
# What the server's leases say: the computer's runner has not asked lately, the open
# seat was never leased (away since the table was made), bob's last request still holds.
PRESENCE = {
    "1": {"connected": True, "away_since": None},
    "2": {"connected": False, "away_since": iso_minutes_ago(1.2)},
    "3": {"connected": False, "away_since": iso_minutes_ago(0.2)},
    "4": {"connected": True, "away_since": None},
}


class Answers:
    """A table link handing the app the seat answers the test writes."""

    status = "online"
    code = "PRSNC1"

    def __init__(self) -> None:
        self.busy = threading.Event()
        self.updates: queue.Queue = queue.Queue()
        self.version = 1

    def answer(
        self,
        seats: dict = SEATS,
        presence: dict | None = PRESENCE,
        seat: int = 1,
        view: dict | None = None,
        owner: str = "ann",
        **raw: Any,
    ) -> None:
        """A new seat answer for ``seat`` (``view``: fields over a plain mid-hand view;
        ``raw``: fields of the answer itself, e.g. ``takeback`` or ``allowed``)."""
        table = {"code": self.code, "owner": owner, "rated": False, "seats": seats}
        plain = {
            "seat": seat,
            "team": "A" if seat in (1, 3) else "B",
            "partner": (seat + 1) % 4 + 1,
            "phase": "play",
            "to_act": 2,
            "hand": ["1-2"],
            "line": [{"tile": "6-6", "a": 6, "b": 6}],
            "ends": [6, 6],
            "turns": [{"seat": 1, "type": "play", "tile": "6-6", "end": None}],
            "tile_counts": {"1": 1, "2": 6, "3": 6, "4": 6},
            "scores": {"A": 0, "B": 0},
            "hand_no": 1,
            "legal": [],
            "results": [],
        }
        answer = {
            "version": self.version,
            "seat": seat,
            "allowed": [],
            "seats_to_act": [2],
            "table": table,
            "view": {**plain, **(view or {})},
            **({"presence": presence} if presence is not None else {}),
            **raw,
        }
        self.version += 1
        self.updates.put(NewState(SeatState.from_json(answer, code=self.code, seat=seat)))

    def poll(self):
        out = []
        while not self.updates.empty():
            out.append(self.updates.get())
        return out

    def act(self, *args, **kwargs):
        pass

    def hint(self, seat):
        pass

    def fetch_events(self, seat):
        pass

    def close(self):
        pass
