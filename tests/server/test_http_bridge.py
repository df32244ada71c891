"""The ASGI→WSGI bridge Daphne's HTTP goes through (``server/http_bridge.py``)."""

from __future__ import annotations

import asyncio
import json
import threading

from server.http_bridge import WsgiBridge, is_long_poll, wsgi_environ


def echo_app(environ, start_response):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length)
    start_response("201 Created", [("Content-Type", "application/json"), ("X-Two", "2")])
    return [json.dumps({"method": environ["REQUEST_METHOD"], "path": environ["PATH_INFO"],
                        "query": environ["QUERY_STRING"], "body": body.decode(),
                        "auth": environ.get("HTTP_AUTHORIZATION"),
                        "thread": threading.current_thread().name}).encode()]


def call(app, path="/api/x", query=b"", body=b"", method="POST", chunks=None):
    scope = {"type": "http", "method": method, "path": path, "query_string": query,
             "headers": [(b"authorization", b"Token abc"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())],
             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5555)}
    parts = chunks or [body]
    sent = []

    async def run():
        queue = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1}
                 for i, p in enumerate(parts)]

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


def test_long_polls_run_on_their_own_pool():
    bridge = WsgiBridge(echo_app)
    quick = json.loads(call(bridge, path=SEAT, method="GET")[1]["body"])["thread"]
    waiting = json.loads(call(bridge, path=SEAT, method="GET", query=b"wait=5&after=3")[1]["body"])["thread"]
    assert quick.startswith("http") and waiting.startswith("poll")
    seat_get = {"method": "GET", "path": SEAT}
    assert is_long_poll({**seat_get, "query_string": b"wait=0.5"})
    assert not is_long_poll({**seat_get, "query_string": b"wait=0"})
    assert not is_long_poll({**seat_get, "query_string": b"wait=soon"})    # the view answers 400


def test_environ_follows_wsgi_for_non_ascii_paths_and_repeated_headers():
    environ = wsgi_environ({"type": "http", "method": "GET", "path": "/é", "query_string": b"q=1",
                            "headers": [(b"x-a", b"1"), (b"x-a", b"2")]}, b"")
    assert environ["PATH_INFO"] == "/é".encode().decode("latin-1")
    assert environ["HTTP_X_A"] == "1,2" and environ["QUERY_STRING"] == "q=1"
