"""The lobby's link to the server: the SDK in a worker thread, like ``connection.py`` for
the table. The pygame loop queues a command and reads what came back with ``poll()``:

    ("status", "connecting" | "online" | "offline")
    ("signed_in", server, username, token)
    ("signed_out", revoked)                 revoked False: the server cannot revoke tokens
    ("tables", unfinished, finished)        lists of ``TableEntry``
    ("opened", code, seats)                 a table to sit at now (created or joined)
    ("created", code)
    ("bot", level, username, token)         a computer-player account made for a level
    ("league", LeagueInfo)                  my clubs and my tables of the current rounds
    ("error", code, context)                the server's code (or a client one), and what was tried

Losing the connection is not an error: the worker says "offline" and retries the last
refresh until the server answers again.
"""

from __future__ import annotations

import queue
import threading
import uuid
from dataclasses import dataclass, field

from clients.sdk import ApiError, ConnectionLost, DekabesClient, Table

RETRY = 3.0  # s between retries while the server is unreachable
LEAGUE_WAIT = 25.0  # s a league long-poll waits for news


@dataclass(frozen=True)
class TableEntry:
    table: Table
    seats: tuple[int, ...]  # the seats I hold there
    winner: str | None = None
    scores: tuple[int, int] | None = None
    replay: str | None = None  # the web replay page, if the server has one


@dataclass(frozen=True)
class LeagueInfo:
    supported: bool
    clubs: tuple[str, ...] = ()
    tables: tuple[dict, ...] = ()  # {"code", "club", "round", "seat"...}
    version: int | None = None


@dataclass
class _Session:
    server: str
    token: str | None = None
    username: str = ""
    league_version: int | None = None
    league_supported: bool | None = None
    extras: dict = field(default_factory=dict)


def bot_name(username: str, level: str) -> str:
    """A computer-player account name of one's own: ``ann-strong`` (3-40 characters)."""
    return f"{username[: 40 - len(level) - 1]}-{level}"


