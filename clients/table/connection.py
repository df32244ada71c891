"""The table client's only link to the server: the SDK (``clients.sdk``) in a worker thread.

The pygame loop never waits on the network. It calls ``act`` / ``hint`` / ``fetch_events``
(which only queue a command) and once per frame ``poll()`` for what came back:

    ("ready", info)            account name, held seats, table
    ("state", SeatState)       a seat's new view (from a push, a REST answer or a refetch)
    ("hint", seat, event)      the server's hint (appends nothing)
    ("events", seat, [..])     the table log as that seat may see it
    ("error", code, message)   the server refused (code as the server sent it)
    ("status", name)           "connecting" | "online" | "offline"

Pushes come from the SDK's ``PushSubscription`` (WebSocket, reconnects by itself). When
the push channel is down the worker long-polls over REST instead, so the table keeps
moving; an action that meets a dead connection is retried with the same
Idempotency-Key until the server answers (it applies one key at most once).
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

from clients.sdk import (
    ApiError,
    ConnectionLost,
    DekabesClient,
    SeatState,
    StaleVersion,
    new_action_key,
)

OFFLINE_POLL = 1.0  # s between REST polls while pushes are down


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


class Connection:
    def __init__(
        self,
        base_url: str,
        token: str,
        code: str,
        seats: list[int] | None = None,
        use_push: bool = True,
        client: DekabesClient | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.code = code.upper()
        self.wanted_seats = seats
        self.use_push = use_push
        self.seats: list[int] = []
        self.username = ""
        self.status = "connecting"
        self.requests_sent = 0
        self._client = client or DekabesClient(
            self.base_url, token, timeout=8.0, retries=2, user_agent="dekabes-table"
        )
        self._commands: queue.Queue = queue.Queue()
        self._updates: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"table-{code}", daemon=True)
        self._sub = None
        self.version = -1
        self._last_rest = 0.0
        self.busy = threading.Event()  # an action is on its way
        self._views: dict[int, SeatState] = {}

    # ------------------------------------------------------------------ UI side
    def start(self) -> Connection:
        self._thread.start()
        return self

    def poll(self) -> list[tuple]:
        out = []
        while True:
            try:
                out.append(self._updates.get_nowait())
            except queue.Empty:
                return out

    def act(self, seat: int, type: str, version: int | None = None, **fields) -> None:
        self.busy.set()
        self._commands.put(("act", seat, type, version, fields, new_action_key()))

    def hint(self, seat: int) -> None:
        self._commands.put(("hint", seat))

    def fetch_events(self, seat: int) -> None:
        self._commands.put(("events", seat))

    def refresh(self) -> None:
        self._commands.put(("refresh",))

    def close(self) -> None:
        self._stop.set()
        self._commands.put(("stop",))
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        if self._sub is not None:
            self._sub.close()
        self._client.close()

    # ------------------------------------------------------------------ worker side
    def _emit(self, *item) -> None:
        self._updates.put(item)

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self._emit("status", status)

    def _state(self, state: SeatState) -> None:
        old = self._views.get(state.seat)
        if old is None or state.version >= old.version:
            self._views[state.seat] = state
        if state.version >= self.version:
            self.version = state.version
        if self._sub is not None:
            self._sub.observe(state.seat, state.version)
        self._emit("state", state)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._connect()
                break
            except ApiError as problem:
                self._emit("error", problem.code, problem.message)
                if problem.code in ("not_authenticated", "not_found", "not_your_seat"):
                    self._set_status("offline")
                    return
                self._stop.wait(2.0)
            except ConnectionLost:
                self._set_status("offline")
                self._stop.wait(OFFLINE_POLL)
        while not self._stop.is_set():
            try:
                command = self._commands.get(timeout=0.05)
            except queue.Empty:
                command = None
            try:
                if command is not None:
                    if command[0] == "stop":
                        return
                    self._do(command)
                self._pump_pushes()
            except ConnectionLost:
                self._set_status("offline")
            except Exception as problem:  # never let the worker die: report and go on
                self._emit("error", "client_error", str(problem))

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
        self._emit("ready", {"username": me.username, "seats": held, "table": table})
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
        if not pushed_ok and time.monotonic() - self._last_rest > OFFLINE_POLL:
            try:
                self._refetch()
                self._set_status("online")
            except ConnectionLost:
                self._last_rest = time.monotonic()
                self._set_status("offline")

    def _do(self, command: tuple) -> None:
        kind = command[0]
        if kind == "act":
            _, seat, type_, version, fields, key = command
            self._act(seat, type_, version, fields, key)
        elif kind == "hint":
            seat = command[1]
            try:
                answer = self._client.hint(self.code, seat)
            except ApiError as problem:
                self._emit("error", problem.code, problem.message)
                return
            event = answer.get("hint", answer.get("event")) if isinstance(answer, dict) else None
            self._emit("hint", seat, event)
        elif kind == "events":
            seat = command[1]
            try:
                events = self._client.all_events(self.code, seat)
            except ApiError as problem:
                self._emit("error", problem.code, problem.message)
                return
            self._emit("events", seat, events)
        elif kind == "refresh":
            self._refetch()

    def _act(
        self, seat: int, type_: str, version: int | None, fields: dict[str, Any], key: str
    ) -> None:
        expected = self.version if version is None else version
        attempts = 0
        try:
            while not self._stop.is_set():
                attempts += 1
                try:
                    self.requests_sent += 1
                    state = self._client.act(
                        self.code, seat, type_, expected_version=expected, key=key, **fields
                    )
                except ConnectionLost:
                    self._set_status("offline")
                    if attempts >= 30:
                        self._emit("error", "connection_lost", "")
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
                    self._emit("error", problem.code, problem.message)
                    return
                except ApiError as problem:
                    self._emit("error", problem.code, problem.message)
                    return
                self._set_status("online")
                self._state(state)
                return
        finally:
            self.busy.clear()
