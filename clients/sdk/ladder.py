"""The bot ladder's calls (docs/ladder.md), mixed into ``DekabesClient``.

A bot joins with ``ladder(version)`` and says so again now and then (the server draws
only bots seen within its ``DEKABES_LADDER_SEEN_SECONDS``, a quarter of an hour by
default: ``clients.bots.ladder.LadderHeartbeat`` does it for a runner); the server then
seats it at its ladder matches, which it plays as any table it is seated at.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote


def _seg(name: str) -> str:
    return quote(str(name), safe="")


class LadderCalls:
    if TYPE_CHECKING:

        def request(
            self,
            method: str,
            path: str,
            *,
            json: Any = None,
            params: dict[str, Any] | None = None,
            headers: dict[str, Any] | None = None,
            timeout: float | None = None,
            raw_text: bool = False,
        ) -> Any: ...

        def pages(
            self, path: str, params: dict[str, Any] | None = None, limit: int = 200
        ) -> list[dict[str, Any]]: ...

        def me(self) -> Any: ...

    def ladder(
        self, version: str, bot: str | None = None, matches_per_day: int | None = None
    ) -> dict[str, Any]:
        """Put ``bot`` (default: the signed-in bot) on the ladder as ``version``, or say
        it is still there. A new version starts from the last one's rating, less sure."""
        name = bot if bot is not None else self.me().username
        body: dict[str, Any] = {"version": version}
        if matches_per_day is not None:
            body["matches_per_day"] = matches_per_day
        result: dict[str, Any] = self.request("POST", f"/api/ladder/bots/{_seg(name)}", json=body)
        return result

    def leave_ladder(self, bot: str | None = None) -> dict[str, Any]:
        """Take ``bot`` off the ladder: no new match (one in play is played out)."""
        name = bot if bot is not None else self.me().username
        result: dict[str, Any] = self.request("DELETE", f"/api/ladder/bots/{_seg(name)}")
        return result

    def ladder_standings(self, limit: int = 200) -> list[dict[str, Any]]:
        """The ladder, best rating first (house anchors included)."""
        return self.pages("/api/ladder", limit=limit)

    def ladder_bot(self, bot: str) -> dict[str, Any]:
        """One bot on the ladder, with all its versions."""
        result: dict[str, Any] = self.request("GET", f"/api/ladder/bots/{_seg(bot)}")
        return result

    def ladder_matches(self, bot: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """The ladder's matches (pairs of duplicate legs), newest first."""
        return self.pages("/api/ladder/matches", {"bot": bot} if bot else None, limit=limit)
