"""A casual table's pages: its replay, its record, the table as a spectator sees it, and
the open seats (tables seeking players, ``server.matchmaking``).
Who may read or watch it is the tables' and the league's to say (``readable_table``,
``spectate.check_may_watch``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.gzip import gzip_page

from server.errors import NotFound, NotWatchable
from server.league import spectate
from server.matchmaking import selectors as matchmaking
from server.tables import projection
from server.tables.models import Table
from server.web.selectors import tables as table_reads
from server.web.selectors.replay import NotReplayable
from server.web.selectors.replay_analysis import replay_analysis
from server.web.visitor import viewer


@gzip_page
def table_replay(request, code: str):
    table = table_reads.readable_table(request.user, code)
    try:
        replay = table_reads.table_replay(table)
    except NotReplayable as err:
        return render(
            request,
            "web/not_replayable.html",
            {"table": table, "reason": err.reason, "row": table_reads.table_row(table)},
        )
    held = table_reads.table_holdings(table)
    return render(
        request,
        "web/replay.html",
        {
            "table": table,
            "replay": replay,
            "seats": table_reads.board_seats(replay, table_reads.seat_players(table), held),
            "record_url": f"/tables/{table.code}/record",
            "log": table_reads.replay_log(replay, held),
            "handovers": held.handovers() if held is not None else [],
            "analysis": replay_analysis(table, replay),
        },
    )


def table_record(request, code: str):
    table = table_reads.readable_table(request.user, code)
    try:
        text = table_reads.finished_record(table)
    except NotReplayable:
        return render(
            request,
            "web/not_replayable.html",
            {"table": table, "reason": "in_progress", "row": table_reads.table_row(table)},
            status=409,
        )
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="dekabes-{table.code}.jsonl"'
    return response


def table_watch(request, code: str):
    """``/tables/<code>/watch``: the table as a spectator sees it (``spectate``), for
    whoever may watch it (anyone else: 404, as an unknown code). Reload to follow it;
    ``watch.js`` reloads the board by itself when the table moves."""
    user = viewer(request)
    table = Table.objects.filter(code=code.upper()).select_related("owner").first()
    if table is None:
        raise Http404("no such table")
    state = projection.project(table)
    try:
        spectate.check_may_watch(user, table, state)
    except (NotFound, NotWatchable):
        raise Http404("no such table") from None
    answer = spectate.spectator_answer(table, state)
    return render(request, "web/watch.html", table_reads.watch_context(table, answer))


@login_required
def open_seats(request):
    """``/tables/open``: the tables seeking players (``GET /api/tables/open``'s list):
    who sits there, who is wanted, the level range. Seats are taken from the desktop
    app's lobby, where the table's code is listed the same way."""
    found = matchmaking.open_seeks(request.user)
    return render(request, "web/open_seats.html", {"rows": table_reads.open_seat_rows(found)})
