"""A worker thread the pygame loop talks to through two queues, never waiting on it.

The table's ``Connection`` and the lobby's ``LobbyService`` are both one: the loop queues
a command (``_send``) and once per frame drains what came back (``poll``); the worker
thread (``_run``, the subclass's) takes the commands one by one (``_next_command``) and
reports with ``_emit``. ``Status`` is the one update both send.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Generic, TypeVar

CommandT = TypeVar("CommandT")
UpdateT = TypeVar("UpdateT")


@dataclass(frozen=True)
class Status:
    """The link to the server: "connecting" | "online" | "offline"."""

    name: str


@dataclass(frozen=True)
class _Stop:
    """Queued by ``close`` so a worker blocked on the queue wakes up and ends."""


class Worker(Generic[CommandT, UpdateT]):
    def __init__(self, name: str) -> None:
        self._commands: queue.Queue[CommandT | _Stop] = queue.Queue()
        self._updates: queue.Queue[UpdateT | Status] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.status = "connecting"

    # ------------------------------------------------------------------ the loop's side
    def _begin(self) -> None:
        self._thread.start()

    def poll(self) -> list[UpdateT | Status]:
        """Everything the worker reported since the last call (never blocks)."""
        out = []
        while True:
            try:
                out.append(self._updates.get_nowait())
            except queue.Empty:
                return out

    def _send(self, command: CommandT) -> None:
        self._commands.put(command)

    def _end(self) -> None:
        """Stop the worker and wait for it (a little), unless called from it."""
        self._stop.set()
        self._commands.put(_Stop())
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    # ------------------------------------------------------------------ the worker's side
    def _run(self) -> None:
        raise NotImplementedError

    def _next_command(self, timeout: float | None) -> CommandT | None:
        """The next command, or None after ``timeout`` seconds or when told to stop
        (then ``_stop`` is set)."""
        try:
            command = self._commands.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(command, _Stop):
            self._stop.set()
            return None
        return command

    def _emit(self, update: UpdateT | Status) -> None:
        self._updates.put(update)

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self._emit(Status(status))
