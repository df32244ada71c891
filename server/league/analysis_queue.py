"""Post-match analysis on the server: a queue of ``MatchAnalysis`` rows worked off in the
background (``manage.py analyse_matches --watch``, started and supervised by
``server.run``), never inside a request.

- ``do_enqueue()`` adds a ``pending`` row for every finished match that has none, and
  puts back to ``pending`` the rows an older ``engine.analysis.ANALYSIS_VERSION`` wrote.
- ``claim()`` takes one pending row (or a ``running`` one whose worker has been silent
  for ``STALE_AFTER``): ``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL, so several
  workers never wait on each other; on SQLite a conditional ``UPDATE`` is the claim.
- ``do_analyse(row)`` folds the match's record with ``engine.analysis.analyse`` outside
  any transaction (it takes seconds of CPU), then writes the report and the
  ``SeatAccuracy`` rows in one short transaction: one per seat holding, each decision
  counted for whoever held its seat when it was made (``holders``).

Privacy: the engine values each decision from that seat's view only (its own tiles, the
line, the passes it saw); the report is served to whoever may read the match's record,
and only once the match is over (docs/league.md, "Analysis").
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from engine.analysis import ANALYSIS_VERSION, DEFAULT_ITERATIONS, analyse, summary
from server.accounts.models import User
from server.league.holders import Holdings, by_holding, match_holdings
from server.league.models import LeagueMatch, MatchAnalysis, SeatAccuracy
from server.league.selectors import engine_events
from server.tables.locking import writing
from server.tables.models import Event

STALE_AFTER = timedelta(minutes=10)  # a claim older than this is taken again
MAX_ATTEMPTS = 3
ENQUEUE_BATCH = 500


def do_enqueue() -> int:
    """Queue what needs analysing; the number of rows added or reset."""
    missing = list(
        LeagueMatch.objects.filter(status="finished", analysis__isnull=True)
        .order_by("finished_at", "id")
        .values_list("pk", flat=True)[:ENQUEUE_BATCH]
    )
    with writing(), transaction.atomic():
        MatchAnalysis.objects.bulk_create(
            [MatchAnalysis(match_id=pk) for pk in missing], ignore_conflicts=True
        )
        reset = MatchAnalysis.objects.filter(status="done", version__lt=ANALYSIS_VERSION).update(
            status="pending", attempts=0
        )
    return len(missing) + reset


def claim() -> MatchAnalysis | None:
    """One row to analyse, marked ``running`` by this worker; None when there is none."""
    now = timezone.now()
    waiting = Q(status="pending") | Q(
        status="running", claimed_at__lt=now - STALE_AFTER, attempts__lt=MAX_ATTEMPTS
    )
    with writing(), transaction.atomic():
        rows = MatchAnalysis.objects.filter(waiting).order_by("id")
        if connection.vendor == "postgresql":
            rows = rows.select_for_update(skip_locked=True, of=("self",))
        row = rows.only("pk", "status", "claimed_at").first()
        if row is None:
            return None
        taken = MatchAnalysis.objects.filter(
            pk=row.pk, status=row.status, claimed_at=row.claimed_at
        ).update(status="running", claimed_at=now, attempts=F("attempts") + 1)
    if not taken:  # SQLite: another worker's update came first
        return None
    return MatchAnalysis.objects.select_related("match").get(pk=row.pk)


def do_analyse(row: MatchAnalysis, *, iterations: int = DEFAULT_ITERATIONS) -> MatchAnalysis:
    """Analyse a claimed row's match and store the report (or the failure)."""
    started = time.process_time()
    try:
        report = analyse(engine_events(row.match), iterations=iterations, seed=row.match_id)
    except Exception as err:  # a record the engine refuses: stored, never retried blindly
        with writing(), transaction.atomic():
            MatchAnalysis.objects.filter(pk=row.pk).update(
                status="failed", error=f"{type(err).__name__}: {err}"[:200]
            )
        row.refresh_from_db()
        return row
    seconds = time.process_time() - started
    holdings = match_holdings(row.match)
    with writing(), transaction.atomic():
        MatchAnalysis.objects.filter(pk=row.pk).update(
            status="done",
            version=report["version"],
            iterations=iterations,
            report=report,
            done_at=timezone.now(),
            seconds=round(seconds, 3),
            error="",
        )
        SeatAccuracy.objects.filter(analysis_id=row.pk).delete()
        SeatAccuracy.objects.bulk_create(holder_rows(row, report, holdings))
    row.refresh_from_db()
    return row


def holder_rows(row: MatchAnalysis, report: dict, holdings: Holdings) -> list[SeatAccuracy]:
    """One ``SeatAccuracy`` per holding that made decisions: each decision counts for
    whoever held its seat when it was made (``holders``), never for the seat's drawn
    player or its last holder as a whole."""
    ids = dict(
        User.objects.filter(username__in={h.player for h in holdings.all if h.player}).values_list(
            "username", "pk"
        )
    )
    made = by_holding(report["decisions"], holdings)
    rows = []
    for (seat, k), decisions in sorted(made.items()):
        player_id = ids.get(holdings.by_seat[seat][k].player or "")
        if player_id is None:  # nobody held it (an open seat of a casual table)
            continue
        mine = summary(decisions)
        rows.append(
            SeatAccuracy(
                analysis_id=row.pk,
                match_id=row.match_id,
                player_id=player_id,
                seat=seat,
                holding=k,
                decisions=mine["decisions"],
                best_moves=mine["best_moves"],
                total_loss=mine["total_loss"],
                blunders=mine["marks"]["blunder"],
            )
        )
    return rows


def do_split_by_holder() -> int:
    """Rewrite the ``SeatAccuracy`` rows of every analysed match whose seats changed
    hands from its stored report (no new analysis): what analyses stored before
    accuracy was counted per holder credited a seat's every decision to its drawn
    player. ``manage.py analyse_matches --holders``; the number of matches rewritten."""
    handed = Event.objects.filter(type="seat_handover").values("table_id")
    rows = MatchAnalysis.objects.filter(
        status="done", report__isnull=False, match__table_id__in=handed
    ).select_related("match")
    done = 0
    for row in rows.iterator():
        report = row.report
        if report is None:  # excluded above; a row being rewritten meanwhile
            continue
        holdings = match_holdings(row.match)
        with writing(), transaction.atomic():
            SeatAccuracy.objects.filter(analysis_id=row.pk).delete()
            SeatAccuracy.objects.bulk_create(holder_rows(row, report, holdings))
        done += 1
    return done


def work(*, iterations: int = DEFAULT_ITERATIONS, limit: int | None = None) -> int:
    """Queue, then analyse until nothing is left (or ``limit`` rows); how many were done."""
    done = 0
    do_enqueue()
    while limit is None or done < limit:
        row = claim()
        if row is None:
            if do_enqueue() == 0:
                break
            continue
        do_analyse(row, iterations=iterations)
        done += 1
    return done
