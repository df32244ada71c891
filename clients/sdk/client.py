"""``DekabesClient``: the one REST client of the Dékabès server.

Used by the desktop client and by the computer players alike. Every call is a plain
HTTP request (``requests``); pushes live in ``clients.sdk.push``.

Retries: connection errors, timeouts and gateway errors (502/503/504, what a proxy
answers while the server restarts) are retried with backoff. That is safe for
actions too, because every action carries an Idempotency-Key that the retry reuses:
the server applies one key at most once. After the last retry ``ConnectionLost``.

A client object is not meant to be shared between threads (``requests.Session`` is
not thread-safe); ``clone()`` gives each thread its own.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import requests

from clients.sdk.errors import ApiError, ConnectionLost, NotAuthenticated, error_from_response
from clients.sdk.ladder import LadderCalls
from clients.sdk.matchmaking import MatchmakingCalls
from clients.sdk.types import Account, SeatState, Table

if TYPE_CHECKING:
    from clients.sdk.push import PushSubscription

DEFAULT_TIMEOUT = 10.0
MAX_LONG_POLL = 30  # the server caps ``wait`` at 30 s
RETRY_STATUSES = (502, 503, 504)


def new_action_key() -> str:
    """A fresh Idempotency-Key: one per decision, reused on every retry of it."""
    return str(uuid.uuid4())


class DekabesClient(MatchmakingCalls, LadderCalls):  # clients/sdk/matchmaking.py, ladder.py
    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = 4,
        backoff: float = 0.25,
        user_agent: str = "dekabes-sdk",
    ):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.user_agent = user_agent
        self.request_count = 0  # HTTP requests sent (retries included): for stats
        self.socket_actions = 0  # actions answered over a socket (``act(socket=)``)
        self.socket_fallbacks = 0  # actions sent over REST because the socket was down
        self._session = requests.Session()

    # ------------------------------------------------------------------ plumbing
    def clone(self) -> DekabesClient:
        return DekabesClient(
            self.base_url, self.token, self.timeout, self.retries, self.backoff, self.user_agent
        )

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> DekabesClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _headers(self, extra: dict[str, Any] | None) -> dict[str, Any]:
        headers = {"Accept": "application/json", "User-Agent": self.user_agent}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if extra:
            headers.update(extra)
        return headers

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
        """Send one request (with retries) and return the decoded JSON body (or text)."""
        url = self.base_url + path
        last_problem: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(self.backoff * (2 ** (attempt - 1)), 2.0))
            self.request_count += 1
            try:
                response = self._session.request(
                    method,
                    url,
                    json=json,
                    params=params,
                    headers=self._headers(headers),
                    timeout=timeout if timeout is not None else self.timeout,
                )
            except (requests.ConnectionError, requests.Timeout) as problem:
                last_problem = problem
                continue
            if response.status_code in RETRY_STATUSES:
                last_problem = ApiError(
                    f"http_{response.status_code}", "gateway error", status=response.status_code
                )
                continue
            return self._decode(response, raw_text)
        raise ConnectionLost(f"{method} {path}: {last_problem}") from last_problem

    @staticmethod
    def _decode(response: requests.Response, raw_text: bool) -> Any:
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = None
            error = error_from_response(response.status_code, body, response.text)
            error.retry_after = _retry_after(response)
            raise error
        if raw_text:
            return response.text
        if not response.content:
            return {}
        return response.json()

    # ------------------------------------------------------------------ accounts
    def register(self, username: str, password: str, invite: str | None = None) -> Account:
        """A new account and its token. ``invite``: the server's one-time invite code, for a
        server that registers by invite (``403 registration_closed`` / ``bad_invite``
        otherwise). If the request had to be sent again (a timeout: the
        password hash runs at low priority on a busy server) and the retry is told the name
        is taken, the first attempt may have created it: signing in with the same password
        tells, and then the account is ours."""
        sent_before = self.request_count
        fields = {"username": username, "password": password}
        if invite:
            fields["invite"] = invite
        try:
            body = self.request("POST", "/api/auth/register", json=fields)
        except ApiError as refused:
            if refused.code != "username_taken" or self.request_count - sent_before < 2:
                raise
            return self.login(username, password)
        account = Account.from_json(body)
        self.token = account.token
        return account

    def login(self, username: str, password: str, device: str | None = None) -> Account:
        """A new token. For a named ``device`` that device's previous token is revoked;
        without one the token is one more of the unnamed device "default" (none revoked)."""
        body = {"username": username, "password": password}
        if device:
            body["device"] = device
        account = Account.from_json(self.request("POST", "/api/auth/token", json=body))
        self.token = account.token
        return account

    def rotate_token(self) -> str:
        """Swap the held token for a new one of the same device; the old one dies at once."""
        self.token = self.request("POST", "/api/auth/rotate")["token"]
        return self.token

    def tokens(self) -> list[dict[str, Any]]:
        """My tokens (one per named device, any number of unnamed "default" ones):
        ``{"id", "device", "created_at", "current"}``."""
        result: list[dict[str, Any]] = self.request("GET", "/api/auth/tokens")["tokens"]
        return result

    def revoke_token(self, token_id: int) -> None:
        self.request("DELETE", f"/api/auth/tokens/{int(token_id)}")

    def change_password(self, password: str, new_password: str) -> int:
        """Returns how many other tokens were revoked (the held one keeps working)."""
        result: int = self.request(
            "POST", "/api/auth/password", json={"password": password, "new_password": new_password}
        )["revoked"]
        return result

    def rotate_bot_token(self, bot_name: str) -> Account:
        """A new token for one of my bots; all its earlier tokens stop working."""
        return Account.from_json(
            self.request("POST", f"/api/bots/{quote(bot_name, safe='')}/token")
        )

    def host_players(self) -> list[dict[str, Any]]:
        """The host account only: every server-hosted computer player in service,
        ``{"username", "level"}`` (docs/bots.md, "Server-hosted players")."""
        result: list[dict[str, Any]] = self.request("GET", "/api/host/players")["players"]
        return result

    def host_player_token(self, name: str) -> Account:
        """The host account only: a token for a hosted player (device ``host``; only the
        host's previous token of that player stops working)."""
        return Account.from_json(
            self.request("POST", f"/api/host/players/{quote(name, safe='')}/token")
        )

    def me(self) -> Account:
        return Account.from_json(self.request("GET", "/api/me"))

    def logout(self) -> bool:
        """Sign out: revoke this client's token on the server and forget it here.

        True when the server revoked it (or no longer knew it); False when the server
        has no revocation (``404``/``405`` on ``POST /api/auth/logout``): the token is
        then only forgotten here and stays valid on the server."""
        try:
            self.request("POST", "/api/auth/logout")
            revoked = True
        except NotAuthenticated:
            revoked = True  # already revoked, or never valid: nothing to undo
        except ApiError as problem:
            if problem.status not in (404, 405):
                raise
            revoked = False
        self.token = None
        return revoked

    def register_bot(self, name: str) -> Account:
        """Create a bot account owned by the caller; the result carries the bot's token."""
        return Account.from_json(self.request("POST", "/api/bots", json={"name": name}))

    # ------------------------------------------------------------------ tables
    def create_table(
        self,
        seats: Mapping[int, str] | Mapping[str, str],
        join: list[int] | None = None,
        bots: Mapping[int, str] | Mapping[str, str] | None = None,
        **extra: Any,
    ) -> Table:
        """``seats`` like {1: "human", 2: "bot", ...}; ``bots`` maps bot seats to bot usernames."""
        body: dict[str, Any] = {"seats": {str(k): v for k, v in seats.items()}}
        if join:
            body["join"] = list(join)
        if bots:
            body["bots"] = {str(k): v for k, v in bots.items()}
        body.update(extra)
        return Table.from_json(self.request("POST", "/api/tables", json=body))

    def tables(self, mine: bool = True) -> list[Table]:
        data = self.request("GET", "/api/tables", params={"mine": 1} if mine else None)
        return [Table.from_json(t) for t in data.get("tables", [])]

    def unfinished_tables(self) -> list[Table]:
        """My tables whose match is still going (newest first)."""
        return [t for t in self.tables() if t.phase != "match_over"]

    def finished_tables(self) -> list[Table]:
        """My tables whose match is over (newest first)."""
        return [t for t in self.tables() if t.phase == "match_over"]

    def replay_url(self, code: str) -> str | None:
        """The web page replaying table ``code``, if this server has one (the web app's
        ``/tables/{code}/replay``); None when it answers 404 (no web app)."""
        url = f"{self.base_url}/tables/{_seg(code)}/replay"
        try:
            response = self._session.get(
                url,
                headers={"User-Agent": self.user_agent},
                allow_redirects=False,
                timeout=self.timeout,
            )
        except (requests.ConnectionError, requests.Timeout) as problem:
            raise ConnectionLost(f"GET /tables/{code}/replay: {problem}") from problem
        return None if response.status_code in (404, 405) or response.status_code >= 500 else url

    # ------------------------------------------------------------------ clubs and leagues
    def clubs(self, mine: bool = False) -> list[dict[str, Any]]:
        """Clubs I may see, every page of them (``mine``: only those I belong to). A server
        without the league API raises ``NotFound``."""
        out: list[dict[str, Any]] = []
        page = 1
        while True:
            data = self.request("GET", "/api/clubs", params={"page": page})
            out.extend(data.get("results", []) if isinstance(data, dict) else data)
            if not isinstance(data, dict) or not data.get("next"):
                break
            page += 1
        return [c for c in out if c.get("your_role")] if mine else out

    def pages(
        self, path: str, params: dict[str, Any] | None = None, limit: int = 200
    ) -> list[dict[str, Any]]:
        """The ``results`` of a paginated league list, page after page, up to ``limit``
        rows (the server's pages hold at most 200)."""
        out: list[dict[str, Any]] = []
        page = 1
        size = max(1, min(200, limit))
        while len(out) < limit:
            data = self.request(
                "GET", path, params={**(params or {}), "page": page, "page_size": size}
            )
            out.extend(data.get("results", []) if isinstance(data, dict) else data)
            if not isinstance(data, dict) or not data.get("next"):
                break
            page += 1
        return out[:limit]

    def join_club(self, slug: str, code: str) -> dict[str, Any]:
        """Join club ``slug`` with an invite code (``POST /api/clubs/{slug}/join``)."""
        result: dict[str, Any] = self.request(
            "POST", f"/api/clubs/{_seg(slug)}/join", json={"code": code}
        )
        return result

    def seasons(self, slug: str) -> list[dict[str, Any]]:
        return self.pages(f"/api/clubs/{_seg(slug)}/seasons")

    def standings(self, slug: str, season: int, limit: int = 200) -> list[dict[str, Any]]:
        """A season's standings, in order."""
        return self.pages(f"/api/clubs/{_seg(slug)}/seasons/{int(season)}/standings", limit=limit)

    def ratings(self, slug: str, limit: int = 200) -> list[dict[str, Any]]:
        """A club's ratings, best ordinal first."""
        return self.pages(f"/api/clubs/{_seg(slug)}/ratings", limit=limit)

    def matches(self, limit: int = 200, **filters: Any) -> list[dict[str, Any]]:
        """Matches newest first (``club``, ``season``, ``player``, ``status``, ``since``,
        ``until``), up to ``limit``."""
        params = {k: v for k, v in filters.items() if v is not None}
        return self.pages("/api/matches", params, limit=limit)

    def player_stats(self, username: str) -> dict[str, Any]:
        """A player's statistics over the finished matches I may read
        (``GET /api/players/{username}/stats``): ``overall`` and ``clubs``, lines of
        ``matches``, ``won``, ``hands``, ``hands_won``, ``dekabes`` (``club`` null: casual
        tables). A server without it raises ``NotFound``."""
        result: dict[str, Any] = self.request("GET", f"/api/players/{_seg(username)}/stats")
        return result

    def _long_poll(self, wait: float | None, after: int | None) -> tuple[dict[str, Any], float]:
        """The query of a long-poll (``wait`` capped at the server's maximum) and the
        request timeout that leaves the server that long to answer."""
        params: dict[str, Any] = {}
        timeout = self.timeout
        if wait:
            wait = min(float(wait), MAX_LONG_POLL)
            params["wait"] = f"{wait:g}"
            timeout = self.timeout + wait
        if after is not None:
            params["after"] = int(after)
        return params, timeout

    def league_tables(self, wait: float | None = None, after: int | None = None) -> dict[str, Any]:
        """My tables of the current league rounds; with ``wait``/``after`` a long-poll that
        answers as soon as they change past version ``after``."""
        params, timeout = self._long_poll(wait, after)
        result: dict[str, Any] = self.request(
            "GET", "/api/me/league-tables", params=params or None, timeout=timeout
        )
        return result

    # ------------------------------------------------ substitutes and forfeits (organizers)
    def set_round_deadline(
        self, slug: str, season: int, number: int, deadline: str | None
    ) -> dict[str, Any]:
        """Set (an ISO 8601 time with a zone) or remove (None) a round's deadline."""
        path = f"/api/clubs/{_seg(slug)}/seasons/{int(season)}/rounds/{int(number)}"
        result: dict[str, Any] = self.request("PATCH", path, json={"deadline": deadline})
        return result

    def substitute(
        self,
        match_id: int,
        seat: int,
        *,
        username: str | None = None,
        level: str | None = None,
        reason: str = "",
    ) -> dict[str, Any]:
        """Hand ``seat`` of a league match in progress to the member ``username`` or to a
        hosted computer player at ``level``; the match answer."""
        by = {"username": username} if username is not None else {"level": level}
        result: dict[str, Any] = self.request(
            "POST",
            f"/api/matches/{int(match_id)}/substitute",
            json={"seat": int(seat), "by": by, "reason": reason},
        )
        return result

    def forfeit(self, match_id: int, seat: int, reason: str) -> dict[str, Any]:
        """After the round's deadline: end the match against the team of ``seat``."""
        result: dict[str, Any] = self.request(
            "POST",
            f"/api/matches/{int(match_id)}/forfeit",
            json={"seat": int(seat), "reason": reason},
        )
        return result

    # ------------------------------------------------------- leave and replace (casual)
    def leave(self, code: str, seat: int) -> Table:
        """Leave my seat at a casual table: it is open for someone to join."""
        return Table.from_json(self.request("POST", f"{self._seat_path(code, seat)}/leave"))

    def replace_seat(self, code: str, seat: int, bot: str | None = None) -> Table:
        """(The owner) hand ``seat`` to the computer player ``bot``, or open it (None)."""
        return Table.from_json(
            self.request("POST", f"{self._seat_path(code, seat)}/replace", json={"bot": bot})
        )

    def table(self, code: str) -> Table:
        return Table.from_json(self.request("GET", f"/api/tables/{_seg(code)}"))

    def join(self, code: str, seat: int) -> Table:
        return Table.from_json(
            self.request("POST", f"/api/tables/{_seg(code)}/join", json={"seat": int(seat)})
        )

    # ------------------------------------------------------------------ one seat
    def seat_view(
        self, code: str, seat: int, wait: float | None = None, after: int | None = None
    ) -> SeatState:
        """The seat's view. With ``wait`` (seconds, max 30) and ``after`` (a version) this
        long-polls: it returns as soon as the table moves past ``after``."""
        params, timeout = self._long_poll(wait, after)
        data = self.request(
            "GET", f"{self._seat_path(code, seat)}", params=params or None, timeout=timeout
        )
        return SeatState.from_json(data, code=code, seat=seat)

    def act(
        self,
        code: str,
        seat: int,
        type: str,
        expected_version: int | None = None,
        key: str | None = None,
        socket: PushSubscription | None = None,
        **fields: Any,
    ) -> SeatState:
        """Send one action. ``key`` is the Idempotency-Key (the socket's ``command_id``):
        pass the same one to retry the same decision; a new one is generated when omitted.

        ``socket``: the table's ``subscribe()`` subscription: the action goes over it
        (no HTTP request per move; docs/api.md, "Actions over the seat's socket"), and
        over REST with the same key when the socket is down or gives no answer. Either
        way the answer and the errors raised are the same."""
        body: dict[str, Any] = {"type": type, **fields}
        body.pop("seat", None)  # the seat is in the URL
        if expected_version is not None:
            body["expected_version"] = int(expected_version)
        key = key or new_action_key()
        if socket is not None and socket.code == code and socket.follows(seat):
            from clients.sdk.push import SocketUnavailable

            try:
                status, answer = socket.send_action(seat, body, key, timeout=self.timeout)
            except SocketUnavailable:
                self.socket_fallbacks += 1
            else:
                self.socket_actions += 1
                if status >= 400:
                    raise error_from_response(status, answer)
                return SeatState.from_json(answer, code=code, seat=seat)
        data = self.request(
            "POST",
            f"{self._seat_path(code, seat)}/actions",
            json=body,
            headers={"Idempotency-Key": key},
        )
        return SeatState.from_json(data, code=code, seat=seat)

    def send_event(
        self,
        code: str,
        event: dict[str, Any],
        expected_version: int | None = None,
        key: str | None = None,
        socket: PushSubscription | None = None,
    ) -> SeatState:
        """Send an engine event (as in ``view["legal"]`` or from ``engine.bots.decide``);
        ``socket`` as for ``act``."""
        fields = {k: v for k, v in event.items() if k not in ("type", "seat")}
        return self.act(
            code, int(event["seat"]), event["type"], expected_version, key, socket, **fields
        )

    # -------------------------------------------------- table manners (several people)
    def request_takeback(
        self, code: str, seat: int, command: str = "undo", expected_version: int | None = None
    ) -> SeatState:
        """``undo``/``redo``/``restart_hand``/``new_match``: immediate with one person at
        the table, a takeback request the others answer with several (``state.raw
        ["takeback"]``)."""
        return self.act(code, seat, command, expected_version)

    def answer_takeback(
        self, code: str, seat: int, accept: bool, expected_version: int | None = None
    ) -> SeatState:
        """Accept or decline the open takeback request (the other people only)."""
        kind = "accept_takeback" if accept else "decline_takeback"
        return self.act(code, seat, kind, expected_version)

    def presence(self, code: str, seat: int) -> dict[str, Any]:
        """Every seat's presence as seat ``seat`` sees it: {"1": {"connected", "away_since"}}."""
        result: dict[str, Any] = self.seat_view(code, seat).raw.get("presence") or {}
        return result

    # ------------------------------------------------------------------ spectators
    def spectate(
        self, code: str, wait: float | None = None, after: int | None = None
    ) -> dict[str, Any]:
        """The table as a spectator sees it (public facts only); ``wait``/``after``
        long-poll as ``seat_view``."""
        params, timeout = self._long_poll(wait, after)
        result: dict[str, Any] = self.request(
            "GET", f"/api/tables/{_seg(code)}/spectate", params=params or None, timeout=timeout
        )
        return result

    def set_watchable(self, code: str, watchable: bool = True) -> bool:
        """The owner lets anyone signed in who holds the code watch the table (or stops)."""
        result = self.request(
            "POST", f"/api/tables/{_seg(code)}/watchable", json={"watchable": bool(watchable)}
        )
        return bool(result["watchable"])

    def hint(self, code: str, seat: int) -> dict[str, Any]:
        result: dict[str, Any] = self.request("GET", f"{self._seat_path(code, seat)}/hint")
        return result

    def events(self, code: str, seat: int, after: int = 0) -> dict[str, Any]:
        result: dict[str, Any] = self.request(
            "GET", f"{self._seat_path(code, seat)}/events", params={"after": int(after)}
        )
        return result

    def all_events(self, code: str, seat: int) -> list[dict[str, Any]]:
        """Every event the seat may see, following pages if the server pages them."""
        collected: list[dict[str, Any]] = []
        after = 0
        while True:
            batch = self.events(code, seat, after).get("events", [])
            if not batch:
                return collected
            collected.extend(batch)
            newest = max(e.get("seq", 0) for e in batch)
            if newest <= after:
                return collected
            after = newest

    def record(self, code: str) -> str:
        """The engine record (JSON Lines), complete once the match is over."""
        result: str = self.request(
            "GET",
            f"/api/tables/{_seg(code)}/record",
            headers={"Accept": "text/plain"},
            raw_text=True,
        )
        return result

    export = record

    def wait_until(
        self,
        code: str,
        seat: int,
        predicate: Callable[[SeatState], bool],
        timeout: float = 60.0,
        poll: float = 10.0,
    ) -> SeatState:
        """Long-poll the seat until ``predicate(state)`` holds; TimeoutError after ``timeout``."""
        deadline = time.monotonic() + timeout
        state = self.seat_view(code, seat)
        while not predicate(state):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"table {code} seat {seat}: condition not met at v{state.version}"
                )
            state = self.seat_view(code, seat, wait=max(0.5, min(poll, left)), after=state.version)
        return state

    # ------------------------------------------------------------------ pushes
    def subscribe(self, code: str, seat: int | None = None, **options: Any) -> PushSubscription:
        """A ``PushSubscription`` (started) for the table's pushes; see clients.sdk.push."""
        from clients.sdk.push import PushSubscription

        subscription = PushSubscription(self.base_url, self.token, code, seat=seat, **options)
        subscription.start()
        return subscription

    def _seat_path(self, code: str, seat: int) -> str:
        return f"/api/tables/{_seg(code)}/seats/{int(seat)}"


def _retry_after(response: requests.Response) -> float | None:
    """A refusal's ``Retry-After`` in seconds (429 daily_limit, throttled), if it has one."""
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def _seg(code: str) -> str:
    return quote(str(code), safe="")
