"""Matchmaking calls of the SDK: open seats (seeks), challenges, a bot's terms.

``DekabesClient`` inherits them (``MatchmakingCalls``), so a program calls
``client.open_seats(...)``, ``client.seek(...)``, ``client.challenge(...)``,
``client.accept(...)``, ``client.decline(...)``. Every answer is the server's JSON as a
dict (docs/api.md, "Open seats and challenges"). Past a daily quota the server answers
``429 daily_limit``: the ``ApiError`` carries ``retry_after`` (seconds).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from clients.sdk.errors import ApiError

MAX_LONG_POLL = 30

# Why an invitee says no (the server's fixed list; ``decline`` sends one of them).
DECLINE_REASONS = (
    "generic",
    "later",
    "too_fast",
    "too_slow",
    "rated",
    "casual",
    "no_bots",
    "only_bots",
    "partner",
    "too_many_games",
)


def _seg(value: object) -> str:
    return quote(str(value), safe="")


class MatchmakingCalls:
    """Mixed into ``DekabesClient``, which gives ``request`` and ``timeout``."""

    timeout: float

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
    ) -> Any:
        raise NotImplementedError  # DekabesClient's

    def _poll_query(self, wait: float | None, after: int | None) -> tuple[dict[str, Any], float]:
        params: dict[str, Any] = {}
        timeout = self.timeout
        if wait:
            wait = min(float(wait), MAX_LONG_POLL)
            params["wait"] = f"{wait:g}"
            timeout = self.timeout + wait
        if after is not None:
            params["after"] = int(after)
        return params, timeout

    # ------------------------------------------------------------------ open seats
    def open_seats(
        self, wait: float | None = None, after: int | None = None, fits: bool = False
    ) -> dict[str, Any]:
        """``{"version", "seeks": [...]}``: casual tables seeking players, oldest first.
        ``fits``: only those I may take a seat of. With ``wait``/``after`` a long-poll
        that answers as soon as a seek opens or closes past version ``after``."""
        params, timeout = self._poll_query(wait, after)
        if fits:
            params["fits"] = "1"
        result: dict[str, Any] = self.request(
            "GET", "/api/tables/open", params=params or None, timeout=timeout
        )
        return result

    def seek(
        self,
        wanted: str = "any",
        join: Iterable[int] = (1,),
        bots: Mapping[int, str] | None = None,
        min_level: float | None = None,
        max_level: float | None = None,
        minutes: int = 30,
    ) -> dict[str, Any]:
        """Seek players: a casual table with me at ``join`` (and ``bots`` at their seats),
        the other seats open to ``wanted`` ("people", "bots", "any") within the level
        range, for ``minutes``. The seek's answer: ``table`` is the table's code."""
        body: dict[str, Any] = {"wanted": wanted, "join": list(join), "minutes": minutes}
        if bots:
            body["bots"] = {str(k): v for k, v in bots.items()}
        if min_level is not None:
            body["min_level"] = min_level
        if max_level is not None:
            body["max_level"] = max_level
        result: dict[str, Any] = self.request("POST", "/api/tables/open", json=body)
        return result

    def seek_info(self, seek_id: int) -> dict[str, Any]:
        result: dict[str, Any] = self.request("GET", f"/api/tables/open/{_seg(seek_id)}")
        return result

    def cancel_seek(self, seek_id: int) -> dict[str, Any]:
        result: dict[str, Any] = self.request("POST", f"/api/tables/open/{_seg(seek_id)}/cancel")
        return result

    def take_open_seat(
        self, wait: float | None = None, after: int | None = None
    ) -> tuple[str, int] | int:
        """Look at the open seats I may take (long-polling past ``after``) and take the
        first one still free: ``(table code, seat)``; when none could be taken, the
        list's version (ask again with ``after`` = it)."""
        found = self.open_seats(wait=wait, after=after, fits=True)
        for seek in found["seeks"]:
            for seat in seek["open_seats"]:
                try:
                    self.request(
                        "POST", f"/api/tables/{_seg(seek['table'])}/join", json={"seat": seat}
                    )
                except ApiError as refusal:
                    if refusal.code == "daily_limit":
                        raise
                    continue  # taken meanwhile, or no longer offered: the next one
                return seek["table"], int(seat)
        version: int = found["version"]
        return version

    # ------------------------------------------------------------------ challenges
    def challenge(
        self,
        partner: str,
        opponents: Iterable[str],
        rated: bool = False,
        seconds_per_move: int = 30,
        minutes: int = 10,
    ) -> dict[str, Any]:
        """Challenge three players: me (seat 1) and ``partner`` (seat 3) against the two
        ``opponents`` (seats 2 and 4). A bot's published terms are checked first: one
        outside them raises ``ApiError`` ``outside_terms`` and nothing is made."""
        body = {
            "partner": partner,
            "opponents": list(opponents),
            "rated": rated,
            "seconds_per_move": seconds_per_move,
            "minutes": minutes,
        }
        result: dict[str, Any] = self.request("POST", "/api/challenges", json=body)
        return result

    def challenges(self, wait: float | None = None, after: int | None = None) -> dict[str, Any]:
        """``{"version", "challenges": [...]}``: the challenges to me and by me (every
        pending one, then the latest closed); long-poll with ``wait``/``after``."""
        params, timeout = self._poll_query(wait, after)
        result: dict[str, Any] = self.request(
            "GET", "/api/challenges", params=params or None, timeout=timeout
        )
        return result

    def accept(self, challenge_id: int) -> dict[str, Any]:
        """Accept; once all four have, ``status`` is "started" and ``table`` its code."""
        result: dict[str, Any] = self.request(
            "POST", f"/api/challenges/{_seg(challenge_id)}/accept"
        )
        return result

    def decline(self, challenge_id: int, reason: str = "generic") -> dict[str, Any]:
        """Decline with a reason of ``DECLINE_REASONS``."""
        result: dict[str, Any] = self.request(
            "POST", f"/api/challenges/{_seg(challenge_id)}/decline", json={"reason": reason}
        )
        return result

    def cancel_challenge(self, challenge_id: int) -> dict[str, Any]:
        result: dict[str, Any] = self.request(
            "POST", f"/api/challenges/{_seg(challenge_id)}/cancel"
        )
        return result

    # ------------------------------------------------------------------ terms
    def publish_terms(self, bot: str, **terms: Any) -> dict[str, Any]:
        """Publish what ``bot`` accepts (its owner, or the bot itself): ``casual``,
        ``rated``, ``opponents``/``partners`` ("people", "bots", "any"),
        ``min_seconds_per_move``, ``max_seconds_per_move``, ``games_per_day``,
        ``hours_from``/``hours_to`` (UTC). Terms left out take their defaults."""
        result: dict[str, Any] = self.request("PUT", f"/api/bots/{_seg(bot)}/terms", json=terms)
        return result

    def challengeable_bots(self) -> list[dict[str, Any]]:
        """Every bot that takes challenges, each with its terms (``GET /api/bots/terms``)."""
        result: list[dict[str, Any]] = self.request("GET", "/api/bots/terms")["bots"]
        return result

    def terms(self, bot: str) -> dict[str, Any]:
        result: dict[str, Any] = self.request("GET", f"/api/bots/{_seg(bot)}/terms")
        return result
