"""How many tables a member may have in play at once (``DEKABES_MAX_TABLES``).

A table rule, so it lives with the tables: it reads their logs and projections
(``server.limits`` holds only the per-process caps that know nothing of tables).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from engine.phases import MATCH_OVER
from server.errors import QuotaExceeded
from server.tables import projection
from server.tables.models import Event, Table

ACTIVE_WITHIN = timedelta(hours=1)


def check_table_quota(user) -> None:
    """A member may own at most ``DEKABES_MAX_TABLES`` tables in play: not over, and moved
    within the last hour (a table that sits still costs the server nothing).

    Each table moved in the hour is read at its newest version in one grouped query; its
    phase comes from the fold this process keeps when that fold is at that version
    (``projection.cached_phase``), and only other tables are folded. A bot that finished
    hundreds of matches in the hour once paid a fold and a copy of each of them on every
    new table (~0.3 ms per table in the hour)."""
    limit = settings.DEKABES_MAX_TABLES
    newest = (
        Event.objects.filter(table__owner=user, created_at__gte=timezone.now() - ACTIVE_WITHIN)
        .values("table_id")
        .annotate(seq=Max("seq"))
        .values_list("table_id", "seq")
    )
    in_play = 0
    unknown = []
    for table_id, seq in newest:
        phase = projection.cached_phase(table_id, seq)
        if phase is None:
            unknown.append(table_id)
        elif phase != MATCH_OVER:
            in_play += 1
    for table in Table.objects.filter(pk__in=unknown) if in_play < limit and unknown else ():
        if projection.project(table).match.phase != MATCH_OVER:
            in_play += 1
    if in_play >= limit:
        raise QuotaExceeded(
            f"a member has at most {limit} tables in play at once; finish or leave one first"
        )
