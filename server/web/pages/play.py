"""``/tables/<code>/play``: the browser table, the second thin client of the seat API
(issue #32). The page is for a person who holds a seat of the table and is signed in on
the site; everyone else gets the answer an unknown table gets (404), so a code reveals
nothing. What the page shows of the seat comes from the seat API, never from here: the
page carries the table's code, the seats the visitor holds, the words in the visitor's
language and the CSRF token its calls send (the API takes the session only with it,
``server.accounts.auth.PageSessionAuthentication``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from server.league.models import LeagueMatch
from server.tables.models import Table
from server.tables.selectors import seats_held
from server.web.play_strings import play_strings


def round_deadline(table: Table) -> str | None:
    """The deadline of the league round the table belongs to, if it has one (ISO 8601)."""
    found = (
        LeagueMatch.objects.filter(table=table, round__isnull=False)
        .values_list("round__deadline", flat=True)
        .first()
    )
    return found.isoformat() if found else None


@never_cache
@login_required
def table_play(request, code: str):
    table = Table.objects.filter(code=code.upper()).first()
    seats = seats_held(request.user, table) if table is not None else []
    if table is None or not seats:
        raise Http404("no such table")
    setup = {
        "code": table.code,
        "seats": seats,
        "me": request.user.username,
        "csrf": get_token(request),
        "deadline": round_deadline(table),
        "words": play_strings(),
    }
    return render(request, "web/play.html", {"table": table, "seats": seats, "setup": setup})
