"""The one ticking driver: what happens because time passed, never because someone read.

A tick applies, in turn:

- the tables' pauses that have lapsed: the pausing seat away, or ``PAUSE_LIMIT`` passed
  (``server.tables.services.lift_due_pauses``);
- the league's automatic substitutes: in every started round whose deadline has passed,
  in seasons with ``auto_substitute_after``, a human seat away that long goes to a strong
  hosted computer player (``server.league.actions.deadlines``);
- matchmaking's seeks and challenges past their time close (``server.matchmaking.tick``);
- then the apps above the league, which it may not import, through ``ticked``: the
  members' mail (deadline reminders), the bot ladder (its scheduling and substitutes,
  ``server.ladder.tick``).

No ``GET`` does any of it (a read changes nothing); a tick does it, every
``DEKABES_TICK_SECONDS`` (``server.run`` ticks every minute) or by hand
(``manage.py tick``). It lives in the league, the top of the domain, which may call the
tables.

Presence (``server.notices.presence``) decides who is away, so a tick runs where
presence is seen. Without Redis the leases live in the memory of the one server process:
that process ticks itself (``Ticker``, started by ``server.asgi`` when
``DEKABES_TICK_SECONDS`` is set; ``server.run`` sets it for one server process). A tick
run elsewhere (``manage.py tick`` beside a server without Redis) would see every seat
away: there it judges no one away (``presence.seen_here``), and only lifts pauses by time.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from dataclasses import dataclass, field

from django.db import close_old_connections
from django.dispatch import Signal
from django.utils import timezone

from server.league.actions import deadlines
from server.matchmaking import tick as matchmaking_tick
from server.tables import services as table_services

log = logging.getLogger(__name__)

# Sent once per tick, after the league's own work, with ``now``; each receiver returns a
# list of lines for the tick's log. A receiver's failure is logged, the others still run.
ticked = Signal()


@dataclass
class Ticked:
    """What one tick did: ``(table code, seat, "away" | "time")`` of each pause lifted,
    ``(match id, seat)`` of each automatic substitute."""

    lifted: list[tuple] = field(default_factory=list)
    substituted: list[tuple] = field(default_factory=list)
    others: list[str] = field(default_factory=list)  # what ``ticked``'s receivers did
    seeks_closed: list[int] = field(default_factory=list)
    challenges_expired: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        return (
            [f"table {t} seat {s}: pause lifted ({why})" for t, s, why in self.lifted]
            + [f"match {m} seat {s}: automatic substitute" for m, s in self.substituted]
            + self.others
            + [f"seek {n}: closed" for n in self.seeks_closed]
            + [f"challenge {n}: expired" for n in self.challenges_expired]
        )


def tick(now: dt.datetime | None = None) -> Ticked:
    """Apply everything due by ``now`` (the present when None). One part's failure never
    stops the other (it is logged; the next tick tries again)."""
    now = now or timezone.now()
    done = Ticked()
    try:
        done.lifted = table_services.lift_due_pauses(now=now)
    except Exception:
        log.exception("tick: lifting the lapsed pauses failed")
    try:
        done.substituted = deadlines.apply_due_substitutions(now)
    except Exception:
        log.exception("tick: the automatic substitutes failed")
    for receiver, answer in ticked.send_robust(sender=Ticked, now=now):
        if isinstance(answer, Exception):
            log.error("tick: %r failed", receiver, exc_info=answer)
        elif answer:
            done.others += list(answer)
    try:
        done.seeks_closed, done.challenges_expired = matchmaking_tick.tick(now)
    except Exception:
        log.exception("tick: closing the seeks and challenges past their time failed")
    return done


class Ticker:
    """``tick()`` every ``every`` seconds on a thread of this process, one tick at a time,
    until ``stop()``. A failed tick is logged and the next one comes as usual."""

    def __init__(self, every: float):
        self.every = every
        self.ticks = 0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dekabes-tick", daemon=True)

    def start(self) -> Ticker:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stopping.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stopping.wait(self.every):
            try:
                for line in tick().lines():
                    log.info("tick: %s", line)
            except Exception:  # the server goes on; the next tick tries again
                log.exception("tick failed")
            finally:
                close_old_connections()  # this thread's connection, as a request's
                self.ticks += 1
