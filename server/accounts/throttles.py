"""Rate limits on the endpoints that hash a password (DRF throttling, Django's cache).

Per client address and per account name, so one address cannot try many names and many
addresses cannot hammer one name. A refusal is ``429 throttled`` with ``Retry-After``.
The rates are settings (``DEKABES_RATE_*``, see docs/server.md). The cache is Redis when
``REDIS_URL`` is set (one count for all server processes), local memory otherwise (one
process: the count is the process's).
"""

from __future__ import annotations

import hashlib

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class _Throttle(SimpleRateThrottle):
    def get_rate(self):
        # Read now, not at import: the rates are settings a test or an operator may change.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "")

    def __init__(self):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        return super().allow_request(request, view)


class LoginByAddress(_Throttle):
    scope = "login_address"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class LoginByName(_Throttle):
    """Attempts on one account name, whoever sends them (the name read from the body)."""

    scope = "login_name"

    def get_cache_key(self, request, view):
        data = request.data
        name = data.get("username") if isinstance(data, dict) else None
        if not isinstance(name, str) or not name:
            return None  # the view answers 400 without hashing anything
        # Hashed: a name is client text (any characters, any length) and cache keys are not.
        ident = hashlib.sha256(name.lower().encode("utf-8", "surrogatepass")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


class PasswordChangeByAccount(_Throttle):
    scope = "login_name"

    def get_cache_key(self, request, view):
        if request.user is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.username.lower()}


class RegisterByAddress(_Throttle):
    scope = "register_address"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class HintsByAccount(_Throttle):
    """A hint runs the strong bot (~80 ms of the server): bounded per account."""

    scope = "hint"

    def get_cache_key(self, request, view):
        if request.user is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
