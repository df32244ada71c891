"""WebSocket authentication by the same token as REST, read from the Authorization header
(desktop clients and bots are not browsers, and tokens in URLs end up in logs)."""

from __future__ import annotations

from channels.db import database_sync_to_async
from rest_framework.authtoken.models import Token


@database_sync_to_async
def user_for_token(key: str):
    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token is not None and token.user.is_active else None


class TokenAuthMiddleware:
    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        scope = dict(scope)
        scope["user"] = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                parts = value.decode("latin-1").split()
                if len(parts) == 2 and parts[0].lower() == "token":
                    scope["user"] = await user_for_token(parts[1])
        return await self.inner(scope, receive, send)
