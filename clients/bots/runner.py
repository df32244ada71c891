"""The bot runner: one process playing every seat its account holds, on many tables.

Each table gets a worker thread with its own ``DekabesClient``. A worker only ever
knows what the API tells one seat: it fetches the seat's view, gives that view to the
bot (``clients.bots.policy.choose_event`` → ``engine.bots.decide``) and sends the
chosen event with the view's version as ``expected_version``.

By default a worker holds the table's WebSocket (``RunnerOptions.sockets``): it sends its
actions on it (docs/api.md, "Actions over the seat's socket") and waits for the table's
pushes. While the socket is down it acts over REST (the same key: applied once) and waits
by long-polling (``?wait=&after=``), so a paused or idle table costs one request per
``poll_wait`` seconds, never a spin.

Never twice: for each seat the worker remembers its last decision (version,
Idempotency-Key, event). If it has to send again at the same version (the
connection dropped, the server restarted) it resends that very decision with that
very key, which the server applies at most once; a new version gets a new decision.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from dataclasses import dataclass, field

from clients.bots.policy import DEFAULT_LEVEL, choose_event
from clients.sdk import (
    ApiError,
    ConnectionLost,
    DekabesClient,
    IdempotencyKeyReused,
    NotAuthenticated,
    NotFound,
    NotYourSeat,
    Paused,
    PermissionDenied,
    PushSubscription,
    RuleRejected,
    SeatState,
    StaleVersion,
    Table,
    new_action_key,
)
from engine import table_commands
from engine.phases import MATCH_OVER

log = logging.getLogger("dekabes.bots")

DEFAULT_DELAY = 0.7  # seconds before each computer action, so people can follow
# ...but not before its answer to a deal: there is nothing on the board to follow, and
# the paced answers of three computer seats kept a person's new table (or next hand)
# waiting 2-3 s. A claim goes at once too, so that a computer seat's answer takes the
# same time whatever its hand.
UNPACED = frozenset({"accept", "claim_redeal"})
DEFAULT_POLL_WAIT = 25.0  # long-poll length; the server caps it at 30
MAX_OUTAGE_BACKOFF = 5.0
EARLY_ANSWER = 0.25  # a long-poll answered faster than this brought no news...
EARLY_ANSWER_PAUSE = 1.0  # ...so wait this long before asking again


@dataclass
class RunnerOptions:
    level: str = DEFAULT_LEVEL
    delay: float = DEFAULT_DELAY
    tables: tuple[str, ...] = ()  # empty: serve every table that seats the account
    seats: frozenset[int] | None = None  # None: every seat the account holds
    exit_when_over: bool = False
    poll_wait: float = DEFAULT_POLL_WAIT
    discover_every: float = 3.0
    # Discovery mode: how long a worker stays at a finished match. 0 (the default): it
    # leaves at once, and discovery brings a worker back within ``discover_every`` when
    # the table's phase changes again (its owner starts a new match, or undoes the end).
    linger: float = 0.0
    seed: int | None = None
    sockets: bool = True  # act and wait over the table's WebSocket while it is up


@dataclass
class RunnerStats:
    actions: int = 0  # actions the server accepted
    resends: int = 0  # the same decision sent again with the same key
    stale: int = 0  # stale_version answers (someone moved first: refetch)
    paused: int = 0  # paused answers
    rejected: int = 0  # rule rejections (should stay 0)
    outages: int = 0  # times the server could not be reached
    discovery_errors: int = 0  # table lists the server answered with an error (carried on)
    refused_rated: int = 0  # rated tables left alone: a person's token (docs/bots.md)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + amount)

    def as_dict(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


@dataclass(frozen=True)
class Decision:
    version: int
    key: str
    event: dict


def seats_to_act(state: SeatState, mine: list[int]) -> list[int]:
    """Which of ``mine`` must act now, read off one seat's view (it is the same for all;
    the engine says who the match waits for)."""
    waited_for = table_commands.seats_to_act(state.view)
    return [seat for seat in mine if seat in waited_for]


class TableWorker:
    """Plays the account's seats at one table until told to stop (or the match ends)."""

    def __init__(
        self,
        client: DekabesClient,
        code: str,
        username: str,
        options: RunnerOptions,
        stats: RunnerStats,
        stop: threading.Event,
        follow_forever: bool,
    ):
        self.client = client
        self.code = code
        self.username = username
        self.options = options
        self.stats = stats
        self.stop = stop
        self.follow_forever = follow_forever
        seed = options.seed if options.seed is not None else int.from_bytes(os.urandom(8), "big")
        self.rng = random.Random(f"{seed}:{code}")
        self.decisions: dict[int, Decision] = {}
        self.rejected_at: dict[int, int] = {}
        self.newest = 0
        self.known_seats: list[int] = []
        self.over_since: float | None = None
        self.socket: PushSubscription | None = None
        self.thread = threading.Thread(target=self.run, name=f"bots-{code}", daemon=True)

    # ------------------------------------------------------------------ lifecycle
    def run(self) -> None:
        if self.options.sockets:
            # follows every seat of the account here; reconnects by itself
            self.socket = self.client.subscribe(self.code)
        try:
            self._run()
        finally:
            if self.socket is not None:
                self.socket.close()

    def _run(self) -> None:
        backoff = 0.25
        while not self.stop.is_set():
            try:
                if self._serve():
                    return
                backoff = 0.25
            except ConnectionLost:
                self.stats.add("outages")
                log.warning("%s: server unreachable; trying again in %.1fs", self.code, backoff)
                self.stop.wait(backoff)
                backoff = min(backoff * 2, MAX_OUTAGE_BACKOFF)
            except (NotAuthenticated, NotFound, PermissionDenied) as problem:
                log.error("%s: giving up on this table (%s)", self.code, problem.code)
                return
            except NotYourSeat:  # a seat changed hands under us: look at the table again
                self.stop.wait(self.options.discover_every)
            except ApiError as problem:  # e.g. a 500 while the server is unwell
                log.warning(
                    "%s: server error %s (%s); carrying on", self.code, problem.code, problem.status
                )
                self.stop.wait(1.0)
            except Exception:  # a bug must not silently stop every seat of the table
                log.exception("%s: unexpected error; carrying on", self.code)
                self.stop.wait(2.0)

    # ------------------------------------------------------------------ the loop
    def _serve(self) -> bool:
        """Play until the match is over (True) or the runner stops (False)."""
        state = self._first_state()
        while not self.stop.is_set():
            if state is None:  # not seated here (yet): look again later
                self.stop.wait(self.options.discover_every)
                state = self._first_state()
                continue
            mine = self._my_seats(state.table)
            if not mine:
                state = None
                continue
            if _annulled(state.table):
                return True  # an organizer stopped this league match for good
            if state.match_over:
                if self._done_with_finished_match():
                    return True
            else:
                self.over_since = None
            if not state.paused:
                moved = self._act_for_any(state, mine)
                if moved is not None:
                    state = moved
                    continue
            state = self._wait_for_change(state, mine)
        return False

    def _act_for_any(self, state: SeatState, mine: list[int]) -> SeatState | None:
        """Act for the first of our seats that must act; the newer state if anything moved."""
        for seat in seats_to_act(state, mine):
            seat_state = state if seat == state.seat else self.client.seat_view(self.code, seat)
            self._saw(seat_state)
            if seat_state.version > state.version:
                return seat_state  # the table moved meanwhile: look again
            if seat_state.paused:
                return None
            moved = self._act(seat_state)
            if moved is not None:
                return moved
        return None

    def _act(self, state: SeatState) -> SeatState | None:
        seat, version = state.seat, state.version
        if self.rejected_at.get(seat) == version:
            return None
        memory = self.decisions.get(seat)
        if memory is not None and memory.version == version:
            decision = memory  # resend the very same decision, same key
            self.stats.add("resends")
        else:
            started = time.monotonic()
            event = choose_event(state.view, self.options.level, self.rng)
            if event is None:
                return None
            decision = Decision(version, new_action_key(), event)
            self.decisions[seat] = decision
            pacing = 0.0 if event["type"] in UNPACED else self.options.delay
            pacing -= time.monotonic() - started
            if pacing > 0 and self.stop.wait(pacing):
                return None
        try:
            result = self.client.send_event(
                self.code,
                decision.event,
                expected_version=version,
                key=decision.key,
                socket=self.socket,
            )
        except StaleVersion:
            self.stats.add("stale")
            return self._refetch(seat)
        except Paused:
            self.stats.add("paused")
            return self._refetch(seat)
        except IdempotencyKeyReused:
            self.decisions.pop(seat, None)
            return self._refetch(seat)
        except RuleRejected as refusal:
            # The server disagrees with our view of the rules: do not insist at this version.
            self.stats.add("rejected")
            self.rejected_at[seat] = version
            log.error(
                "%s seat %s v%s: %s refused (%s)",
                self.code,
                seat,
                version,
                decision.event.get("type"),
                refusal.code,
            )
            return None
        except NotYourSeat:
            return None
        self.stats.add("actions")
        self._saw(result)
        log.info("%s seat %s v%s: %s", self.code, seat, version, _describe(decision.event))
        return result

    def _wait_for_change(self, state: SeatState, mine: list[int]) -> SeatState:
        lead = state.seat if state.seat in mine else mine[0]
        after = max(self.newest, state.version)
        asked = time.monotonic()
        wait = self.options.poll_wait
        if self.over_since is not None:  # lingering: never wait past the linger's end
            wait = max(0.5, min(wait, self.over_since + self.options.linger - asked))
        if self.socket is not None and self.socket.connected.is_set():
            pushed = self._wait_for_push(lead, mine, after, asked + wait)
            if pushed is not None:
                self._saw(pushed)
                return pushed
            if self.stop.is_set():
                return state
        fresh = self.client.seat_view(self.code, lead, wait=wait, after=after)
        if fresh.version <= after and time.monotonic() - asked < EARLY_ANSWER:
            # The server answered a long-poll at once without news (a proxy that cuts
            # long requests, a server that ignores ``wait``): pace ourselves, never spin.
            self.stop.wait(EARLY_ANSWER_PAUSE)
        self._saw(fresh)
        return fresh

    def _wait_for_push(
        self, lead: int, mine: list[int], after: int, until: float
    ) -> SeatState | None:
        """The first pushed view of one of ``mine`` past ``after`` (or the lead seat's
        view fetched again after a reconnect, or once ``until`` has passed); None when
        the socket goes down (then the worker long-polls)."""
        socket = self.socket
        assert socket is not None
        while not self.stop.is_set():
            left = until - time.monotonic()
            if left <= 0:
                return self.client.seat_view(self.code, lead)
            push = socket.get(timeout=min(left, 1.0))
            if push is None:
                if not socket.connected.is_set():
                    return None
                continue
            if push.kind == "disconnected":
                return None
            if push.kind == "resync":  # pushes may have been missed: look again
                return self.client.seat_view(self.code, lead)
            if push.state is not None and push.seat in mine and (push.version or 0) > after:
                return push.state
        return None

    # ------------------------------------------------------------------ helpers
    def _first_state(self) -> SeatState | None:
        table = self.client.table(self.code)
        mine = self._my_seats(table)
        if not mine:
            return None
        state = self.client.seat_view(self.code, mine[0])
        self._saw(state)
        return state

    def _refetch(self, seat: int) -> SeatState:
        state = self.client.seat_view(self.code, seat)
        self._saw(state)
        return state

    def _saw(self, state: SeatState) -> None:
        self.newest = max(self.newest, state.version)

    def _my_seats(self, table: Table | None) -> list[int]:
        if table is None or not table.seats:
            return self.known_seats  # a response without the table: nothing changed
        held = table.seats_held_by(self.username)
        wanted = self.options.seats
        self.known_seats = [s for s in held if wanted is None or s in wanted]
        return self.known_seats

    def _done_with_finished_match(self) -> bool:
        if self.options.exit_when_over:
            return True
        if self.follow_forever:
            return False
        now = time.monotonic()
        if self.over_since is None:
            self.over_since = now
        return now - self.over_since >= self.options.linger


