"""The bot runner's ladder heartbeat: a refusal the same request would meet again stops
it (said once in the log); a conflict, a limit or the server's trouble is tried again at
the next beat (a bot that lost the race to make the ladder kept off it for good)."""

from __future__ import annotations

from clients.bots.ladder import LadderHeartbeat
from clients.sdk.errors import ApiError


class ScriptedClient:
    """Answers ``ladder`` from a script: an exception to raise or an entry to return."""

    def __init__(self, script: list) -> None:
        self.script = script
        self.calls = 0

    def clone(self) -> ScriptedClient:
        return self

    def ladder(self, version: str, matches_per_day: int | None = None) -> dict:
        self.calls += 1
        step = self.script[min(self.calls, len(self.script)) - 1]
        if isinstance(step, Exception):
            raise step
        return step


ENTRY = {"bot": "b1", "version": "1.0", "rating": 0.0}


def test_a_conflict_or_a_server_error_is_tried_again():
    client = ScriptedClient(
        [ApiError("username_taken", status=409), ApiError("server_error", status=500), ENTRY]
    )
    beat = LadderHeartbeat(client, "1.0", every=0.01).start()  # type: ignore[arg-type]
    try:
        assert beat.joined.wait(30)
        assert client.calls >= 3
    finally:
        beat.stop()


def test_a_permanent_refusal_stops_the_heartbeat():
    client = ScriptedClient([ApiError("permission_denied", status=403), ENTRY])
    beat = LadderHeartbeat(client, "1.0", every=0.01).start()  # type: ignore[arg-type]
    try:
        beat._thread.join(30)
        assert not beat._thread.is_alive()
        assert client.calls == 1 and not beat.joined.is_set()
    finally:
        beat.stop()
