"""WebSocket authentication by the same token as REST, read from the Authorization header
(desktop clients and bots are not browsers, and tokens in URLs end up in logs), and the
Origin check for browser connections."""

from __future__ import annotations

from urllib.parse import urlparse

from channels.db import database_sync_to_async
from channels.security.websocket import OriginValidator
from django.conf import settings

from server.accounts.services import token_owner

CLOSE_BAD_ORIGIN = 4403


@database_sync_to_async
def user_for_token(key: str):
    found = token_owner(key)
    return found[0] if found is not None else None


class TokenAuthMiddleware:
    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        scope = dict(scope)
        scope["user"] = None
        scope["token_key"] = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                parts = value.decode("latin-1").split()
                if len(parts) == 2 and parts[0].lower() == "token":
                    scope["user"] = await user_for_token(parts[1])
                    # a seat socket looks it up again now and then (sockets.actions)
                    scope["token_key"] = parts[1] if scope["user"] is not None else None
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