def _annulled(table: Table | None) -> bool:
    return bool(table is not None and table.raw.get("annulled"))


def _describe(event: dict) -> str:
    # Only what becomes public by being played: the type, the tile once laid, the opener.
    parts = [event.get("type", "?")]
    for name in ("tile", "end", "opener"):
        if event.get(name) is not None:
            parts.append(f"{name}={event[name]}")
    return " ".join(parts)


class Runner:
    """Serves the given tables, or discovers every table that seats the account."""

    def __init__(self, client: DekabesClient, options: RunnerOptions | None = None):
        self.client = client
        self.options = options or RunnerOptions()
        self.stats = RunnerStats()
        self.stop_event = threading.Event()
        self.workers: dict[str, TableWorker] = {}
        self._all_workers: list[TableWorker] = []  # also the finished ones, for stats
        self.username: str | None = None
        self.is_bot = True  # what /api/me says of the account (read by run)
        self._refused: set[str] = set()
        self._thread: threading.Thread | None = None

    def start(self) -> Runner:
        """Run in a background thread (for embedding and tests)."""
        self._thread = threading.Thread(target=self.run, name="bots-runner", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the runner to finish; True when it has."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def run(self) -> RunnerStats:
        self.username = self._whoami()
        if self.username is None:
            return self.stats
        log.info(
            "playing as %s at level %s (delay %.2fs)",
            self.username,
            self.options.level,
            self.options.delay,
        )
        served_any = False
        for code in self.options.tables:
            if not self.is_bot and not self._may_play(self._table_or_none(code)):
                continue
            self._start_worker(code, follow_forever=True)
            served_any = True
        next_discovery = 0.0
        while not self.stop_event.is_set():
            if not self.options.tables and time.monotonic() >= next_discovery:
                served_any |= self._discover()
                next_discovery = time.monotonic() + self.options.discover_every
            self._forget_finished_workers()
            if self.options.tables and not self.workers:
                break  # every named table is done
            if self.options.exit_when_over and served_any and not self.workers:
                break
            self.stop_event.wait(
                0.2 if self.options.tables else min(1.0, self.options.discover_every)
            )
        log.info(
            "runner done: %s, %d HTTP requests, %d actions over sockets",
            self.stats.as_dict(),
            self.request_count(),
            self.socket_action_count(),
        )
        return self.stats

    def request_count(self) -> int:
        return self.client.request_count + sum(w.client.request_count for w in self._all_workers)

    def socket_action_count(self) -> int:
        """Actions answered over a table's socket (the others went over REST)."""
        return sum(w.client.socket_actions for w in self._all_workers)

    # ------------------------------------------------------------------ internals
    def _whoami(self) -> str | None:
        backoff = 0.25
        while not self.stop_event.is_set():
            try:
                me = self.client.me()
                self.is_bot = me.is_bot
                return me.username
            except ConnectionLost:
                self.stats.add("outages")
                if backoff == 0.25:
                    log.warning("server %s unreachable; waiting for it", self.client.base_url)
                self.stop_event.wait(backoff)
                backoff = min(backoff * 2, MAX_OUTAGE_BACKOFF)
        return None

    def _discover(self) -> bool:
        try:
            tables = self.client.tables(mine=True)
        except ConnectionLost:
            self.stats.add("outages")
            return False
        except (NotAuthenticated, PermissionDenied):
            raise  # the token is revoked: no later list will be answered (run's caller says so)
        except ApiError as problem:  # e.g. a 500 while the server is unwell
            self.stats.add("discovery_errors")
            log.warning(
                "tables not listed: server error %s (%s); carrying on", problem.code, problem.status
            )
            return False
        except Exception:  # a bug must not end the discovery of every later table
            self.stats.add("discovery_errors")
            log.exception("tables not listed: unexpected error; carrying on")
            return False
        started = False
        for table in tables:
            if table.code in self.workers or table.phase == MATCH_OVER or _annulled(table):
                continue
            if not self._may_play(table):
                continue
            held = table.seats_held_by(self.username or "")
            if self.options.seats is not None:
                held = [s for s in held if s in self.options.seats]
            if held:
                self._start_worker(table.code, follow_forever=False)
                started = True
        return started

    def _table_or_none(self, code: str) -> Table | None:
        try:
            return self.client.table(code)
        except ConnectionLost:
            return None

    def _may_play(self, table: Table | None) -> bool:
        """Fair play (docs/bots.md): a program never plays a rated table under a person's
        account, where its moves would count as that person's and show them as human.
        A bot account plays rated tables (flagged as a bot); a person's account, casual
        ones only (e.g. to finish a friendly match while away)."""
        if self.is_bot or table is None or not table.rated:
            return True
        if table.code not in self._refused:
            self._refused.add(table.code)
            self.stats.add("refused_rated")
            log.warning(
                "%s: not played: a rated table, and %s is a person's account; "
                "rated tables are played by people or by bot accounts (docs/bots.md)",
                table.code,
                self.username,
            )
        return False

    def _start_worker(self, code: str, follow_forever: bool) -> None:
        worker = TableWorker(
            self.client.clone(),
            code,
            self.username or "",
            self.options,
            self.stats,
            self.stop_event,
            follow_forever,
        )
        self._all_workers.append(worker)
        self.workers[code] = worker
        log.info("%s: serving seats of %s", code, self.username)
        worker.thread.start()

    def _forget_finished_workers(self) -> None:
        for code in [c for c, w in self.workers.items() if not w.thread.is_alive()]:
            del self.workers[code]
