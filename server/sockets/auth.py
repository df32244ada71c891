"""WebSocket authentication by the same token as REST, read from the Authorization header
(desktop clients and bots are not browsers, and tokens in URLs end up in logs), or — for
the browser table (issue #32), which holds no token — the site's signed-in session, taken
only from a connection whose ``Origin`` is this very site (scheme, host and port of the
request): another site's page can make the browser send the session cookie but not
forge its Origin. And the Origin check for every browser connection."""

from __future__ import annotations

from importlib import import_module
from urllib.parse import urlparse

from channels.auth import get_user
from channels.db import database_sync_to_async
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.http.cookie import parse_cookie

from server.accounts.services import token_owner

CLOSE_BAD_ORIGIN = 4403


@database_sync_to_async
def user_for_token(key: str):
    found = token_owner(key)
    return found[0] if found is not None else None


def _session_store(key: str) -> SessionBase:
    return import_module(settings.SESSION_ENGINE).SessionStore(key)


async def user_for_session(scope) -> object | None:
    """The account signed in by the session cookie of a same-origin connection, or None."""
    headers = dict(scope.get("headers", []))
    cookie = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    key = cookie.get(settings.SESSION_COOKIE_NAME)
    if not key or not same_origin(headers):
        return None
    session = await database_sync_to_async(_session_store)(key)
    user = await get_user({"session": session})
    return user if user.is_authenticated else None


def same_origin(headers: dict) -> bool:
    """The connection's ``Origin`` names the host (and port) it was made to, as Django's
    CSRF check wants of a session's unsafe request. ``ws``/``wss`` map to ``http``/``https``."""
    origin, host = headers.get(b"origin"), headers.get(b"host")
    if origin is None or host is None:
        return False
    try:
        parsed = urlparse(origin.decode("latin-1"))
    except (UnicodeDecodeError, ValueError):
        return False
    return parsed.scheme in ("http", "https") and parsed.netloc == host.decode("latin-1")


class TokenAuthMiddleware:
    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        scope = dict(scope)
        scope["user"] = None
        scope["token_key"] = None
        token_sent = False
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                token_sent = True
                parts = value.decode("latin-1").split()
                if len(parts) == 2 and parts[0].lower() == "token":
                    scope["user"] = await user_for_token(parts[1])
                    # a seat socket looks it up again now and then (sockets.actions)
                    scope["token_key"] = parts[1] if scope["user"] is not None else None
        if not token_sent and scope.get("type") == "websocket":
            scope["user"] = await user_for_session(scope)
        return await self.inner(scope, receive, send)


class BrowserOriginValidator(OriginValidator):
    """A connection that sends ``Origin`` (a browser page) must come from one of
    ``ALLOWED_HOSTS``; one that sends none (desktop clients, bots) is let through, since
    the page-borne attack the check prevents always carries an Origin."""

    def __init__(self, application):
        super().__init__(application, settings.ALLOWED_HOSTS)

    def valid_origin(self, parsed_origin):
        return parsed_origin is None or self.validate_origin(parsed_origin)

    async def __call__(self, scope, receive, send):
        origin = next((v for n, v in scope.get("headers", []) if n == b"origin"), None)
        if origin is None:
            return await self.application(scope, receive, send)
        try:
            allowed = self.valid_origin(urlparse(origin.decode("latin-1")))
        except (UnicodeDecodeError, ValueError):
            allowed = False
        if allowed:
            return await self.application(scope, receive, send)
        # Accept, then close with the documented code (a refused handshake is a bare 403).
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": CLOSE_BAD_ORIGIN})
