"""Thin views: read through selectors, write through the accounts service, render."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_http_methods

from server import errors
from server.errors import NotFound, NotWatchable
from server.league import selectors as league
from server.league import spectate
from server.notices.groups import account_group
from server.tables import projection
from server.tables.models import Table
from server.web import league_selectors as league_pages
from server.web import live, selectors, throttling
from server.web.analysis import replay_analysis
from server.web.forms import RegisterForm, SignInForm
from server.web.replay import NotReplayable


def home(request):
    viewer = request.user if request.user.is_authenticated else None
    context: dict[str, object] = {
        "tables": selectors.my_tables(viewer) if viewer else [],
        "clubs": selectors.clubs_for(viewer, request.GET.get("clubs")),
    }
    if viewer is not None:
        version, next_tables = league_pages.next_tables(viewer)
        context.update(
            next_tables=next_tables,
            server_url=request.build_absolute_uri("/").rstrip("/"),
            live_url="/me/live",
            live_version=version,
        )
    return render(request, "web/home.html", context)


def me_live(request):
    """``GET /me/live?after=N&wait=S``: the version of the signed-in account's league
    tables (``league_tables_version``), long-polled; the home page's live part."""
    if not request.user.is_authenticated:
        return JsonResponse(errors.body_of(errors.NotAuthenticated), status=401)
    user = request.user
    return live.long_poll(
        request, user, account_group(user.pk), lambda: league.league_tables_version(user)
    )


class SignInView(auth_views.LoginView):
    template_name = "web/signin.html"
    authentication_form = SignInForm
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        wait = throttling.wait_seconds(
            request, throttling.SIGN_IN, {"username": request.POST.get("username", "")}
        )
        if wait is not None:
            return too_many_attempts(request, wait)
        return super().post(request, *args, **kwargs)


def too_many_attempts(request, wait: int):
    response = render(
        request,
        "web/error.html",
        {
            "status": 429,
            "title": _("Too many attempts"),
            "message": _("Wait %(seconds)s seconds, then try again.") % {"seconds": wait},
        },
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response


class SignOutView(auth_views.LogoutView):
    pass


@require_http_methods(["GET", "POST"])
def register(request):
    form = RegisterForm(request.POST or None)
    if request.method == "POST":
        wait = throttling.wait_seconds(request, throttling.REGISTER, {})
        if wait is not None:
            return too_many_attempts(request, wait)
    if request.method == "POST" and form.is_valid():
        user = form.register()
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            target = request.POST.get("next", "")
            safe = url_has_allowed_host_and_scheme(target, {request.get_host()})
            return redirect(target if target and safe else "web:home")
    return render(request, "web/register.html", {"form": form, "next": request.GET.get("next", "")})


@gzip_page
def table_replay(request, code: str):
    table = selectors.readable_table(request.user, code)
    try:
        replay = selectors.table_replay(table)
    except NotReplayable as err:
        return render(
            request,
            "web/not_replayable.html",
            {"table": table, "reason": err.reason, "row": selectors.table_row(table)},
        )
    return render(
        request,
        "web/replay.html",
        {
            "table": table,
            "replay": replay,
            "seats": selectors.board_seats(replay, selectors.seat_players(table)),
            "record_url": f"/tables/{table.code}/record",
            "log": selectors.replay_log(replay),
            "analysis": replay_analysis(table, replay),
        },
    )


def table_record(request, code: str):
    table = selectors.readable_table(request.user, code)
    try:
        text = selectors.finished_record(table)
    except NotReplayable:
        return render(
            request,
            "web/not_replayable.html",
            {"table": table, "reason": "in_progress", "row": selectors.table_row(table)},
            status=409,
        )
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="dekabes-{table.code}.jsonl"'
    return response


def table_watch(request, code: str):
    """``/tables/<code>/watch``: the table as a spectator sees it (``spectate``), for
    whoever may watch it (anyone else: 404, as an unknown code). Reload to follow it;
    ``watch.js`` reloads the board by itself when the table moves."""
    user = request.user if request.user.is_authenticated else None
    table = Table.objects.filter(code=code.upper()).select_related("owner").first()
    if table is None:
        raise Http404("no such table")
    state = projection.project(table)
    try:
        spectate.check_may_watch(user, table, state)
    except (NotFound, NotWatchable):
        raise Http404("no such table") from None
    answer = spectate.spectator_answer(table, state)
    return render(request, "web/watch.html", selectors.watch_context(table, answer))
