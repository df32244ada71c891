"""``/tables/<code>/play``: the browser table, the second thin client of the seat API
(issue #32). The page is for a person who holds a seat of the table and is signed in on
the site; everyone else gets the answer an unknown table gets (404), so a code reveals
nothing. What the page shows of the seat comes from the seat API, never from here."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from server.tables.models import Table
from server.tables.selectors import seats_held


@login_required
def table_play(request, code: str):
    table = Table.objects.filter(code=code.upper()).first()
    seats = seats_held(request.user, table) if table is not None else []
    if not seats:
        raise Http404("no such table")
    return render(request, "web/play.html", {"table": table, "seats": seats})
