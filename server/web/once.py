"""A create form submitted twice makes one thing (issue #33): a double click, or Back and
submit again, lands on what the first submit made.

Each create form carries a random ``form_token`` (``{% form_token %}``, templatetags
``once``). The first POST with a token claims it in the cache (an atomic ``add``: Redis
when the server runs several processes); when its answer is a redirect (the thing
made), the token remembers where it led. A second POST with the same token waits for
the first's answer (a double click arrives while the first is still at work) and is sent
to the same place, doing nothing itself. A refused first POST forgets the token, so the
corrected form is a new attempt. A POST without a token (an old page) is handled as
before.
"""

from __future__ import annotations

import re
import secrets
import time
from functools import wraps

from django.contrib.auth import authenticate, login
from django.core.cache import cache
from django.shortcuts import redirect

FIELD = "form_token"
PENDING = "…"
KEPT_SECONDS = 3600
WAIT_SECONDS = 15.0  # how long a repeat waits for the first submit's answer
_TOKEN = re.compile(r"\A[A-Za-z0-9_-]{16,64}\Z")


def new_token() -> str:
    return secrets.token_urlsafe(18)


def _key(request) -> str | None:
    token = request.POST.get(FIELD, "")
    if not _TOKEN.match(token):
        return None
    return f"web-once:{request.path}:{token}"


def _first_answer(key: str) -> str | None:
    """Where the first submit led, once it answered (None: refused, or still at work
    after ``WAIT_SECONDS``: then this submit goes ahead on its own)."""
    waited_until = time.monotonic() + WAIT_SECONDS
    while True:
        value = cache.get(key)
        if value != PENDING:
            return value
        if time.monotonic() > waited_until:
            return None
        time.sleep(0.05)  # a request's wait for another request, not a test's sleep


def once_per_form(view=None, *, on_repeat=None):
    """Decorate a create form's view (after the decorators that check who may post).
    ``on_repeat(request)``: run on a repeat before it is sent where the first went (the
    registration signs the repeat in: a double click's browser keeps the second answer,
    not the first's session cookie)."""
    if view is None:
        return lambda v: once_per_form(v, on_repeat=on_repeat)

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        key = _key(request) if request.method == "POST" else None
        if key is None:
            return view(request, *args, **kwargs)
        if not cache.add(key, PENDING, KEPT_SECONDS):
            earlier = _first_answer(key)
            if earlier:
                if on_repeat is not None:
                    on_repeat(request)
                return redirect(earlier)
        try:
            response = view(request, *args, **kwargs)
        except BaseException:
            cache.delete(key)
            raise
        if response.status_code in (301, 302, 303) and response.get("Location"):
            cache.set(key, response["Location"], KEPT_SECONDS)
        else:
            cache.delete(key)
        return response

    return wrapper


def sign_in_again(request) -> None:
    """A repeat of a registration or sign-in form: sign in with the name and password it
    carries (checked again), as the first submit did."""
    if request.user.is_authenticated:
        return
    user = authenticate(
        request,
        username=request.POST.get("username", ""),
        password=request.POST.get("password", ""),
    )
    if user is not None:
        login(request, user)
