"""The ASGI→WSGI bridge Daphne's HTTP goes through (``server/http_bridge.py``, a2wsgi with
our pools, limits and parked long-polls around it)."""

from __future__ import annotations

import asyncio
import json
import threading

from server.http_bridge import WsgiBridge, is_long_poll
from server.notices import longpoll


def echo_app(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length)
    start_response("201 Created", [("Content-Type", "application/json"), ("X-Two", "2")])
    return [
        json.dumps(
            {
                "method": environ["REQUEST_METHOD"],
                "path": environ["PATH_INFO"],
                "query": environ["QUERY_STRING"],
                "body": body.decode(),
                "auth": environ.get("HTTP_AUTHORIZATION"),
                "thread": threading.current_thread().name,
            }
        ).encode()
    ]


def call(app, path="/api/x", query=b"", body=b"", method="POST", chunks=None):
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "headers": [
            (b"authorization", b"Token abc"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5555),
    }
    parts = chunks or [body]
    sent = []

    async def run():
        queue = [
            {"type": "http.request", "body": p, "more_body": i < len(parts) - 1}
            for i, p in enumerate(parts)
        ]

        async def receive():
            return queue.pop(0)

        async def send(message):
            sent.append(message)

        await app(scope, receive, send)

    asyncio.run(run())
    return sent


def test_a_request_and_its_response_cross_the_bridge_intact():
    sent = call(WsgiBridge(echo_app), body=b'{"a": 1}')
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 201
    assert (b"x-two", b"2") in sent[0]["headers"]
    answer = json.loads(sent[1]["body"])
    assert answer["body"] == '{"a": 1}' and answer["auth"] == "Token abc"
    assert answer["method"] == "POST" and answer["path"] == "/api/x"


def test_a_body_in_several_chunks_is_read_whole():
    sent = call(WsgiBridge(echo_app), body=b"abcdef", chunks=[b"abc", b"def"])
    assert json.loads(sent[1]["body"])["body"] == "abcdef"


SEAT = "/api/tables/ABC123/seats/1"


def test_only_a_seat_or_lobby_get_with_wait_is_a_long_poll():
    seat_get = {"method": "GET", "path": SEAT}
    assert is_long_poll({**seat_get, "query_string": b"wait=0.5"})
    assert not is_long_poll({**seat_get, "query_string": b"wait=0"})
    assert not is_long_poll({**seat_get, "query_string": b"wait=soon"})  # the view answers 400
    lobby_get = {"method": "GET", "path": "/api/me/league-tables"}
    assert is_long_poll({**lobby_get, "query_string": b"wait=25&after=4"})
    assert not is_long_poll({**lobby_get, "method": "POST", "query_string": b"wait=25"})
    assert not is_long_poll({"method": "GET", "path": "/api/clubs", "query_string": b"wait=25"})
    for method, path in (
        ("GET", "/api/me"),
        ("GET", "/api/tables/ABC123"),
        ("POST", SEAT + "/actions"),
        ("GET", SEAT + "/events"),
    ):
        assert not is_long_poll({"method": method, "path": path, "query_string": b"wait=5"})


class ParkingApp:
    """A WSGI app that parks every long-poll until ``version`` passes 3, as the seat view
    does; counts the slots given back."""

    def __init__(self, seconds=30.0):
        self.version = 3
        self.seconds = seconds
        self.given_back = 0
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        parking = environ["asgi.scope"].get(longpoll.ENVIRON_KEY)
        if parking is not None and not parking.resumed and self.version <= 3:
            parking.wait = longpoll.Wait("table-77", 3, lambda: self.version)
            parking.seconds = self.seconds
            parking.give_back = self.give_back
            start_response("204 No Content", [])
            return [b""]
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps({"version": self.version}).encode()]

    def give_back(self):
        with self.lock:
            self.given_back += 1


async def long_poll(bridge, disconnect: asyncio.Event | None = None):
    scope = {"type": "http", "method": "GET", "path": SEAT, "query_string": b"wait=30&after=3"}
    scope["headers"] = []
    sent = []
    first = True

    async def receive():
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": b"", "more_body": False}
        await (disconnect or asyncio.Event()).wait()
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await bridge(scope, receive, send)
    return sent


def test_parked_long_polls_hold_no_thread_and_answer_on_the_commit_notice():
    from server.notices.waits import waits

    app = ParkingApp()
    bridge = WsgiBridge(app)
    threads_before = threading.active_count()

    async def run():
        polls = [asyncio.ensure_future(long_poll(bridge)) for _ in range(200)]
        while waits.waiting() < 200:
            await asyncio.sleep(0.05)
        threads_while_waiting = threading.active_count()
        assert not any(p.done() for p in polls)
        app.version = 4
        waits.notice("table-77", 4)  # what a commit of version 4 does
        return threads_while_waiting, await asyncio.gather(*polls)

    threads_while_waiting, answers = asyncio.run(run())
    assert threads_while_waiting - threads_before <= 2  # the quick thread, not 200
    assert all(a[0]["status"] == 200 and json.loads(a[1]["body"])["version"] == 4 for a in answers)
    assert app.given_back == 200 and waits.waiting() == 0


