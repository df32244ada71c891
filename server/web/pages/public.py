"""The front door: the home page (your tables, your next league tables, the clubs), sign
in, sign out, register, and the home page's live part. Thin: read through the selectors,
write through the accounts service, render."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from server import errors
from server.league import selectors as league
from server.notices.groups import account_group
from server.web import live, throttling
from server.web.forms.public import RegisterForm, SignInForm
from server.web.once import once_per_form, sign_in_again
from server.web.refusals import too_many_attempts
from server.web.selectors import doors
from server.web.selectors import league as league_reads
from server.web.selectors import tables as table_reads
from server.web.visitor import viewer as visitor


def home(request):
    viewer = visitor(request)
    context: dict[str, object] = {
        "tables": table_reads.my_tables(viewer) if viewer else [],
        "clubs": league_reads.clubs_for(viewer, request.GET.get("clubs")),
    }
    if viewer is not None:
        version, next_tables = league_reads.next_tables(viewer)
        context.update(
            next_tables=next_tables,
            held=doors.held_codes(viewer, [t.match.table.code for t in next_tables]),
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


def offered_table(target: str) -> str | None:
    """The table code of a seat link (``/tables/<code>/join``) a visitor is sent to once
    signed in or registered: the form says what waits behind it. Only the link's own
    text is echoed, nothing read about the table."""
    try:
        match = resolve(urlsplit(target).path)
    except Resolver404:
        return None
    return match.kwargs.get("code") if match.view_name == "web:table_join" else None


def _on_this_site(request, target: str) -> str:
    """``target`` if it is a page of this site, else "" (never sent elsewhere)."""
    return target if url_has_allowed_host_and_scheme(target, {request.get_host()}) else ""


class SignInView(auth_views.LoginView):
    template_name = "web/signin.html"
    authentication_form = SignInForm
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["offered_table"] = offered_table(context.get("next") or "")
        return context

    def post(self, request, *args, **kwargs):
        wait = throttling.wait_seconds(
            request, throttling.SIGN_IN, {"username": request.POST.get("username", "")}
        )
        if wait is not None:
            return too_many_attempts(request, wait)
        return super().post(request, *args, **kwargs)


class SignOutView(auth_views.LogoutView):
    pass


@require_http_methods(["GET", "POST"])
@once_per_form(on_repeat=sign_in_again)
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
            return redirect(_on_this_site(request, request.POST.get("next", "")) or "web:home")
    target = _on_this_site(request, request.GET.get("next", ""))
    return render(
        request,
        "web/register.html",
        {"form": form, "next": target, "offered_table": offered_table(target)},
    )
