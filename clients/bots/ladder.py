"""A runner on the bot ladder: ``python -m clients.bots --ladder VERSION`` joins the
ladder as ``VERSION`` and says so again every ``HEARTBEAT`` seconds (the server draws
only bots seen lately); the runner plays the ladder's tables as any table it is seated
at (its discovery finds them)."""

from __future__ import annotations

import logging
import threading

from clients.sdk import ApiError, ConnectionLost, DekabesClient

log = logging.getLogger("dekabes.bots.ladder")

HEARTBEAT = 300.0  # seconds: well inside the server's quarter of an hour


PERMANENT = (400, 401, 403, 404)  # refusals that the same request would meet again


class LadderHeartbeat:
    def __init__(
        self,
        client: DekabesClient,
        version: str,
        matches_per_day: int | None = None,
        every: float = HEARTBEAT,
    ):
        self.client = client.clone()  # its own session: a thread of its own
        self.version = version
        self.matches_per_day = matches_per_day
        self.every = every
        self.joined = threading.Event()
        self.stop_event = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ladder-heartbeat", daemon=True)

    def start(self) -> LadderHeartbeat:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.stop_event.set()
        self._thread.join(timeout)

    def beat(self) -> dict:
        entry = self.client.ladder(self.version, matches_per_day=self.matches_per_day)
        self.joined.set()
        return entry

    def _run(self) -> None:
        while not self.stop_event.is_set():
            try:
                entry = self.beat()
                log.info(
                    "on the ladder as %s %s: rating %.1f",
                    entry["bot"],
                    entry["version"],
                    entry["rating"],
                )
            except ApiError as problem:
                if problem.status in PERMANENT:  # not a bot, a bad version...: say it, stop
                    log.error("the ladder refused us: %s %s", problem.code, problem.message)
                    return
                # a conflict, a limit or the server's trouble: it may pass, so try again
                log.warning("ladder: %s %s; trying again", problem.code, problem.message)
            except ConnectionLost:
                log.warning("ladder: server unreachable; trying again")
            self.stop_event.wait(self.every)
