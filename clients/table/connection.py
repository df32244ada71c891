"""The table client's only link to the server: the SDK (``clients.sdk``) in a worker thread.

The pygame loop never waits on the network (``worker.Worker``). It calls ``act`` /
``hint`` / ``fetch_events`` (which only queue a command) and once per frame ``poll()``
for what came back, one frozen dataclass each:

    Ready(username, seats, table, watching)   account name, held seats, table; watching:
                                    a spectator's link (``watch.py``)
    NewState(state)                 a seat's new view (from a push, a REST answer or a refetch)
    HintAnswer(seat, event)         the server's hint (appends nothing)
    EventLog(seat, events)          the table log as that seat may see it
    Refused(code, message, seat)    the server refused (code as the server sent it)
    Left(seat)                      this account left that seat (``act(seat, "leave")``:
                                    ``POST …/seats/{n}/leave``); it is no longer held
    Status(name)                    "connecting" | "online" | "offline"
    Starting(step, message)         ``--local`` only: the embedded server starting
                                    (``startup.LocalLink``)

Pushes come from the SDK's ``PushSubscription`` (WebSocket, reconnects by itself). When
the push channel is down the worker long-polls over REST instead, so the table keeps
moving; an action that meets a dead connection is retried with the same
Idempotency-Key until the server answers (it applies one key at most once).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from clients.sdk import (
    ApiError,
    ConnectionLost,
    DekabesClient,
    PushSubscription,
    SeatState,
    StaleVersion,
    Table,
    new_action_key,
)
from clients.table.worker import Status, Worker

__all__ = [
    "Connection",
    "EventLog",
    "HintAnswer",
    "Left",
    "NewState",
    "Ready",
    "Refused",
    "Starting",
    "Status",
    "TableLink",
    "Update",
    "still_meant",
]

OFFLINE_POLL = 1.0  # s between REST polls while pushes are down
# s between looks at the seat answers while pushes flow: a player whose client closed
# goes away when the server's lease runs out (about a minute later), and nothing is
# pushed then; the answer's ``presence`` says it.
PRESENCE_LOOK = 15.0


# ---------------------------------------------------------------------- what comes back
@dataclass(frozen=True)
class Ready:
    username: str
    seats: tuple[int, ...]
    table: Table | None
    watching: bool = False  # a spectator's link (``watch.Watch``): no seat, nothing to send


@dataclass(frozen=True)
class NewState:
    state: SeatState


@dataclass(frozen=True)
class HintAnswer:
    seat: int
    event: dict | None


@dataclass(frozen=True)
class EventLog:
    seat: int
    events: list[dict]


@dataclass(frozen=True)
class Refused:
    code: str
    message: str
    seat: int | None = None  # the seat whose action or question was refused


@dataclass(frozen=True)
class Left:
    seat: int


@dataclass(frozen=True)
class Starting:
    step: str  # "server" | "computers" | "table" | "failed"
    message: str = ""


Update = Ready | NewState | HintAnswer | EventLog | Refused | Status | Starting | Left


# ---------------------------------------------------------------------- what the loop asks
@dataclass(frozen=True)
class _Act:
    seat: int
    type: str
    version: int | None
    fields: dict[str, Any] = field(hash=False)
    key: str


@dataclass(frozen=True)
class _AskHint:
    seat: int


@dataclass(frozen=True)
class _FetchEvents:
    seat: int


@dataclass(frozen=True)
class _Refresh:
    pass


_Command = _Act | _AskHint | _FetchEvents | _Refresh


def still_meant(type_: str, fields: dict, before: SeatState | None, after: SeatState) -> bool:
    """After a ``stale_version``: does the refused action mean the same at the new version?

    Accepting a deal or claiming a redeal depends on one's own hand only; pausing and
    resuming on nothing. A play or an opener choice is sent again only when the hand and
    the line are exactly what the player saw. Undo, redo, restart and new match never:
    the owner must look at the new state first.
    """
    legal = after.view.get("legal") or []
    if type_ in ("pause", "resume"):
        return True
    if type_ in ("accept", "claim_redeal"):
        return any(e.get("type") == type_ for e in legal)
    if type_ in ("play", "choose_opener") and before is not None:
        same = all(before.view.get(k) == after.view.get(k) for k in ("hand", "line", "hand_no"))
        wanted = {k: v for k, v in fields.items() if v is not None}
        return same and any(
            e.get("type") == type_ and all(e.get(k) == v for k, v in wanted.items() if k != "end")
            for e in legal
        )
    return False


class TableLink(Protocol):
    """What the table's controller needs of its link to the server (``Connection``, or a
    stand-in: the benchmark's, the offline tests' engine fold)."""

    @property
    def status(self) -> str: ...
    @property
    def code(self) -> str: ...
    @property
    def busy(self) -> threading.Event: ...

    def poll(self) -> list[Update]: ...
    def act(self, seat: int, type: str, version: int | None = None, **fields: Any) -> None: ...
    def hint(self, seat: int) -> None: ...
    def fetch_events(self, seat: int) -> None: ...
    def close(self) -> None: ...


class Connection(Worker[_Command, Update]):
    def __init__(
        self,
        base_url: str,
        token: str,
        code: str,
        seats: list[int] | None = None,
        use_push: bool = True,
        client: DekabesClient | None = None,
        presence_look: float = PRESENCE_LOOK,
    ):
        super().__init__(name=f"table-{code}")
        self.presence_look = presence_look
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.code = code.upper()
        self.wanted_seats = seats
        self.use_push = use_push
        self.seats: list[int] = []
        self.username = ""
        self.requests_sent = 0
        self._client = client or DekabesClient(
            self.base_url, token, timeout=8.0, retries=2, user_agent="dekabes-table"
        )
        self._sub: PushSubscription | None = None
        self.version = -1
        self._last_rest = 0.0
        self.busy = threading.Event()  # an action is on its way
        self._views: dict[int, SeatState] = {}

    # ------------------------------------------------------------------ UI side
    def start(self) -> Connection:
        self._begin()
        return self

    def act(self, seat: int, type: str, version: int | None = None, **fields: Any) -> None:
        self.busy.set()
        self._send(_Act(seat, type, version, fields, new_action_key()))

    def hint(self, seat: int) -> None:
        self._send(_AskHint(seat))

    def fetch_events(self, seat: int) -> None:
        self._send(_FetchEvents(seat))

    def refresh(self) -> None:
        self._send(_Refresh())

    def close(self) -> None:
        self._end()
        if self._sub is not None:
            self._sub.close()
        self._client.close()

    # ------------------------------------------------------------------ worker side
    def _state(self, state: SeatState) -> None:
        old = self._views.get(state.seat)
        if old is None or state.version >= old.version:
            self._views[state.seat] = state
        if state.version >= self.version:
            self.version = state.version
        if self._sub is not None:
            self._sub.observe(state.seat, state.version)
        self._emit(NewState(state))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._connect()
                break
            except ApiError as problem:
                self._emit(Refused(problem.code, problem.message))
                if problem.code in ("not_authenticated", "not_found", "not_your_seat"):
                    self._set_status("offline")
                    return
                self._stop.wait(2.0)
            except ConnectionLost:
                self._set_status("offline")
                self._stop.wait(OFFLINE_POLL)
        while not self._stop.is_set():
            command = self._next_command(timeout=0.05)
            if self._stop.is_set():
                return
            try:
                if command is not None:
                    self._do(command)
                self._pump_pushes()
            except ConnectionLost:
                self._set_status("offline")
            except Exception as problem:  # never let the worker die: report and go on
                self._emit(Refused("client_error", str(problem)))

    def _connect(self) -> None:
        me = self._client.me()
        self.username = me.username
        table = self._client.table(self.code)
        held = table.seats_held_by(me.username)
        if self.wanted_seats:
            held = [s for s in held if s in self.wanted_seats]
        if not held:
            raise ApiError("not_your_seat", f"{me.username} holds no seat at {self.code}")
        self.seats = held
        self._emit(Ready(me.username, tuple(held), table))
        self._refetch()
        self._set_status("online")
        if self.use_push:
            try:
                self._sub = self._client.subscribe(self.code)
            except Exception:  # pushes are a speed-up; REST polling still works
                self._sub = None

    def _refetch(self) -> None:
        for seat in self.seats:
            self._state(self._client.seat_view(self.code, seat))
        self._last_rest = time.monotonic()

    def _pump_pushes(self) -> None:
        sub = self._sub
        pushed_ok = sub is not None and sub.connected.is_set()
        if sub is not None:
            for push in sub.poll():
                if push.kind == "view" and push.state is not None and push.seat in self.seats:
                    self._state(push.state)
                    self._set_status("online")
                elif push.kind == "resync":
                    self._refetch()
                    self._set_status("online")
                elif push.kind == "disconnected":
                    pushed_ok = False
        since = time.monotonic() - self._last_rest
        if since > (self.presence_look if pushed_ok else OFFLINE_POLL):
            try:
                self._refetch()
                self._set_status("online")
            except ConnectionLost:
                self._last_rest = time.monotonic()
                self._set_status("offline")

    def _do(self, command: _Command) -> None:
        match command:
            case _Act(seat, type_, version, fields, key):
                self._act(seat, type_, version, fields, key)
            case _AskHint(seat):
                try:
                    answer = self._client.hint(self.code, seat)
                except ApiError as problem:
                    self._emit(Refused(problem.code, problem.message, seat))
                    return
                event = (
                    answer.get("hint", answer.get("event")) if isinstance(answer, dict) else None
                )
                self._emit(HintAnswer(seat, event))
            case _FetchEvents(seat):
                try:
                    events = self._client.all_events(self.code, seat)
                except ApiError as problem:
                    self._emit(Refused(problem.code, problem.message, seat))
                    return
                self._emit(EventLog(seat, events))
            case _Refresh():
                self._refetch()

    def _leave(self, seat: int) -> None:
        """Leave ``seat`` (a casual table): it is open for someone to join; this account
        no longer holds it."""
        try:
            self._client.request("POST", f"/api/tables/{self.code}/seats/{int(seat)}/leave")
        except ApiError as problem:
            self._emit(Refused(problem.code, problem.message, seat))
            return
        finally:
            self.busy.clear()
        self.seats = [s for s in self.seats if s != seat]
        self._views.pop(seat, None)
        self._emit(Left(seat))

    def _replace(self, seat: int, bot: str | None) -> None:
        """(The owner) hand ``seat`` to the computer player ``bot``, or open it (None)."""
        try:
            self._client.request(
                "POST", f"/api/tables/{self.code}/seats/{int(seat)}/replace", json={"bot": bot}
            )
        except ApiError as problem:
            self._emit(Refused(problem.code, problem.message))
            return
        finally:
            self.busy.clear()
        self._refetch()

    def _act(
        self, seat: int, type_: str, version: int | None, fields: dict[str, Any], key: str
    ) -> None:
        if type_ == "leave":  # not a game action: the seat's own endpoint
            self._leave(seat)
            return
        if type_ == "replace":  # the owner hands ``seat`` (not necessarily ours) over
            self._replace(seat, fields.get("bot"))
            return
        expected = self.version if version is None else version
        attempts = 0
        try:
            while not self._stop.is_set():
                attempts += 1
                try:
                    self.requests_sent += 1
                    # over the table's socket while it is up (no HTTP request per
                    # move), over REST with the same key otherwise
                    state = self._client.act(
                        self.code,
                        seat,
                        type_,
                        expected_version=expected,
                        key=key,
                        socket=self._sub,
                        **fields,
                    )
                except ConnectionLost:
                    self._set_status("offline")
                    if attempts >= 30:
                        self._emit(Refused("connection_lost", "", seat))
                        return
                    self._stop.wait(OFFLINE_POLL)
                    continue
                except StaleVersion as problem:
                    before = self._views.get(seat)
                    after = None
                    if problem.view:
                        after = SeatState.from_json(problem.view, code=self.code, seat=seat)
                        self._state(after)
                    if (
                        after is not None
                        and attempts <= 3
                        and still_meant(type_, fields, before, after)
                    ):
                        # The table moved for reasons that do not touch this decision
                        # (another seat accepted, a pause): send it again, as a new action.
                        expected, key = after.version, new_action_key()
                        continue
                    self._emit(Refused(problem.code, problem.message, seat))
                    return
                except ApiError as problem:
                    self._emit(Refused(problem.code, problem.message, seat))
                    return
                self._set_status("online")
                self._state(state)
                return
        finally:
            self.busy.clear()
