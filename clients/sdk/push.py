"""Table pushes over WebSocket, in a background thread, delivered through a queue.

    sub = client.subscribe("K7Q2MX", seat=1)
    for push in sub.poll():            # never blocks: call it once per pygame frame
        if push.kind == "view":   show(push.state)
        elif push.kind == "resync": show(client.seat_view("K7Q2MX", 1))   # REST refetch

Actions may go over the same socket (``send_action``; ``DekabesClient.act(...,
socket=sub)`` uses it and falls back to REST with the same key when the socket is down):
the answer comes back on it, matched by ``command_id``, with the POST's status and body.

The thread reconnects by itself with backoff. Whenever it (re)connects it queues a
``resync``: pushes sent while it was away are gone, so the consumer refetches over
REST and carries on from that version. It answers the server's ``ping`` with
``pong``, drops pushes older than the newest version it has seen for a seat (late
duplicates), and marks a push whose version skips past the previous one with
``gap=True`` (a single commit may append several events, so a gap is normal; the
pushed view is complete either way, but an event-log consumer should refetch events).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import websocket

from clients.sdk.types import SeatState

RECV_TICK = 0.5  # how often the thread looks at the stop flag while idle
ACTION_TIMEOUT = 10.0  # the longest an action waits for its answer on the socket
IDLE_LIMIT = 75.0  # no frame for this long: the connection is presumed dead


class SocketUnavailable(Exception):
    """The socket could not carry an action to its answer (not connected, closed before
    the answer, no answer in time): send it over REST with the same key."""


class _Answer:
    """One action waiting for its answer frame."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.frame: dict[str, Any] | None = None  # None once done: the socket went away


@dataclass(frozen=True)
class Push:
    kind: str  # "view" | "resync" | "disconnected"
    seat: int | None = None
    version: int | None = None
    state: SeatState | None = None
    gap: bool = False
    reason: str = ""


def ws_url(base_url: str, code: str, seat: int | None) -> str:
    base = base_url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base[len("https://") :]
    elif base.startswith("http://"):
        base = "ws://" + base[len("http://") :]
    url = f"{base}/ws/tables/{quote(str(code), safe='')}"
    return url + (f"?seat={int(seat)}" if seat is not None else "")


