"""The lobby's link to the server: the SDK in a worker thread, like ``connection.py`` for
the table (both are a ``worker.Worker``). The pygame loop queues a command and reads
what came back with ``poll()``, one frozen dataclass each:

    Status(name)                            "connecting" | "online" | "offline"
    SignedIn(server, username, token)
    SignedOut(revoked)                      revoked False: the server cannot revoke tokens
    Tables(unfinished, finished)            lists of ``TableEntry``
    Opened(code, seats)                     a table to sit at now (created or joined)
    Created(code)
    BotMade(level, username, token)         a computer-player account made for a level
    League(info)                            ``LeagueInfo``: my clubs and league tables
    LeagueDetails(clubs, matches, stats)    the league page: each club's standings and
                                            ratings, my matches with results, my stats
    ClubJoined(slug, name)                  an invite code took me into a club
    OpenSeats(seeks)                        tables seeking players I may take a seat of
    Failed(code, context)                   the server's code (or a client one), and what
                                            was tried (the command's ``name``)

Losing the connection is not an error: the worker says "offline" and retries the last
refresh until the server answers again.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from clients.sdk import ApiError, ConnectionLost, DekabesClient, Table
from clients.table.stats import Stats, count, from_api
from clients.table.worker import Status, Worker

RETRY = 3.0  # s between retries while the server is unreachable
LEAGUE_WAIT = 25.0  # s a league long-poll waits for news
TURN_CHECKS = 12  # my unfinished tables whose seat view is read (whose turn) per refresh
MY_MATCHES = 1000  # finished matches read for my statistics (a server without them)
RECENT_MATCHES = 100  # finished matches read for "my league matches"
CLUB_ROWS = 50  # standings and ratings rows read per club
LIVE_ROWS = 10  # live tables read per club (to watch)


@dataclass(frozen=True)
class TableEntry:
    table: Table
    seats: tuple[int, ...]  # the seats I hold there
    winner: str | None = None
    scores: tuple[int, int] | None = None
    replay: str | None = None  # the web replay page, if the server has one
    my_turn: bool = False  # the table waits for one of my seats


@dataclass(frozen=True)
class LeagueInfo:
    supported: bool
    clubs: tuple[str, ...] = ()  # names
    tables: tuple[dict, ...] = ()  # {"code", "club", "round", "seat"...}
    version: int | None = None
    slugs: tuple[str, ...] = ()  # the clubs' slugs, in the order of ``clubs``
    known: bool = True  # False until the server was asked


@dataclass(frozen=True)
class ClubDetails:
    slug: str
    name: str
    season: str | None  # the newest season's name
    standings: tuple[dict, ...]  # the server's standings rows, in order
    ratings: tuple[dict, ...]  # the server's ratings rows, best first
    live: tuple[dict, ...] = ()  # its matches in play (``/api/matches?status=playing``)


# ---------------------------------------------------------------------- what comes back
@dataclass(frozen=True)
class SignedIn:
    server: str
    username: str
    token: str


@dataclass(frozen=True)
class SignedOut:
    revoked: bool


@dataclass(frozen=True)
class Tables:
    unfinished: list[TableEntry]
    finished: list[TableEntry]


@dataclass(frozen=True)
class Opened:
    code: str
    seats: list[int]


@dataclass(frozen=True)
class Created:
    code: str


@dataclass(frozen=True)
class BotMade:
    level: str
    username: str
    token: str


@dataclass(frozen=True)
class League:
    info: LeagueInfo


@dataclass(frozen=True)
class LeagueDetails:
    clubs: tuple[ClubDetails, ...]
    matches: tuple[dict, ...]  # my finished league matches, newest first
    stats: Stats


@dataclass(frozen=True)
class ClubJoined:
    slug: str
    name: str


@dataclass(frozen=True)
class OpenSeats:
    seeks: tuple[dict, ...]  # the server's seeks (``open_seats(fits=True)``), oldest first


@dataclass(frozen=True)
class Failed:
    code: str
    context: str


LobbyUpdate = (
    SignedIn
    | SignedOut
    | Tables
    | Opened
    | Created
    | BotMade
    | League
    | LeagueDetails
    | ClubJoined
    | OpenSeats
    | Failed
    | Status
)


# ---------------------------------------------------------------------- what the loop asks
@dataclass(frozen=True)
class _SignIn:
    name: ClassVar[str] = "sign_in"
    server: str
    username: str
    password: str = field(repr=False)
    register: bool
    invite: str = field(default="", repr=False)  # the server's invite code (registering)


@dataclass(frozen=True)
class _Resume:
    name: ClassVar[str] = "resume"
    server: str
    username: str
    token: str = field(repr=False)


@dataclass(frozen=True)
class _SignOut:
    name: ClassVar[str] = "sign_out"


@dataclass(frozen=True)
class _Refresh:
    name: ClassVar[str] = "refresh"


@dataclass(frozen=True)
class _Create:
    name: ClassVar[str] = "create"
    seats: dict[int, str] = field(hash=False)
    bots: dict[int, str] = field(hash=False)


@dataclass(frozen=True)
class _Join:
    name: ClassVar[str] = "join"
    code: str


@dataclass(frozen=True)
class _MakeBot:
    name: ClassVar[str] = "make_bot"
    level: str


@dataclass(frozen=True)
class _JoinClub:
    name: ClassVar[str] = "join_club"
    slug: str | None  # None: a bare code, tried on the clubs I may see
    code: str


@dataclass(frozen=True)
class _LoadLeague:
    name: ClassVar[str] = "league"


_LobbyCommand = (
    _SignIn | _Resume | _SignOut | _Refresh | _Create | _Join | _MakeBot | _JoinClub | _LoadLeague
)
# Reads the lobby repeats by itself until the server answers again.
_RETRIED = (_Refresh, _Resume, _LoadLeague)


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


ClientFactory = Callable[[str, "str | None"], DekabesClient]


class LobbyService(Worker[_LobbyCommand, LobbyUpdate]):
    def __init__(self, client_factory: ClientFactory | None = None):
        super().__init__(name="lobby")
        self._factory: ClientFactory = client_factory or (
            lambda url, token: DekabesClient(
                url, token, timeout=8.0, retries=1, user_agent="dekabes-table-lobby"
            )
        )
        self._session: _Session | None = None
        self._pending: _LobbyCommand | None = None  # the command to retry once back online
        self._league_thread: threading.Thread | None = None
        self._league_generation = 0

    # ------------------------------------------------------------------ UI side
    def start(self) -> LobbyService:
        self._begin()
        return self

    def sign_in(
        self, server: str, username: str, password: str, register: bool = False, invite: str = ""
    ) -> None:
        self._send(_SignIn(server, username, password, register, invite))

    def resume(self, server: str, username: str, token: str) -> None:
        """Use a remembered token (checked with ``GET /api/me``)."""
        self._send(_Resume(server, username, token))

    def sign_out(self) -> None:
        self._send(_SignOut())

    def refresh(self) -> None:
        self._send(_Refresh())

    def create(self, seats: dict[int, str], bots: dict[int, str]) -> None:
        self._send(_Create(seats, bots))

    def join(self, code: str) -> None:
        self._send(_Join(code.strip().upper()))

    def make_bot(self, level: str) -> None:
        self._send(_MakeBot(level))

    def join_club(self, slug: str | None, code: str) -> None:
        self._send(_JoinClub(slug, code.strip().upper()))

    def load_league(self) -> None:
        """The league page's data: standings, ratings, my matches, my statistics."""
        self._send(_LoadLeague())

    def close(self) -> None:
        self._league_generation += 1
        self._end()

    # ------------------------------------------------------------------ worker side
    def _signed_in(self) -> _Session:
        if self._session is None or not self._session.token:
            raise ApiError("not_authenticated", "not signed in")
        return self._session

    def _client(self) -> DekabesClient:
        session = self._signed_in()
        return self._factory(session.server, session.token)

    def _run(self) -> None:
        while not self._stop.is_set():
            command = self._next_command(timeout=RETRY if self._pending else None)
            if self._stop.is_set():
                return
            if command is None:
                command = self._pending  # offline: try again
            if command is None:
                continue
            try:
                self._do(command)
                self._pending = None
                self._set_status("online")
            except ConnectionLost:
                self._set_status("offline")
                # sign-in and sign-out are the player's to repeat; reads are retried
                retried = isinstance(command, _RETRIED)
                if not retried or (isinstance(command, _Resume) and self._pending is None):
                    # said once; a remembered sign-in keeps being retried meanwhile
                    self._emit(Failed("connection_lost", command.name))
                self._pending = command if retried else None
            except ApiError as problem:
                self._pending = None
                self._set_status("online")
                self._emit(Failed(problem.code, command.name))
            except Exception:  # never a traceback in the lobby
                self._pending = None
                self._emit(Failed("client_error", command.name))

    def _do(self, command: _LobbyCommand) -> None:
        match command:
            case _SignIn(server, username, password, register, invite):
                self._session = _Session(server)
                with self._factory(server, None) as client:
                    if register:
                        account = client.register(username, password, invite=invite or None)
                    else:
                        account = client.login(username, password)
                self._session.token, self._session.username = account.token, account.username
                self._emit(SignedIn(server, account.username, account.token or ""))
                self._refresh()
            case _Resume(server, username, token):
                self._session = _Session(server, token, username)
                with self._client() as client:
                    me = client.me()
                self._session.username = me.username
                self._emit(SignedIn(server, me.username, token))
                self._refresh()
            case _SignOut():
                self._league_generation += 1
                session, self._session = self._session, None
                revoked = True
                if session is not None and session.token:
                    with self._factory(session.server, session.token) as client:
                        revoked = client.logout()
                self._emit(SignedOut(revoked))
            case _Refresh():
                self._refresh()
            case _Create(seats, bots):
                self._create(seats, bots)
            case _Join(code):
                self._join(code)
            case _MakeBot(level):
                self._make_bot(level)
            case _JoinClub(slug, code):
                self._join_club(slug, code)
            case _LoadLeague():
                self._load_league()

    def _create(self, seats: dict[int, str], bots: dict[int, str]) -> None:
        humans = [n for n, k in seats.items() if k == "human"]
        with self._client() as client:
            table = client.create_table(seats, join=humans[:1], bots=bots)
        self._emit(Created(table.code))
        self._emit(Opened(table.code, [min(humans)]))

    def _make_bot(self, level: str) -> None:
        me = self._signed_in().username
        with self._client() as client:
            try:
                account = client.register_bot(bot_name(me, level))
            except ApiError as problem:
                if problem.code != "username_taken":
                    raise
                account = client.register_bot(bot_name(f"{me[:30]}-{uuid.uuid4().hex[:4]}", level))
        self._emit(BotMade(level, account.username, account.token or ""))

    def _join(self, code: str) -> None:
        me = self._signed_in().username
        with self._client() as client:
            table = client.table(code)
            held = table.seats_held_by(me)
            if held:
                self._emit(Opened(table.code, held))
                return
            free = [
                n
                for n, info in sorted(table.seats.items())
                if info.kind == "human" and info.player is None
            ]
            if not free:
                raise ApiError("no_free_seat", "no free human seat")
            client.join(table.code, free[0])
            self._emit(Opened(table.code, [free[0]]))

    def _refresh(self) -> None:
        if self._session is None or not self._session.token:
            return
        me = self._session.username
        with self._client() as client:
            tables = client.tables()
            unfinished: list[TableEntry] = []
            finished: list[TableEntry] = []
            replay_checked = False
            replay_offered = False
            for table in tables:
                held = tuple(table.seats_held_by(me))
                if table.phase != "match_over":
                    mine = bool(held) and len(unfinished) < TURN_CHECKS
                    waiting = client.seat_view(table.code, held[0]).seats_to_act if mine else []
                    turn = any(seat in held for seat in waiting)
                    unfinished.append(TableEntry(table, held, my_turn=turn))
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
        self._emit(Tables(unfinished, finished))
        self._refresh_open_seats()
        self._refresh_league()

    def _refresh_open_seats(self) -> None:
        """The tables seeking players I may take a seat of (none from a server without
        open seats)."""
        with self._client() as client:
            try:
                found = client.open_seats(fits=True)
            except ApiError as problem:
                if problem.status in (404, 405):
                    self._emit(OpenSeats(()))
                    return
                raise
        self._emit(OpenSeats(tuple(found.get("seeks") or ())))

    # ------------------------------------------------------------------ league
    def _join_club(self, slug: str | None, code: str) -> None:
        """Join with an invite code; a bare code is tried on the clubs I may see and am
        not in (a members-only club is seen only through its link)."""
        with self._client() as client:
            if slug is None:
                candidates = [c for c in client.clubs() if not c.get("your_role")]
                for club in candidates[:20]:
                    try:
                        client.join_club(str(club["slug"]), code)
                    except ApiError as problem:
                        if problem.code == "invite_invalid":
                            continue
                        raise
                    slug = str(club["slug"])
                    break
                else:
                    raise ApiError("invite_invalid", "no club I may see knows this code")
            else:
                client.join_club(slug, code)
            name = next(
                (c.get("name") for c in client.clubs(mine=True) if c.get("slug") == slug), slug
            )
        self._emit(ClubJoined(slug, str(name or slug)))
        self._refresh_league()

    def _load_league(self) -> None:
        me = self._signed_in().username
        details = []
        with self._client() as client:
            for club in client.clubs(mine=True):
                slug = str(club.get("slug") or "")
                seasons = client.seasons(slug)
                newest = max(seasons, key=lambda s: s.get("id") or 0) if seasons else None
                standings = (
                    client.standings(slug, int(newest["id"]), limit=CLUB_ROWS) if newest else []
                )
                details.append(
                    ClubDetails(
                        slug,
                        str(club.get("name") or slug),
                        str(newest.get("name")) if newest else None,
                        tuple(standings),
                        tuple(client.ratings(slug, limit=CLUB_ROWS)),
                        tuple(client.matches(limit=LIVE_ROWS, club=slug, status="playing")),
                    )
                )
            stats = self._server_stats(client, me)
            limit = MY_MATCHES if stats is None else RECENT_MATCHES
            finished = client.matches(limit=limit, player=me, status="finished")
        league = tuple(m for m in finished if m.get("club"))
        self._emit(LeagueDetails(tuple(details), league, stats or count(finished, me)))

    @staticmethod
    def _server_stats(client: DekabesClient, me: str) -> Stats | None:
        """My statistics from the server; ``None`` from a server without the endpoint
        (then they are counted from the match list)."""
        try:
            return from_api(client.player_stats(me))
        except ApiError as problem:
            if problem.status in (404, 405):
                return None
            raise

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
                    self._emit(League(LeagueInfo(False)))
                    return
                raise
        session.league_supported = True
        self._emit_league(clubs, data)
        self._start_league_poll()

    def _emit_league(self, clubs, data: dict) -> None:
        names = tuple(str(c.get("name") or c.get("slug") or "") for c in clubs)
        slugs = tuple(str(c.get("slug") or "") for c in clubs)
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
        self._emit(League(LeagueInfo(True, names, tables, version, slugs)))

    def _start_league_poll(self) -> None:
        if self._league_thread is not None and self._league_thread.is_alive():
            return
        generation = self._league_generation
        session = self._signed_in()

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
