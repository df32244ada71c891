"""In-process API clients on the real database (SQLite file, or PostgreSQL in the backend run)."""

from __future__ import annotations

import itertools
import os
import random
import uuid
from dataclasses import dataclass

import orjson
import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from rest_framework.test import APIClient

from server.accounts.models import User
from server.accounts.services import issue_token
from server.league.match_rows import casual_match
from server.notices import presence
from server.sockets.actions import SeatActions
from server.tables import projection, selectors
from server.tables.models import Event, Table
from tests.conformance import Answer
from tests.conftest import SCHEMA_CHECKER

_names = itertools.count()
PASSWORD = "a long enough password 42"


def token_for(user: User) -> str:
    """A new token for ``user`` on a device of its own (earlier tokens keep working)."""
    return issue_token(user, f"test-{next(_names)}")


def clear_own_cache() -> None:
    """Empty this test process's cache, and only its. On Redis (the backend run)
    ``cache.clear()`` is FLUSHDB: it emptied the whole database the test processes share,
    the channel-layer groups and queued messages of the other process's tests and of the
    live servers they run included. A two-worker server then lost its pushes (the ladder
    test's bots and house players moved only at their poll timeouts: 37 s alone, 408 s in
    the backend run). Its keys are this process's cache prefix's (tests/settings.py)."""
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        backend.clear()  # the process's own memory
        return
    client = backend._cache.get_client(None, write=True)
    keys = list(client.scan_iter(match=backend.make_key("*"), count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    clear_own_cache()  # rate-limit counts live in the cache; each test starts at zero
    yield


@pytest.fixture(autouse=True)
def fresh_projection_cache():
    # rolled-back tests reuse primary keys: no fold and no table row outlives its test
    projection.forget()
    selectors.forget_full_tables()
    presence.forget_all()  # leases are keyed by table id too
    yield
    projection.forget()
    selectors.forget_full_tables()
    presence.forget_all()


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    client.user = user
    return client


def new_member(prefix="ann") -> User:
    return User.objects.create_user(
        username=f"{prefix}{next(_names)}x{random.randrange(10**6)}", password=PASSWORD
    )


def new_bot(owner: User | None = None) -> User:
    bot = User(
        username=f"bot{next(_names)}x{random.randrange(10**6)}", is_bot=True, bot_owner=owner
    )
    bot.set_unusable_password()
    bot.save()
    return bot


class SocketAnswer:
    """A seat socket's answer to an action, read as a REST response is (``status_code``,
    ``json()``, ``content``), with the frame it came in."""

    def __init__(self, frame: bytes):
        self.frame = orjson.loads(frame)
        assert self.frame["type"] == "answer", self.frame
        self.status_code = self.frame["status"]
        self.content = orjson.dumps(self.frame["body"])

    def json(self) -> dict:
        return self.frame["body"]


class Players:
    """A table with its owner at human seats and one bot account at the bot seats.

    ``path``: how ``act`` sends an action: ``"rest"`` (the POST), or ``"socket"`` (as a
    seat socket's ``action`` message, answered by ``server.sockets.actions``: the
    ``action_path`` fixture runs a module's tests over both)."""

    path = "rest"

    def __init__(self, kinds=("human", "bot", "bot", "bot"), rated=False, humans_joined=True):
        self.owner = new_member()
        self.bot = new_bot(self.owner)
        self.owner_api = client_for(self.owner)
        self.bot_api = client_for(self.bot)
        seats = {str(n): kinds[n - 1] for n in (1, 2, 3, 4)}
        join = [n for n in (1, 2, 3, 4) if kinds[n - 1] == "human"] if humans_joined else []
        bots = {str(n): self.bot.username for n in (1, 2, 3, 4) if kinds[n - 1] == "bot"}
        self.seat_apis: dict[int, APIClient] = {}
        if rated:
            # One person, one seat: the owner's first human seat, a house bot of its own at
            # every bot seat (other human seats stay free).
            join = join[:1]
            for n in bots:
                house = new_bot(None)
                bots[n] = house.username
                self.seat_apis[int(n)] = client_for(house)
        response = self.owner_api.post(
            "/api/tables",
            {"seats": seats, "join": join, "bots": bots, "rated": rated},
            format="json",
        )
        assert response.status_code == 201, response.content
        self.code = response.json()["code"]
        self.kinds = kinds
        self.table = Table.objects.get(code=self.code)

    def club_match(self, club):
        """The table made a match of ``club`` with a seat row per seated player, by the
        services' own helper (``match_rows.casual_match``): a rated match without them
        cannot be rated at its end."""
        match = casual_match(self.table)
        match.club = club
        match.save(update_fields=["club"])
        return match

    def api(self, seat: int) -> APIClient:
        if seat in self.seat_apis:
            return self.seat_apis[seat]
        return self.owner_api if self.kinds[seat - 1] == "human" else self.bot_api

    def seat(self, seat: int) -> dict:
        response = self.api(seat).get(f"/api/tables/{self.code}/seats/{seat}")
        assert response.status_code == 200, response.content
        return response.json()

    def act(self, seat: int, body: dict, key: str | None = None, api=None):
        api = api or self.api(seat)
        if self.path == "socket" and getattr(api, "user", None) is not None:
            return self.act_over_socket(seat, body, key, api)
        headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        return api.post(
            f"/api/tables/{self.code}/seats/{seat}/actions", body, format="json", **headers
        )

    def act_over_socket(self, seat: int, body, key: str | None, api) -> SocketAnswer:
        """``body`` sent as the message of a socket opened for ``seat`` with ``api``'s
        token (the seat may have changed hands since), its answer checked against the
        REST action's schema."""
        message = {k: v for k, v in body.items() if k != "type"} if isinstance(body, dict) else {}
        if isinstance(body, dict) and "type" in body:
            message["action"] = body["type"]
        message["type"] = "action"
        if key:
            message["command_id"] = key  # the header wins over the body's, as in REST
        token = api._credentials["HTTP_AUTHORIZATION"].split()[1]
        actions = SeatActions(user=api.user, token_key=token, code=self.code, seats=[seat])
        frame, _ = actions.answer(message)
        answer = SocketAnswer(frame)
        assert answer.frame["command_id"] == message.get("command_id"), answer.frame
        SCHEMA_CHECKER.check(
            Answer(
                "POST",
                f"/api/tables/{self.code}/seats/{seat}/actions",
                answer.status_code,
                {"content-type": ["application/json"]},
                answer.content,
            )
        )
        return answer

    def send(self, event: dict, version: int, key: str | None = None):
        body = {k: v for k, v in event.items() if k != "seat"}
        body["expected_version"] = version
        return self.act(event["seat"], body, key)

    def log(self) -> list[tuple]:
        return list(
            Event.objects.filter(table=self.table)
            .order_by("seq")
            .values_list("seq", "type", "payload", "seat", "actor_kind", "command_id")
        )

    def step(self, rng: random.Random, choose=None) -> dict | None:
        """One legal action by whichever seat may act (random choice); None when over."""
        for seat in (1, 2, 3, 4):
            body = self.seat(seat)
            if body["view"]["phase"] == "match_over":
                return None
            legal = body["view"]["legal"]
            if legal:
                event = (choose or rng.choice)(legal)
                response = self.send(event, body["version"])
                assert response.status_code == 200, response.content
                return response.json()
        raise AssertionError("nobody can act")


@pytest.fixture
def players(db):
    return Players()


@pytest.fixture(params=["rest", "socket"])
def action_path(request, monkeypatch):
    """The module's actions sent over REST, then over a seat socket (conformance)."""
    monkeypatch.setattr(Players, "path", request.param)
    return request.param


def owner_with_bot_table(url: str, **client_options):
    """A new member at the live server ``url`` and a table of theirs: seat 1 theirs,
    seats 2-4 their new bot's. (owner, the bot's grant, the table's code);
    ``client_options`` go to the owner's ``DekabesClient``."""
    from clients.sdk import DekabesClient

    owner = DekabesClient(url, **client_options)
    owner.register(f"ann{uuid.uuid4().hex[:8]}", PASSWORD)
    bot = owner.register_bot(f"bot{uuid.uuid4().hex[:8]}")
    table = owner.create_table(
        {1: "human", 2: "bot", 3: "bot", 4: "bot"},
        join=[1],
        bots={2: bot.username, 3: bot.username, 4: bot.username},
    )
    return owner, bot, table.code


@dataclass
class RedisPair:
    """Two live servers on one SQLite file that hear each other through Redis, and a
    table of ``owner`` at the first: seat 1 theirs, seats 2-4 their bot ``bot``."""

    first: object  # tests.conftest.LiveServer
    second: object
    owner: object  # clients.sdk.DekabesClient, signed in at the first
    bot: object  # the bot's grant (username, token)
    code: str


@pytest.fixture
def redis_pair(tmp_path):
    from tests.conftest import LiveServer

    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL not set: Redis channel layer not tested")
    env = {
        "REDIS_URL": os.environ["REDIS_URL"],
        "DEKABES_CHANNEL_PREFIX": f"t{uuid.uuid4().hex[:8]}",
    }
    started = []
    try:
        started.append(LiveServer(tmp_path, env=env).start())
        started.append(LiveServer(tmp_path, env=env).start())  # same database file
        owner, bot, code = owner_with_bot_table(started[0].url)
        yield RedisPair(started[0], started[1], owner, bot, code)
    finally:
        for server in started:
            server.stop()