class PushSubscription:
    def __init__(
        self,
        base_url: str,
        token: str | None,
        code: str,
        seat: int | None = None,
        min_backoff: float = 0.2,
        max_backoff: float = 5.0,
        idle_limit: float = IDLE_LIMIT,
    ):
        self.code = code
        self.seat = seat
        self.url = ws_url(base_url, code, seat)
        self._token = token
        self._min_backoff = min_backoff
        self._max_backoff = max_backoff
        self._idle_limit = idle_limit
        self._queue: queue.Queue[Push] = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._socket: websocket.WebSocket | None = None
        self._newest: dict[int, int] = {}
        self._paused: dict[int, bool] = {}
        self._answers: dict[str, _Answer] = {}  # command_id -> the action waiting for it
        self._thread = threading.Thread(target=self._run, name=f"push-{code}", daemon=True)
        self.connected = threading.Event()
        self.connections = 0  # successful connects so far (reconnects = connections - 1)

    # ------------------------------------------------------------------ consumer side
    def start(self) -> PushSubscription:
        self._thread.start()
        return self

    def poll(self) -> list[Push]:
        """Every push queued so far; returns at once (empty list when none)."""
        items = []
        while True:
            try:
                items.append(self._queue.get_nowait())
            except queue.Empty:
                return items

    def get(self, timeout: float | None = None) -> Push | None:
        """The next push, waiting up to ``timeout`` seconds; None on timeout."""
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def observe(self, seat: int, version: int) -> None:
        """Tell the subscription a REST fetch saw ``version``: older pushes get dropped."""
        with self._lock:
            if version > self._newest.get(seat, -1):
                self._newest[seat] = version

    def follows(self, seat: int) -> bool:
        """True when this socket may act for ``seat`` (it follows it)."""
        return self.seat is None or self.seat == seat

    def send_action(
        self,
        seat: int,
        body: dict[str, Any],
        command_id: str,
        timeout: float = ACTION_TIMEOUT,
    ) -> tuple[int, dict[str, Any]]:
        """Send one action (REST's body: ``type``, ``expected_version``, …) for ``seat``
        on this socket; its answer's (status, body), exactly what the POST would answer.
        Raises ``SocketUnavailable`` when the socket cannot bring the answer: then send
        the same action with the same ``command_id`` over REST (it is applied once)."""
        sock = self._socket
        if sock is None or not self.connected.is_set():
            raise SocketUnavailable("the socket is not connected")
        message = {k: v for k, v in body.items() if k != "type"}
        message.update(type="action", action=body["type"], seat=seat, command_id=command_id)
        waiting = _Answer()
        with self._lock:
            self._answers[command_id] = waiting
        try:
            try:
                sock.send(json.dumps(message))
            except (websocket.WebSocketException, OSError) as problem:
                raise SocketUnavailable(f"the socket closed: {problem}") from problem
            if not waiting.done.wait(timeout) or waiting.frame is None:
                raise SocketUnavailable("no answer on the socket")
            frame = waiting.frame
        finally:
            with self._lock:
                if self._answers.get(command_id) is waiting:
                    del self._answers[command_id]
        status = frame.get("status")
        answer = frame.get("body")
        if not isinstance(status, int) or not isinstance(answer, dict):
            raise SocketUnavailable(f"a malformed answer: {frame!r}"[:200])
        if status == 200 and isinstance(answer.get("version"), int):
            self.observe(seat, answer["version"])  # pushes older than it are stale
        return status, answer

    def _give_up_waiting(self) -> None:
        with self._lock:
            waiting, self._answers = list(self._answers.values()), {}
        for answer in waiting:
            answer.done.set()  # frame None: the caller falls back to REST

    def close(self) -> None:
        self._stop.set()
        sock = self._socket
        if sock is not None:
            try:
                sock.close()
            except Exception:  # closing a dead socket may fail; we are leaving anyway
                pass
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=3)

    def __enter__(self) -> PushSubscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        backoff = self._min_backoff
        was_connected = False
        while not self._stop.is_set():
            try:
                sock = websocket.create_connection(
                    self.url,
                    timeout=RECV_TICK,
                    enable_multithread=True,
                    header=[f"Authorization: Token {self._token}"] if self._token else None,
                    # websocket-client checks a text frame's UTF-8 byte by byte in
                    # Python (1.2 ms of CPU for a 4.7 kB seat view; docs/api.md,
                    # "WebSocket") before ``recv`` decodes it strictly anyway: an invalid
                    # frame still ends the connection (``_read_until_closed``).
                    skip_utf8_validation=True,
                )
            except Exception as problem:  # refused, handshake 4xx/5xx, DNS: retry later
                if was_connected:
                    self._queue.put(Push("disconnected", reason=str(problem)))
                    was_connected = False
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self._max_backoff)
                continue
            self._socket = sock
            self.connections += 1
            backoff = self._min_backoff
            was_connected = True
            self.connected.set()
            self._queue.put(
                Push("resync", reason="reconnected" if self.connections > 1 else "connected")
            )
            try:
                self._read_until_closed(sock)
            finally:
                self.connected.clear()
                self._socket = None
                self._give_up_waiting()
                try:
                    sock.close()
                except Exception:
                    pass
        if was_connected:
            self._queue.put(Push("disconnected", reason="closed"))

    def _read_until_closed(self, sock: websocket.WebSocket) -> None:
        last_frame = time.monotonic()
        while not self._stop.is_set():
            try:
                text = sock.recv()
            except websocket.WebSocketTimeoutException:
                if time.monotonic() - last_frame > self._idle_limit:
                    return
                continue
            except (websocket.WebSocketException, OSError, UnicodeDecodeError):
                return  # closed, or a text frame that is not UTF-8: fail the connection
            last_frame = time.monotonic()
            if not text:  # close frame or empty message
                if not sock.connected:
                    return
                continue
            self._handle(sock, text)

    def _handle(self, sock: websocket.WebSocket, text: str | bytes) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            return  # not ours to interpret; the server only sends JSON
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "ping":
            try:
                sock.send(json.dumps({"type": "pong"}))
            except (websocket.WebSocketException, OSError):
                pass
            return
        if kind == "answer":
            command_id = message.get("command_id")
            with self._lock:
                waiting = self._answers.get(command_id) if isinstance(command_id, str) else None
            if waiting is not None:
                waiting.frame = message
                waiting.done.set()
            return
        if kind == "presence":
            # A seat's player came or went: the seat answers carry ``presence``; look again.
            self._queue.put(Push("resync", reason="presence"))
            return
        if kind != "view":
            return
        try:
            raw_seat: Any = message.get("seat")  # int(None) is a TypeError, caught below
            raw_version: Any = message.get("version")
            seat = int(raw_seat)
            version = int(raw_version)
        except (TypeError, ValueError):
            return
        paused = bool(message.get("paused"))
        with self._lock:
            previous = self._newest.get(seat)
            # Older is a late duplicate. Same version is kept only when pause flipped:
            # pause/resume may not move the version on every server.
            if previous is not None and (
                version < previous or (version == previous and paused == self._paused.get(seat))
            ):
                return
            self._newest[seat] = version
            self._paused[seat] = paused
        state = SeatState.from_json(message, code=self.code, seat=seat)
        gap = previous is not None and version > previous + 1
        self._queue.put(Push("view", seat=seat, version=version, state=state, gap=gap))
