"""What is refused before Django sees a request: bodies past the limit, and the
refusals Daphne and Twisted make themselves, answered in JSON like every other 4xx.

Bodies: past ``settings.DEKABES_MAX_BODY`` (64 KB) a request is answered ``413
body_too_large`` (JSON) without reading the rest, whether it announced its length or
is chunked. Daphne itself queues a whole body before the application sees it, so
``limit_daphne_bodies()`` (called by ``server.asgi``) makes Daphne refuse it as it
arrives; ``read_body`` (used by the bridge, ``server.http_bridge``) covers any other
ASGI server.
"""

from __future__ import annotations

from django.conf import settings

from server.errors import json_body

JSON_HEADERS = [(b"content-type", b"application/json")]


def declared_length(scope: dict) -> int | None:
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def too_large_body() -> bytes:
    return json_body(
        "body_too_large", f"a request body is at most {settings.DEKABES_MAX_BODY} bytes"
    )


async def read_body(scope, receive, send) -> bytes | None:
    """The whole body, or None once answered ``413`` (or the client left)."""
    limit = settings.DEKABES_MAX_BODY
    length = declared_length(scope)
    if length is not None and length > limit:
        await answer(send, 413, too_large_body())
        return None
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        if len(body) > limit:
            await answer(send, 413, too_large_body())
            return None
        if not message.get("more_body"):
            return bytes(body)


async def answer(send, status: int, body: bytes, headers: list | None = None) -> None:
    """A JSON answer made on the event loop, without Django."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": JSON_HEADERS + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})


def limit_daphne_bodies() -> None:
    """Make Daphne refuse an oversized body as it arrives instead of queueing it whole
    (and skip Twisted's parse of form bodies, which nothing reads).

    Daphne's ``WebRequest`` buffers the body (Twisted spools it to a file) and then puts
    every chunk on the application's queue at once: a 400 MB POST costs 400 MB of memory
    before any application code runs. This subclass answers ``413`` as soon as the
    announced length, or the bytes received so far, pass the limit, and closes the
    connection. Daphne builds each request from ``http_protocol.WebRequest``, looked up
    when a connection opens, so replacing that name is enough.
    """
    # Imported here: only a process that runs under Daphne patches it (the bridge's
    # tests and any other ASGI server never load Twisted for it).
    from daphne import http_protocol

    if getattr(http_protocol.WebRequest, "refuses_large_bodies", False):
        return

    class LimitedWebRequest(http_protocol.WebRequest):
        refuses_large_bodies = True

        def __init__(self, *args, **kwargs):
            # Daphne hands the raw body to the application and never reads Twisted's
            # own parse of a form POST (``request.args``); that parse of the
            # Content-Type header alone (through the email package) cost ~0.2 ms of
            # every POST. ``parsePOSTFormSubmission`` is Twisted's switch for it.
            kwargs.setdefault("parsePOSTFormSubmission", False)
            super().__init__(*args, **kwargs)

        def gotLength(self, length):
            self.body_seen = 0
            self.body_refused = False
            if length is not None and length > settings.DEKABES_MAX_BODY:
                super().gotLength(0)
                self._refuse()
            else:
                super().gotLength(length)

        def handleContentChunk(self, data):
            if self.body_refused:
                return
            self.body_seen += len(data)
            if self.body_seen > settings.DEKABES_MAX_BODY:
                self._refuse()
                return
            super().handleContentChunk(data)

        def _refuse(self):
            self.body_refused = True
            body = too_large_body()
            self.channel.transport.write(
                b"HTTP/1.1 413 Content Too Large\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
            )
            self.channel.transport.loseConnection()

        def process(self):
            if getattr(self, "body_refused", False):
                return None  # answered already; the application never sees it
            return super().process()

        def connectionLost(self, reason):
            if getattr(self, "body_refused", False):
                # Never handed to Daphne's server loop: nothing of it to clean up there.
                return http_protocol.http.Request.connectionLost(self, reason)
            return super().connectionLost(reason)

        def basic_error(self, status, status_text, body):
            # Daphne's own refusals (an invalid header name or value, a path that is not
            # ASCII, its processing errors) are an HTML page upstream: JSON here.
            code = DAPHNE_ERROR_CODES.get(status, "error")
            self.handle_reply(
                {"type": "http.response.start", "status": status, "headers": JSON_HEADERS}
            )
            self.handle_reply(
                {"type": "http.response.body", "body": json_body(code, body.lower().rstrip("."))}
            )

    http_protocol.WebRequest = LimitedWebRequest
    _json_bad_requests()


DAPHNE_ERROR_CODES = {400: "bad_request", 500: "server_error", 503: "server_busy"}


def _json_bad_requests() -> None:
    """Twisted answers a request line or header it cannot parse (before Daphne sees the
    request) with a bare ``400`` and no body: give it a JSON one, as every 4xx has.

    The method replaced is Twisted's own one place for that answer
    (``HTTPChannel._respondToBadRequestAndDisconnect``, as of Twisted 26.10).
    """
    # Imported here, like Daphne above: only under Daphne.
    from twisted.web import http

    if getattr(http.HTTPChannel, "answers_bad_requests_in_json", False):
        return
    # setattr: replacing a method of a class we do not own, on purpose (see above)

    def respond_to_bad_request_and_disconnect(channel):
        body = json_body("bad_request", "the request line or its headers cannot be parsed")
        channel.transport.write(
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
        )
        channel.loseConnection()

    setattr(  # noqa: B010 (assigning the method itself would not type-check)
        http.HTTPChannel, "_respondToBadRequestAndDisconnect", respond_to_bad_request_and_disconnect
    )
    setattr(http.HTTPChannel, "answers_bad_requests_in_json", True)  # noqa: B010