class LobbyService:
    def __init__(self, client_factory=None):
        self._factory = client_factory or (
            lambda url, token: DekabesClient(
                url, token, timeout=8.0, retries=1, user_agent="dekabes-table-lobby"
            )
        )
        self._commands: queue.Queue = queue.Queue()
        self._updates: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lobby", daemon=True)
        self._session: _Session | None = None
        self._pending: tuple | None = None  # the command to retry once back online
        self._league_thread: threading.Thread | None = None
        self._league_generation = 0
        self.status = "connecting"

    # ------------------------------------------------------------------ UI side
    def start(self) -> LobbyService:
        self._thread.start()
        return self

    def poll(self) -> list[tuple]:
        out = []
        while True:
            try:
                out.append(self._updates.get_nowait())
            except queue.Empty:
                return out

    def sign_in(self, server: str, username: str, password: str, register: bool = False):
        self._commands.put(("sign_in", server, username, password, register))

    def resume(self, server: str, username: str, token: str):
        """Use a remembered token (checked with ``GET /api/me``)."""
        self._commands.put(("resume", server, username, token))

    def sign_out(self):
        self._commands.put(("sign_out",))

    def refresh(self):
        self._commands.put(("refresh",))

    def create(self, seats: dict[int, str], bots: dict[int, str]):
        self._commands.put(("create", seats, bots))

    def join(self, code: str):
        self._commands.put(("join", code.strip().upper()))

    def make_bot(self, level: str):
        self._commands.put(("make_bot", level))

    def close(self):
        self._stop.set()
        self._league_generation += 1
        self._commands.put(("stop",))
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    # ------------------------------------------------------------------ worker side
    def _emit(self, *item) -> None:
        self._updates.put(item)

    def _set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self._emit("status", status)

    def _client(self) -> DekabesClient:
        session = self._session
        return self._factory(session.server, session.token)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                command = self._commands.get(timeout=RETRY if self._pending else None)
            except queue.Empty:
                command = self._pending  # offline: try again
            if command is None:
                continue
            if command[0] == "stop":
                return
            try:
                self._do(command)
                self._pending = None
                self._set_status("online")
            except ConnectionLost:
                self._set_status("offline")
                # sign-in and sign-out are the player's to repeat; reads are retried
                retried = command[0] in ("refresh", "resume")
                if not retried or (command[0] == "resume" and self._pending is None):
                    # said once; a remembered sign-in keeps being retried meanwhile
                    self._emit("error", "connection_lost", command[0])
                self._pending = command if retried else None
            except ApiError as problem:
                self._pending = None
                self._set_status("online")
                self._emit("error", problem.code, command[0])
            except Exception:  # never a traceback in the lobby
                self._pending = None
                self._emit("error", "client_error", command[0])

    def _do(self, command: tuple) -> None:
        kind = command[0]
        if kind == "sign_in":
            _, server, username, password, register = command
            self._session = _Session(server)
            with self._factory(server, None) as client:
                account = (client.register if register else client.login)(username, password)
            self._session.token, self._session.username = account.token, account.username
            self._emit("signed_in", server, account.username, account.token)
            self._refresh()
        elif kind == "resume":
            _, server, username, token = command
            self._session = _Session(server, token, username)
            with self._client() as client:
                me = client.me()
            self._session.username = me.username
            self._emit("signed_in", server, me.username, token)
            self._refresh()
        elif kind == "sign_out":
            self._league_generation += 1
            session, self._session = self._session, None
            revoked = True
            if session is not None and session.token:
                with self._factory(session.server, session.token) as client:
                    revoked = client.logout()
            self._emit("signed_out", revoked)
        elif kind == "refresh":
            self._refresh()
        elif kind == "create":
            _, seats, bots = command
            with self._client() as client:
                table = client.create_table(
                    seats, join=[n for n, k in seats.items() if k == "human"][:1], bots=bots
                )
            self._emit("created", table.code)
            self._emit("opened", table.code, [min(n for n, k in seats.items() if k == "human")])
        elif kind == "join":
            self._join(command[1])
        elif kind == "make_bot":
            level = command[1]
            with self._client() as client:
                name = bot_name(self._session.username, level)
                try:
                    account = client.register_bot(name)
                except ApiError as problem:
                    if problem.code != "username_taken":
                        raise
                    account = client.register_bot(
                        bot_name(f"{self._session.username[:30]}-{uuid.uuid4().hex[:4]}", level)
                    )
            self._emit("bot", level, account.username, account.token)

    def _join(self, code: str) -> None:
        with self._client() as client:
            table = client.table(code)
            held = table.seats_held_by(self._session.username)
            if held:
                self._emit("opened", table.code, held)
                return
            free = [
                n
                for n, info in sorted(table.seats.items())
                if info.kind == "human" and info.player is None
            ]
            if not free:
                raise ApiError("no_free_seat", "no free human seat")
            client.join(table.code, free[0])
            self._emit("opened", table.code, [free[0]])

    def _refresh(self) -> None:
        if self._session is None or not self._session.token:
            return
        with self._client() as client:
            tables = client.tables()
            me = self._session.username
            unfinished, finished = [], []
            replay_checked = False
            replay_offered = False
            for table in tables:
                held = tuple(table.seats_held_by(me))
                if table.phase != "match_over":
                    unfinished.append(TableEntry(table, held))
                    continue
                if len(finished) >= 5:
                    continue
                winner = scores = None
                if held:
                    view = client.seat_view(table.code, held[0]).view
                    winner = view.get("winner")
                    scores = (
                        view.get("scores", {}).get("A", 0),
                        view.get("scores", {}).get("B", 0),
                    )
                if not replay_checked:  # does this server have the web replay?
                    replay_checked = True
                    replay_offered = client.replay_url(table.code) is not None
                replay = f"{client.base_url}/tables/{table.code}/replay" if replay_offered else None
                finished.append(TableEntry(table, held, winner, scores, replay))
        self._emit("tables", unfinished, finished)
        self._refresh_league()

    # ------------------------------------------------------------------ league
    def _refresh_league(self) -> None:
        """Clubs and my league tables now, then a long-poll thread that tells at once
        when a round gives me a table (``GET /api/me/league-tables?wait=&after=``)."""
        session = self._session
        if session is None or session.league_supported is False:
            return
        with self._client() as client:
            try:
                clubs = client.clubs(mine=True)
                data = client.league_tables()
            except ApiError as problem:
                if problem.status in (404, 405):
                    session.league_supported = False
                    self._emit("league", LeagueInfo(False))
                    return
                raise
        session.league_supported = True
        self._emit_league(clubs, data)
        self._start_league_poll()

    def _emit_league(self, clubs, data: dict) -> None:
        names = tuple(str(c.get("name") or c.get("slug") or "") for c in clubs)
        by_slug = {c.get("slug"): c.get("name") or c.get("slug") for c in clubs}
        tables = tuple(
            {
                "code": t.get("table") or t.get("code"),
                "seat": t.get("seat"),
                "club": by_slug.get(t.get("club"), t.get("club")),
                "round": t.get("round"),
                "team": t.get("team"),
            }
            for t in data.get("tables") or []
        )
        version = data.get("version")
        if self._session is not None:
            self._session.league_version = version
        self._emit("league", LeagueInfo(True, names, tables, version))

    def _start_league_poll(self) -> None:
        if self._league_thread is not None and self._league_thread.is_alive():
            return
        generation = self._league_generation
        session = self._session

        def poll() -> None:
            client = self._factory(session.server, session.token)
            try:
                while not self._stop.is_set() and generation == self._league_generation:
                    try:
                        data = client.league_tables(wait=LEAGUE_WAIT, after=session.league_version)
                    except ConnectionLost:
                        self._stop.wait(RETRY)
                        continue
                    except ApiError:
                        self._stop.wait(RETRY * 4)
                        continue
                    if generation != self._league_generation:
                        return
                    if data.get("version") != session.league_version:
                        clubs = client.clubs(mine=True)
                        self._emit_league(clubs, data)
                    elif data.get("version") is None:
                        self._stop.wait(LEAGUE_WAIT)  # no versions: a slow poll
            finally:
                client.close()

        self._league_thread = threading.Thread(target=poll, name="lobby-league", daemon=True)
        self._league_thread.start()
