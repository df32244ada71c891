"""The ways in to a casual table from the web (issue #32): a new table against the
computer at a level (seats left open for friends), a seat taken from a link
(``/tables/<code>/join?seat=N``), a table found by its code, and "watch" for a table
one may watch but not sit at. Every way ends on the table's play page. Thin: the
forms parse, the tables' and the league's services decide (``shown_refusal``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from server.errors import ValidationError
from server.league.actions import hosted
from server.tables import services as table_services
from server.web.forms.tables import NewTableForm, TableCodeForm, TakeSeatForm
from server.web.refusals import league_pages, shown_refusal
from server.web.selectors import doors


@login_required
@require_http_methods(["GET", "POST"])
def new_table(request):
    form = NewTableForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        with shown_refusal(form) as refusal:
            table = hosted.do_create_table_with_computers(
                owner=request.user,
                level=form.cleaned_data["level"],
                open_seats=form.open_seats(),
            )
            return redirect("web:table_play", code=table.code)
        status = refusal.status
    elif request.method == "POST":
        status = 400
    return render(request, "web/table_new.html", {"form": form}, status=status)


@login_required
@require_GET
def join_by_code(request):
    """``/tables/join?code=…``: the home page's "join by code"; the code's join page."""
    form = TableCodeForm(request.GET)
    if form.is_valid():
        return redirect("web:table_join", code=form.cleaned_data["code"])
    return render(request, "web/table_join_code.html", {"form": form}, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def join_table(request, code: str):
    """``/tables/<code>/join[?seat=N]``: a seat holder goes straight to the play page;
    anyone else who may read the table sees its free seats (the one the link offers
    first) and takes one, or the watch link where they may watch (404 as an unknown
    code for a table they may not read)."""
    page = doors.table_to_join(request.user, code)
    if doors.held_codes(request.user, [page.table.code]):
        return redirect("web:table_play", code=page.table.code)
    error, status = None, 200
    if request.method == "POST":
        form = TakeSeatForm(request.POST)
        with shown_refusal() as refusal:
            if not form.is_valid():
                raise ValidationError("choose one of the table's seats")
            table_services.do_join(
                user=request.user, table=page.table, number=form.cleaned_data["seat"]
            )
            return redirect("web:table_play", code=page.table.code)
        error, status = refusal.text, refusal.status
        page = doors.table_to_join(request.user, code)  # as it is now (the seat went)
    offered = request.GET.get("seat", "")
    context = {
        "page": page,
        "offered": int(offered)
        if offered in ("2", "3", "4", "1") and int(offered) in page.free
        else None,
        "error": error,
    }
    return render(request, "web/table_join.html", context, status=status)


@login_required
@require_POST
@league_pages
def set_watchable(request, code: str):
    """``POST /tables/<code>/watchable`` (``on``: yes or no), the play page's switch: the
    owner of a casual table lets the people holding its code watch it, or stops. Anyone
    else: the site's 403 page (404 where they may not read the table), nothing changed."""
    page = doors.table_to_join(request.user, code)
    table_services.do_set_watchable(
        user=request.user, table=page.table, on=request.POST.get("on") == "yes"
    )
    if doors.held_codes(request.user, [page.table.code]):
        return redirect("web:table_play", code=page.table.code)
    return redirect("web:table_join", code=page.table.code)
