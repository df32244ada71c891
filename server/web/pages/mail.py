"""Members' mail on the web: a member's preferences (address, language, kinds), the
unsubscribe link every mail carries, an organizer's invite sent to an address, and the
language switcher (which also sets the language of the member's mail).

The unsubscribe link is a signed token (``server.mail.tokens``): opening it (``GET``)
shows what it stops and one button; the button, or a mail program's one-click
``POST`` (RFC 8058: no cookie, no CSRF token, the token is the authority), stops it. A
``GET`` changes nothing, so a mail scanner that opens links unsubscribes no one.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from server.errors import ApiError
from server.mail import selectors, services
from server.mail.kinds import INVITE, MEMBER_KINDS
from server.web.forms.mail import MailPreferencesForm, SendInviteForm
from server.web.refusals import league_pages, shown_refusal
from server.web.visitor import organized_club, person


@login_required
@require_http_methods(["GET", "POST"])
def mail_preferences(request):
    user = person(request)
    if request.method == "POST":
        form = MailPreferencesForm(request.POST)
        if form.is_valid():
            with shown_refusal(form):
                services.do_set_preferences(
                    user=user,
                    email=form.cleaned_data["email"],
                    language=form.cleaned_data["language"],
                    kinds=form.kinds(),
                )
                return redirect(request.path + "?saved=1")
        status = 400
    else:
        preference = selectors.preference_of(user)
        form = MailPreferencesForm(
            initial={
                "email": user.email,
                "language": preference.language or get_language(),
                **selectors.wanted_kinds(user),
            }
        )
        status = 200
    return render(
        request,
        "web/mail_preferences.html",
        {"form": form, "saved": request.GET.get("saved") == "1"},
        status=status,
    )


@csrf_exempt  # RFC 8058: a mail program posts without cookies; the signed token decides
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    try:
        found = services.check_token(token)
    except ApiError:
        raise Http404("not an unsubscribe link of this server") from None
    done = None
    if request.method == "POST":
        subscribe = request.POST.get("subscribe") == "1"
        services.do_unsubscribe(token=token, subscribe=subscribe)
        done = "subscribed" if subscribe else "unsubscribed"
    return render(
        request,
        "web/unsubscribe.html",
        {
            "token": token,
            "invite": found.kind == INVITE,
            "kind_label": MEMBER_KINDS.get(found.kind, ""),
            "name": found.user.username if found.user is not None else "",
            "done": done,
        },
    )


@login_required
@league_pages
@require_POST
def send_invite(request, slug: str):
    club = organized_club(request, slug)
    form = SendInviteForm(request.POST)
    if form.is_valid():
        with shown_refusal(form):
            services.do_send_invite(
                user=request.user,
                club=club,
                address=form.cleaned_data["address"],
                language=get_language(),
            )
            return redirect("web:invites", slug=club.slug)
    return render(request, "web/mail_send_invite.html", {"club": club, "form": form}, status=400)


@require_POST
def set_language(request):
    """Django's language switcher; a signed-in member's mail follows the choice too."""
    answer = django_set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated:
        services.do_remember_language(user=request.user, language=language)
    return answer
