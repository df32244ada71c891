"""Shared fixtures: a real Daphne server in another process (``live_server_url``).

The server gets its own SQLite file and port; nothing is shared with the test process
but HTTP, so what passes here passes against a server on another machine.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from server.run import daphne_command
from tests import conformance

ROOT = Path(__file__).resolve().parents[1]


SCHEMA_CHECKER = conformance.Checker(conformance.served_schema)

# The files that hold a test process longest, longest first (each file's setup, call and
# teardown summed over --durations; the SQLite run's figures at load 5-10, the backend
# run's where it has the file: "pg"). `make test` runs files whole (--dist loadfile) in
# the order collected here (--no-loadscope-reorder), handed out by tests/scheduling.py:
# these start first, each on the first process free, so the processes end together
# instead of one playing a browser match alone at the end. pytest-xdist's own order (most
# tests first) put them last, being files of few tests. A new long file belongs here.
LONG_FILES = (
    "tests/ladder/test_ladder_workers.py",  # pg only: 77 s
    "tests/web/test_play_browser.py",  # 103 s
    "tests/web/test_play_browser_more.py",  # 99 s
    "tests/server/test_ops_upgrade.py",  # 91 s (32 s alone); pg 21 s
    "tests/league/test_league_api.py",  # 83 s; pg 74 s
    "tests/league/test_season_live.py",  # 62 s
    "tests/server/test_hardening_fuzz.py",  # 23 s (56 s before its 1 s long-polls)
    "tests/server/test_hardening_serve.py",  # 50 s
    "tests/ladder/test_ladder_rounds.py",  # 45 s; pg 12 s
    "tests/web/test_browser.py",  # 42 s
    "tests/league/test_backups.py",  # 22 s; pg 39 s
    "tests/web/test_replay_browser.py",  # 37 s
    "tests/web/test_league_browser.py",  # 32 s
    "tests/web/test_organizer_browser.py",  # 30 s
    "tests/league/test_seed_demo_league.py",  # 25 s
    "tests/engine/test_bots.py",  # 25 s
    "tests/table/test_local_play.py",  # 23 s
    "tests/league/test_duplicate_privacy.py",  # 22 s; pg 17 s
    "tests/table/test_presence.py",  # 8-28 s (a 6 s lease now, was 20 s)
    "tests/web/test_live_browser.py",  # 21 s
    "tests/server/test_bad_input.py",  # 20 s; pg 6 s
    "tests/league/test_account_closure.py",  # 11 s; pg 19-34 s
    "tests/mail/test_mail_live.py",  # 19 s
    "tests/league/test_substitutes_workers.py",  # pg only: 15 s
    "tests/clients/test_bot_runner_live.py",  # 29-38 s
    "tests/web/test_table_doors_browser.py",  # 13-38 s
    "tests/table/test_lobby_live.py",  # 22-32 s
    "tests/web/test_organizer_evening_browser.py",  # 16-26 s
    "tests/league/test_league_fuzz.py",  # 7 s
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile with the long files' own hand-out (tests/scheduling.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.scheduling import LongFilesFirst

    scheduler = LongFilesFirst(config, log)
    scheduler.long_files = frozenset(LONG_FILES)
    return scheduler


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the session's last test, before its fixtures' teardown drops the test
    database: on PostgreSQL, the other sessions open on it end. Threads of this process
    other than the test's (the socket actions' thread, the loops' executor threads that
    ran a socket's last calls) keep their connections between calls, as request threads
    do, and a database cannot be dropped while a session is open on it ("being accessed
    by other users": the test database stayed behind). Each test process has a test
    database of its own, so only its own threads' sessions end."""
    if nextitem is not None or "django.db" not in sys.modules:
        return
    from django.db import connection
    from pytest_django.plugin import blocking_manager_key

    if connection.vendor != "postgresql" or not connection.settings_dict["NAME"].startswith(
        "test_"
    ):
        return  # not on PostgreSQL, or no test database was made: nothing to drop
    with item.config.stash[blocking_manager_key].unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long files first, in LONG_FILES's order; then the others by their number of
    tests, most first (what pytest-xdist's reordering did). A file's tests stay together
    and in their own order."""
    rank = {path: n for n, path in enumerate(LONG_FILES)}
    sizes: dict[str, int] = {}
    first: dict[str, int] = {}
    for n, item in enumerate(items):
        path = item.nodeid.split("::", 1)[0]
        sizes[path] = sizes.get(path, 0) + 1
        first.setdefault(path, n)

    def place(item: pytest.Item) -> tuple[int, int, int]:
        path = item.nodeid.split("::", 1)[0]
        if path in rank:
            return (rank[path], 0, 0)
        return (len(rank), -sizes[path], first[path])

    items.sort(key=place)


@pytest.fixture(scope="session", autouse=True)
def schema_checker():
    """Every API answer of the session is checked against the served schema."""
    uninstall = conformance.install(SCHEMA_CHECKER)
    yield SCHEMA_CHECKER
    uninstall()
    report = os.environ.get("DEKABES_SCHEMA_REPORT")  # a file: every violation, one a line
    if report:
        with open(report, "a", encoding="utf-8") as out:
            out.writelines(f"{v}\n" for v in SCHEMA_CHECKER.violations)


@pytest.fixture(autouse=True)
def answers_conform_to_the_schema(request, schema_checker):
    stand_in = request.node.get_closest_marker("stand_in_server") is not None
    schema_checker.enabled = not stand_in
    yield
    schema_checker.enabled = True
    found = schema_checker.take_new()
    if found:
        pytest.fail(
            "answers outside the served schema (/api/schema/):\n"
            + "\n".join(str(v) for v in found[:20]),
            pytrace=False,
        )


# The deals of the tables a test makes in this process: see ``deals_of_this_test``.
DEALS = os.environ.get("DEKABES_TEST_DEALS", "")


def pytest_terminal_summary(terminalreporter) -> None:
    if DEALS:  # a failure of such a run is replayed with the same text
        terminalreporter.write_line(f"deals: DEKABES_TEST_DEALS={DEALS!r}")


@pytest.fixture(autouse=True)
def deals_of_this_test(request, monkeypatch):
    """The secrets behind the deals of the tables a test makes in this process (a new
    table's seed, a duplicate round's or a ladder pair's shared one) are drawn from the
    test's node id, not from the system's generator: the same deals in every run, on
    every machine, in whichever test process. A test that a rare deal breaks then fails
    every time, and its failure can be replayed; before, one did so once in many runs
    (the CI of 105ae0a: a watched match ended within its 60 random steps). Set
    ``DEKABES_TEST_DEALS`` to any text to play other deals (the run's summary repeats it).
    The live servers tests start are other processes and deal as the product does."""
    from server.tables import seeds

    drawn = itertools.count()
    test = request.node.nodeid

    def new_seed() -> str:
        return hashlib.sha256(f"{DEALS}:{test}:{next(drawn)}".encode()).hexdigest()

    monkeypatch.setattr(seeds, "new_seed", new_seed)


@pytest.fixture(autouse=True)
def no_look_for_closed_accounts_in_process(monkeypatch):
    """Within a test, the test process keeps its folds, seats and answers: its look for
    accounts closed by another process (at most every minute, at whichever fold it falls
    due, ``projection._look_for_closed_accounts``) drops all of them whenever other tests
    of the process closed accounts, and so broke tests that count builds or statements
    at random. The live servers the tests start look as the product does."""
    from server.tables import projection

    monkeypatch.setattr(projection, "_closed", [0, float("inf")])


@pytest.fixture(autouse=True)
def a_redis_channel_layer_per_test():
    """Each test gets a channel layer of its own on Redis (the backend run): see
    ``drop_redis_channel_layers``."""
    yield
    drop_redis_channel_layers()


def drop_redis_channel_layers() -> None:
    """Forget the process's Redis channel layers: the next use builds a new one.

    A channels_redis layer is made for one event loop (a server process has one), and a
    test process runs a loop per test. Its per-channel receive lock outlives a receive
    cancelled while waiting for it (the lock's waiter count is never taken back), stays
    bound to the loop that test ran on, and the next test whose receives contend for it
    fails with "Lock ... is bound to a different event loop" (CI of 7b1c44c: 5 socket
    tests of one process; tests/server/test_channel_layer_per_test.py)."""
    from channels.layers import InMemoryChannelLayer, channel_layers

    for alias, layer in list(channel_layers.backends.items()):
        if not isinstance(layer, InMemoryChannelLayer):
            del channel_layers.backends[alias]


def wait_for(condition: Callable[[], object], seconds: float, what: str, every: float = 0.2):
    """``condition()``'s first true value, asked every ``every`` seconds; fails the test
    naming ``what`` when none came within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"not within {seconds} s: {what}")


# ``python -c IGNORING_SIGINT -m module ...``: the module started as a non-interactive
# shell starts a background job (`cmd &`, `nohup ... &`): with SIGINT ignored, then exec.
IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def migrate(env: dict) -> None:
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=120
    )


@functools.cache
def migrated_sqlite() -> Path:
    """A freshly migrated SQLite file, made once per test process and copied for each
    live server: ``manage.py migrate`` on an empty file costs 2 s of CPU and 4-9 s of
    wall time on a busy machine, and the suite starts a few dozen servers."""
    template = LiveServer(Path(tempfile.mkdtemp(prefix="dekabes-migrated-")))
    migrate(template.env)
    return Path(template.env["DEKABES_SQLITE_PATH"])


# The SQLite files this test process made as copies of ``migrated_sqlite()``: a second
# server on one of them (two processes on one file) finds it migrated by the same code,
# and a ``manage.py migrate`` of its own would only start Django to find nothing to do.
_COPIED_FROM_TEMPLATE: set[Path] = set()


class LiveServer:
    """``manage.py migrate`` then ``daphne server.asgi:application`` on a free port (a
    new SQLite file starts as a copy of one migrated for the test process)."""

    def __init__(
        self,
        workdir: Path,
        env: dict | None = None,
        port: int | None = None,
        application: str | None = None,
    ):
        self.workdir = workdir
        self.application = application  # another ASGI module (a test's): "module:name"
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ)
        for name in ("DATABASE_URL", "REDIS_URL"):
            self.env.pop(name, None)
        self.env.update(
            {
                "DEKABES_VAR_DIR": str(workdir),
                "PYTHONUNBUFFERED": "1",
                "DJANGO_SETTINGS_MODULE": "tests.settings",
                "DEKABES_SQLITE_PATH": str(workdir / "live.sqlite3"),
                # The suite registers and logs in many accounts from 127.0.0.1;
                # the throttles' own tests start servers with the real rates.
                "DEKABES_RATE_REGISTER_ADDRESS": "100000/hour",
                "DEKABES_RATE_LOGIN_ADDRESS": "100000/hour",
            }
        )
        self.env.update(env or {})
        self.process: subprocess.Popen | None = None
        self.log = workdir / "daphne.log"
        self.migrated = False

    def start(self) -> LiveServer:
        self.prepare()
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                daphne_command(port=self.port)
                if self.application is None
                else daphne_command(port=self.port, application=self.application),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=log,
            )
        try:
            self._wait_until_up(deadline=time.monotonic() + 60)
        except BaseException:
            self.stop()  # a failed start leaves no orphaned Daphne behind
            raise
        return self

    def prepare(self) -> None:
        """The database, migrated (once: a restart runs the same code)."""
        database = Path(self.env["DEKABES_SQLITE_PATH"])
        if self.migrated:  # a restart, same code
            return
        self.migrated = True
        if "DATABASE_URL" not in self.env:
            if not database.exists():
                shutil.copyfile(migrated_sqlite(), database)
                _COPIED_FROM_TEMPLATE.add(database)
                return
            if database in _COPIED_FROM_TEMPLATE:  # another server's copy: migrated
                return
        migrate(self.env)

    def _wait_until_up(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited: {self.log.read_text()[-2000:]}")
            try:
                requests.get(self.url + "/api/me", timeout=5)
                return
            except requests.RequestException:  # refused, or slow to answer under load
                time.sleep(0.1)
        raise RuntimeError("daphne did not start in 60 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(3)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def restart(self, pause: float = 0.5) -> None:
        """Stop the process and start it again on the same port and database."""
        self.stop()
        time.sleep(pause)
        self.start()


@pytest.fixture(scope="session")
def live_server_process():
    with tempfile.TemporaryDirectory(prefix="dekabes-live-") as tmp:
        server = LiveServer(Path(tmp)).start()
        yield server
        server.stop()


@pytest.fixture(scope="session")
def live_server_url(live_server_process) -> str:
    return live_server_process.url


@pytest.fixture
def restartable_server(tmp_path):
    """A server of the test's own, which the test may restart mid-match."""
    server = LiveServer(tmp_path).start()
    yield server
    server.stop()
