"""What a round's passed deadline sets off by itself: the automatic substitutes.

The season option ``auto_substitute_after`` (minutes, off by default): once a round's
deadline has passed, a human seat away (``server.notices.presence``) longer than that
is handed to a strong hosted computer player (``matches.do_substitute``, the server as
the actor). ``apply_due_substitutions`` does it for every due round; the one ticking
driver (``server.league.tick``, which the server process runs every minute under
``server.run``) calls it, where presence is seen. No read does: a ``GET`` changes
nothing.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.utils import timezone

from server.league.actions.matches import do_substitute
from server.league.actions.rounds import deadline_passed
from server.league.models import LeagueMatch, Round
from server.notices import presence
from server.tables.models import Seat

log = logging.getLogger(__name__)

AUTO_LEVEL = "strong"  # the level of an automatic substitute


def away_since(table, seat: int) -> dt.datetime | None:
    """When seat ``seat`` went away (None: connected), from the presence module."""
    return presence.away_since(table=table, seat=seat)


def due_rounds(now: dt.datetime | None = None):
    """Started rounds whose deadline has passed in seasons with the option on."""
    return Round.objects.filter(
        status="started",
        deadline__lte=now or timezone.now(),
        season__auto_substitute_after__isnull=False,
    ).select_related("season__club")


def run_due_substitutions(round_: Round, now: dt.datetime | None = None) -> list[tuple]:
    """Hand every human seat away longer than the season's ``auto_substitute_after``
    minutes to a strong hosted computer player, once ``round_``'s deadline has passed.
    Returns ``(match id, seat)`` for each substitution made."""
    minutes = round_.season.auto_substitute_after
    now = now or timezone.now()
    if minutes is None or round_.status != "started" or not deadline_passed(round_, now):
        return []
    done = []
    matches = LeagueMatch.objects.filter(round=round_, status="playing").select_related(
        "table", "club", "round"
    )
    for match in matches:
        for seat in Seat.objects.filter(table=match.table, kind="human").order_by("number"):
            since = away_since(match.table, seat.number)
            if since is None or now - since < dt.timedelta(minutes=minutes):
                continue
            try:
                do_substitute(
                    user=None,
                    match=match,
                    seat=seat.number,
                    level=AUTO_LEVEL,
                    reason=f"away for more than {minutes} minutes after the deadline",
                    automatic=True,
                )
            except Exception:  # one table's trouble never stops the others
                log.warning(
                    "no automatic substitute at match %s seat %s",
                    match.pk,
                    seat.number,
                    exc_info=True,
                )
                continue
            done.append((match.pk, seat.number))
            match.refresh_from_db()
            if match.status != "playing":
                break
    return done


def apply_due_substitutions(now: dt.datetime | None = None) -> list[tuple]:
    """``run_due_substitutions`` in every started round whose deadline has passed. None
    in a process that does not see presence (``presence.seen_here``: a command beside a
    server without Redis), where every seat would look away."""
    if not presence.seen_here():
        return []
    done: list[tuple] = []
    for round_ in due_rounds(now):
        done += run_due_substitutions(round_, now)
    return done
