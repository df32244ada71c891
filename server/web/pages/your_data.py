"""The signed-in member's "Your data" page: what the server holds about them, the
download of all of it (the API's file), and closing the account (docs/server.md,
"Members' data"). Thin: the reads and the closing are ``server.member_data``'s."""

from __future__ import annotations

from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from server.league.models import Membership
from server.member_data import selectors, services
from server.member_data.serializers import member_data_file
from server.web.forms.your_data import CLOSE_ERRORS, CloseAccountForm
from server.web.refusals import shown_refusal


@login_required
@require_GET
def your_data(request):
    return _page(request, CloseAccountForm())


def _page(request, form: CloseAccountForm, status: int = 200):
    user = request.user
    facts = {
        "joined": user.date_joined,
        "clubs": Membership.objects.filter(user=user, active=True).count(),
        "bots": user.bots.count(),
    }
    return render(request, "web/your_data.html", {"form": form, "facts": facts}, status=status)


@login_required
@require_GET
def download(request):
    body = member_data_file(selectors.member_data(request.user))
    response = HttpResponse(body, content_type="application/json")
    name = f"dekabes-{request.user.username}-data.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_POST
def close_account(request):
    form = CloseAccountForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    with shown_refusal(form, text=lambda err: CLOSE_ERRORS.get(type(err), err.message)) as refusal:
        closed = services.do_close_account(
            user=request.user,
            password=form.cleaned_data["password"],
            confirmation=services.CONFIRMATION,  # the ticked box is the confirmation here
        )
    if refusal.error is not None:
        return _page(request, form, status=refusal.status)
    logout(request)
    return render(request, "web/account_closed.html", {"pseudonym": closed.pseudonym})