def test_a_parked_long_poll_answers_at_its_deadline_and_a_notice_of_no_news_keeps_it_waiting():
    from server.notices.waits import waits

    app = ParkingApp(seconds=0.5)
    bridge = WsgiBridge(app)

    async def run():
        poll = asyncio.ensure_future(long_poll(bridge))
        while waits.waiting() < 1:
            await asyncio.sleep(0.01)
        waits.notice("table-77", 3)  # not past 3: nothing to say
        waits.notice("table-77", None)  # "may have moved": it reads the version, still 3
        await asyncio.sleep(0.05)
        assert not poll.done()
        return await poll

    sent = asyncio.run(run())
    assert sent[0]["status"] == 200 and json.loads(sent[1]["body"])["version"] == 3
    assert app.given_back == 1


def test_a_client_leaving_a_parked_long_poll_gives_its_slot_back_unanswered():
    from server.notices.waits import waits

    app = ParkingApp()
    bridge = WsgiBridge(app)

    async def run():
        left = asyncio.Event()
        poll = asyncio.ensure_future(long_poll(bridge, left))
        while waits.waiting() < 1:
            await asyncio.sleep(0.01)
        left.set()
        return await asyncio.wait_for(poll, 10)

    assert asyncio.run(run()) == []
    assert app.given_back == 1 and waits.waiting() == 0


# -- limits (issue 11.1, 11.2, 11.3) ----------------------------------------------------------
def test_a_large_announced_body_is_refused_with_json_413_before_reading_it():
    calls = []

    def app(environ, start_response):
        calls.append(environ)
        return echo_app(environ, start_response)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/auth/token",
        "query_string": b"",
        "headers": [(b"content-length", b"400000000")],
    }
    received = []

    async def run():
        sent = []

        async def receive():
            received.append(1)
            return {"type": "http.request", "body": b"x" * 65536, "more_body": True}

        async def send(message):
            sent.append(message)

        await WsgiBridge(app)(scope, receive, send)
        return sent

    sent = asyncio.run(run())
    assert sent[0]["status"] == 413 and (b"content-type", b"application/json") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["code"] == "body_too_large"
    assert received == [] and calls == []


def test_a_chunked_body_is_read_only_up_to_the_limit():
    from django.conf import settings

    chunk = b"x" * 16384
    parts = [chunk] * (settings.DEKABES_MAX_BODY // len(chunk) + 50)
    sent, asked = [], []

    async def run():
        async def receive():
            asked.append(1)
            return {"type": "http.request", "body": chunk, "more_body": True}

        async def send(message):
            sent.append(message)

        scope = {
            "type": "http",
            "method": "POST",
            "path": "/api/x",
            "query_string": b"",
            "headers": [],
        }
        await WsgiBridge(echo_app)(scope, receive, send)

    asyncio.run(run())
    assert sent[0]["status"] == 413 and json.loads(sent[1]["body"])["code"] == "body_too_large"
    assert len(asked) == settings.DEKABES_MAX_BODY // len(chunk) + 1 < len(parts)


def test_password_endpoints_run_on_the_hashing_pool():
    bridge = WsgiBridge(echo_app)
    for path in ("/api/auth/token", "/api/auth/register", "/api/auth/password"):
        assert json.loads(call(bridge, path=path)[1]["body"])["thread"].startswith("hash"), path
    assert json.loads(call(bridge, path="/api/auth/logout")[1]["body"])["thread"].startswith("http")


def test_a_full_hashing_queue_answers_503_server_busy_at_once():
    release = threading.Event()

    def slow_app(environ, start_response):
        release.wait(10)
        return echo_app(environ, start_response)

    bridge = WsgiBridge(slow_app, hash_threads=1, hash_queue=2)
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/auth/token",
        "query_string": b"",
        "headers": [(b"content-length", b"2")],
    }

    async def one():
        sent = []
        done = False

        async def receive():
            nonlocal done
            if done:
                await asyncio.sleep(30)
            done = True
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(message):
            sent.append(message)

        await bridge(scope, receive, send)
        return sent[0]["status"], sent

    async def run():
        tasks = [asyncio.ensure_future(one()) for _ in range(2)]
        await asyncio.sleep(0.2)
        status, sent = await one()  # the third, with two waiting for the hash thread
        release.set()
        return status, sent, [t[0] for t in await asyncio.gather(*tasks)]

    status, sent, others = asyncio.run(run())
    assert status == 503 and json.loads(sent[1]["body"])["code"] == "server_busy"
    assert (b"retry-after", b"2") in sent[0]["headers"] and others == [201, 201]
