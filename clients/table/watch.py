"""Watching a live table: the table's link (a ``connection.TableLink``) for a spectator.

It reads ``GET /api/tables/{code}/spectate`` (issue 22's spectator API: public facts
only) in a worker thread, once every ``REPOLL`` seconds, and hands each new version to
the table as the view of ``VIEWPOINT``, a seat it holds none of: the table draws it from
that seat's side with no hand of its own, asks nothing and sends nothing
(``Ready(watching=True)``). ``WAIT`` (seconds) turns the reads into long-polls
(``?wait=&after=``); it is off because the server does not park spectator long-polls
yet (``server.http_parking.LONG_POLL_PATH`` lists the seat and lobby paths only), so
each would hold one of its threads for the whole wait.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from clients.sdk import ApiError, ConnectionLost, DekabesClient, SeatState
from clients.table.connection import NewState, Ready, Refused, Update
from clients.table.worker import Worker

VIEWPOINT = 1  # the seat at the bottom of a spectator's screen
# The teams of the seats (RULES §1), for a table whose match answer is not at hand (a
# casual table watched by its code): restated here because the table never loads the
# engine; tests/table/test_thin_client.py checks it against ``engine.seats``.
SEAT_TEAMS: dict[int, str] = {1: "A", 2: "B", 3: "A", 4: "B"}
WAIT: float | None = None  # s a long-poll waits for the table to move (None: plain reads)
REPOLL = 1.0  # s between two reads that came back at once
OFFLINE_RETRY = 2.0  # s between tries while the server is unreachable
# Refusals after which watching cannot go on (the table is gone or not for this reader).
FINAL = ("not_found", "not_authenticated", "permission_denied", "not_a_member", "not_watchable")


def viewpoint_of(teams: dict[int, str]) -> dict[str, Any]:
    """What a seat view says of its own seat (``seat``, ``team``, ``partner``) for
    ``VIEWPOINT``, read off the teams the server gave for the match's seats (its match
    answer's ``seats``): the spectator answer leaves them out, the drawing needs them to
    tell the teams apart. Empty when the teams are not known."""
    team = teams.get(VIEWPOINT)
    if team is None:
        return {}
    partner = next((s for s, t in sorted(teams.items()) if t == team and s != VIEWPOINT), None)
    return {"seat": VIEWPOINT, "team": team, "partner": partner}


def spectator_state(
    code: str, data: dict[str, Any], teams: dict[int, str] | None = None
) -> SeatState:
    """A spectator answer as the view of ``VIEWPOINT``: no hand, nothing legal, nothing
    allowed (the answer's ``view``, or the answer itself when it has none); ``teams``
    (seat -> "A"/"B", from the match's answer) name the viewpoint's team and partner."""
    sent = data.get("view")
    view: dict[str, Any] = {
        **(sent if isinstance(sent, dict) else data),
        **viewpoint_of(teams or {}),
        "hand": [],
        "legal": [],
    }
    return SeatState.from_json({**data, "view": view, "allowed": []}, code=code, seat=VIEWPOINT)


class Watch(Worker[None, Update]):
    def __init__(
        self,
        base_url: str,
        token: str | None,
        code: str,
        teams: dict[int, str] | None = None,
        client: Any = None,
    ):
        super().__init__(name=f"watch-{code}")
        self.code = code.upper()
        self.teams = dict(teams or SEAT_TEAMS)
        self.busy = threading.Event()  # never set: a spectator sends nothing
        self.version: int | None = None
        self._client: DekabesClient = client or DekabesClient(
            base_url.rstrip("/"), token, timeout=8.0, retries=1, user_agent="dekabes-watch"
        )

    def start(self) -> Watch:
        self._begin()
        return self

    # A spectator has no seat: these ask nothing of the server.
    def act(self, seat: int, type: str, version: int | None = None, **fields: Any) -> None:
        pass

    def hint(self, seat: int) -> None:
        pass

    def fetch_events(self, seat: int) -> None:
        pass

    def close(self) -> None:
        """Stop without waiting for a long-poll on its way (the thread ends after it)."""
        self._stop.set()
        self._client.close()

    def _run(self) -> None:
        ready = False
        while not self._stop.is_set():
            asked = time.monotonic()
            try:
                long_poll = WAIT if ready else None
                data = self._client.spectate(
                    self.code, wait=long_poll, after=self.version if long_poll else None
                )
            except ConnectionLost:
                self._set_status("offline")
                self._stop.wait(OFFLINE_RETRY)
                continue
            except ApiError as problem:
                self._emit(Refused(problem.code, problem.message))
                if problem.code in FINAL or problem.status in (403, 404):
                    self._set_status("offline")
                    return
                self._stop.wait(OFFLINE_RETRY)
                continue
            except Exception as problem:  # a closed client while stopping, or a bug
                if not self._stop.is_set():
                    self._emit(Refused("client_error", str(problem)))
                    self._stop.wait(OFFLINE_RETRY)
                continue
            if self._stop.is_set():
                return
            state = spectator_state(self.code, data, self.teams)
            if not ready:
                self._emit(Ready("", (), state.table, watching=True))
                ready = True
            self._set_status("online")
            if self.version is None or state.version != self.version:
                self.version = state.version
                self._emit(NewState(state))
            elif time.monotonic() - asked < REPOLL:
                self._stop.wait(REPOLL)  # answered at once with nothing new: no long-poll
