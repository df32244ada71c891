"""Per-account caps on what holds a server resource for a while: long-polls (waiting on
the event loop, ``server.notices.longpoll``) and WebSockets. Counted per server process, which is what
each process has to protect; a refusal is ``429`` with a code of its own. (The cap on
tables in play is a table rule: ``server.tables.quota``.)
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager

from django.conf import settings

from server.errors import TooManyLongPolls


class Slots:
    """How many of something each account holds right now, up to a limit."""

    def __init__(self):
        self._held: Counter = Counter()
        self._lock = threading.Lock()

    def take(self, account_id, limit: int) -> bool:
        with self._lock:
            if self._held[account_id] >= limit:
                return False
            self._held[account_id] += 1
            return True

    def give_back(self, account_id) -> None:
        with self._lock:
            self._held[account_id] -= 1
            if self._held[account_id] <= 0:
                del self._held[account_id]

    def held(self, account_id) -> int:
        with self._lock:
            return self._held[account_id]


long_polls = Slots()
sockets = Slots()


ANONYMOUS = 0  # no account has this id: the slots of every visitor signed in to none


def long_poll_counters(user) -> list[tuple[object, int]]:
    """The counters a long-poll of ``user`` takes a slot of, with their limits.

    A bot long-polls once per table it plays at, so bot accounts get more room
    (``DEKABES_MAX_LONG_POLLS_BOT``); a member's bots share that room with each other and
    with their owner — one count per owner, whatever the number of bots (ten bots do not
    get ten times the cap). The owner's own polls also count against the human cap
    (``DEKABES_MAX_LONG_POLLS``). House bots (no owner) each have their own room.
    """
    owner = getattr(user, "bot_owner_id", None) if user.is_bot else None
    if user.is_bot and owner is None:
        return [(user.pk, settings.DEKABES_MAX_LONG_POLLS_BOT)]
    group = ("owner", owner if owner is not None else user.pk)
    counters: list[tuple[object, int]] = [(group, settings.DEKABES_MAX_LONG_POLLS_BOT)]
    if not user.is_bot:
        counters.insert(0, (user.pk, settings.DEKABES_MAX_LONG_POLLS))
    return counters


def take_long_poll_slot(user) -> Callable[[], None]:
    """One of the account's long-poll slots, or ``429 too_many_long_polls``; returns the
    function that gives it back (call it once). ``user`` None: a visitor of the public
    web pages; all of them share ``DEKABES_MAX_ANONYMOUS_LONG_POLLS`` slots per process."""
    if user is None:
        limit = settings.DEKABES_MAX_ANONYMOUS_LONG_POLLS
        if not long_polls.take(ANONYMOUS, limit):
            raise TooManyLongPolls(limit=limit)
        return functools.partial(long_polls.give_back, ANONYMOUS)
    taken: list[object] = []
    for key, limit in long_poll_counters(user):
        if not long_polls.take(key, limit):
            for held in taken:
                long_polls.give_back(held)
            raise TooManyLongPolls(limit=limit)
        taken.append(key)

    def give_back() -> None:
        for held in taken:
            long_polls.give_back(held)

    return give_back


@contextmanager
def long_poll_slot(user):
    give_back = take_long_poll_slot(user)
    try:
        yield
    finally:
        give_back()
