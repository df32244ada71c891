"""What a member does for themself: join a club (the home page's form with a code, or the
shareable invite link, which signs in or registers on the way), say whether they can
play a season's next round, and register their own bots and enter them in a club.
Thin: the league's and the accounts' actions decide, and their refusals are shown on
the page (``refusals.shown_refusal``)."""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from server import errors
from server.accounts import selectors as account_selectors
from server.accounts import services as account_services
from server.errors import ApiError, NotFound
from server.league import selectors as league
from server.league.actions import members, roles, seasons
from server.matchmaking import challenges
from server.matchmaking import selectors as matchmaking
from server.matchmaking.models import BotTerms
from server.web import throttling
from server.web.confirm import confirmation_page, confirmed
from server.web.forms.challenges import TermsForm
from server.web.forms.member import AvailabilityForm, BotNameForm, EnterBotForm, JoinClubForm
from server.web.forms.public import DisplayNameForm, RegisterForm, SignInForm
from server.web.once import once_per_form, sign_in_again
from server.web.refusals import league_pages, refusal_text, shown_refusal, too_many_attempts
from server.web.selectors import challenges as challenge_pages
from server.web.visitor import person, viewer


# -- joining a club ----------------------------------------------------------------------------
@login_required
@require_POST
@once_per_form
def join_club(request):
    form = JoinClubForm(request.POST)
    if form.is_valid():
        club = league.club_by_slug(form.cleaned_data["club"])
        with shown_refusal(form) as refusal:
            membership = members.do_join_club(
                user=request.user, club=club, code=form.cleaned_data["code"]
            )
            return redirect("web:club", slug=membership.club.slug)
        if refusal.code == "already_member" and club is not None:
            return redirect("web:club", slug=club.slug)  # a second submit: in already
    return render(request, "web/join.html", {"form": form}, status=400)


@require_http_methods(["GET", "POST"])
@once_per_form(on_repeat=sign_in_again)
def join_link(request, slug: str, code: str):
    """The shareable invite link: sign in or register, and join, in one step. An unknown
    club or code: a 404 page saying so; a revoked, used or expired code: a page saying
    the invite is no longer valid and who sent it; a member: a page saying so; someone
    an organizer removed: the refusal, whatever the code."""
    club = league.club_by_slug(slug)
    try:
        if club is None:
            raise NotFound()
        members.check_invite(club, code)
    except ApiError as err:
        return _invite_not_valid(request, club, code, err)
    user = viewer(request)
    if user is not None and request.method == "GET":
        membership = roles.membership_of(club, user)
        if membership is not None:
            return render(request, "web/join_member.html", {"club": club})
        if league.is_removed(club, user):
            return _join_refused(request, club, errors.RemovedFromClub())
    user = viewer(request)
    signin = SignInForm(request, data=None)
    register = RegisterForm()
    error = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "signin" and user is None:
            wait = throttling.wait_seconds(
                request, throttling.SIGN_IN, {"username": request.POST.get("username", "")}
            )
            if wait is not None:
                return too_many_attempts(request, wait)
            signin = SignInForm(request, data=request.POST)
            if signin.is_valid():
                user = signin.get_user()
                login(request, user)
        elif action == "register" and user is None:
            wait = throttling.wait_seconds(request, throttling.REGISTER, {})
            if wait is not None:
                return too_many_attempts(request, wait)
            register = RegisterForm(request.POST)
            if register.is_valid():
                user = register.register()
                if user is not None:
                    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        if user is not None:
            with shown_refusal() as refusal:
                members.do_join_club(user=user, club=club, code=code)
                return redirect("web:club", slug=club.slug)
            if refusal.code == "already_member":
                return redirect("web:club", slug=club.slug)
            if refusal.error is not None and refusal.code == "removed_from_club":
                return _join_refused(request, club, refusal.error)
            error = refusal.text
    return render(
        request,
        "web/join_link.html",
        {"club": club, "code": code, "signin": signin, "register": register, "error": error},
        status=400 if request.method == "POST" else 200,
    )


def _invite_not_valid(request, club, code: str, err: ApiError):
    """A link that joins no one: unknown (404), or no longer valid (410), with whom to ask."""
    invite = league.invite_of(club, code) if club is not None else None
    if invite is None:
        message = _("No such invite: check the link, or ask the person who sent it for a new one.")
        return render(
            request,
            "web/error.html",
            {"status": 404, "title": _("No such invite"), "message": message},
            status=404,
        )
    message = _(
        "This invite to %(club)s is no longer valid (%(why)s). Ask %(who)s, who made it, or "
        "another organizer of the club for a new link."
    ) % {"club": club.name, "why": refusal_text(err), "who": invite.created_by.shown_name}
    return render(
        request,
        "web/error.html",
        {"status": 410, "title": _("This invite is no longer valid"), "message": message},
        status=410,
    )


def _join_refused(request, club, err: ApiError):
    return render(
        request,
        "web/error.html",
        {
            "status": err.status,
            "title": _("You cannot join this club"),
            "message": refusal_text(err),
        },
        status=err.status,
    )


# -- the name others see --------------------------------------------------------------------------
@login_required
@require_http_methods(["GET", "POST"])
def display_name(request):
    """The member's own display name, in any alphabet (the login name stays)."""
    person(request)
    form = DisplayNameForm(
        request.POST or None, initial={"display_name": request.user.display_name}
    )
    if request.method == "POST" and form.is_valid():
        account_services.do_set_display_name(
            user=request.user, display_name=form.cleaned_data["display_name"]
        )
        return redirect("web:display_name")
    status = 400 if request.method == "POST" else 200
    return render(request, "web/display_name.html", {"form": form}, status=status)


# -- availability ---------------------------------------------------------------------------------
@login_required
@league_pages
@require_POST
def set_availability(request, slug: str, season_id: int):
    """A member marks themselves (or an organizer marks a member) for the next round."""
    club = league.club_for_reader(slug, request.user)
    season = league.season_for_reader(club, season_id)
    form = AvailabilityForm(request.POST)
    if not form.is_valid():
        raise Http404("bad form")
    player = form.cleaned_data["player"] or None
    seasons.do_set_availability(
        user=request.user, season=season, available=form.cleaned_data["available"], username=player
    )
    back = request.POST.get("next", "")
    if back.startswith(f"/clubs/{club.slug}/") and "//" not in back:
        return redirect(back)
    return redirect("web:club", slug=club.slug)


# -- a member's own bots ----------------------------------------------------------------------------
def _bots_page(request, form=None, token=None, status=200, error=None, terms_form=None):
    """``terms_form``: a bot's terms form as posted (with its errors), kept on the page."""
    user = request.user
    bots = list(account_selectors.bots_of(user))
    published = matchmaking.terms_of(bots)
    clubs = [
        (c.slug, c.name)
        for c in league.visible_clubs(user)
        .filter(memberships__user=user, memberships__active=True)
        .order_by("name")
    ]
    entered: dict[str, list[str]] = {}
    for bot in bots:
        entered[bot.username] = [
            m.club.name for m in bot.memberships.filter(active=True).select_related("club")
        ]
    return render(
        request,
        "web/bots.html",
        {
            "bots": [
                {
                    "name": b.username,
                    "clubs": entered[b.username],
                    "terms": _terms_shown(published.get(b.pk)),
                    "terms_form": _terms_form(b, published.get(b.pk), terms_form),
                }
                for b in bots
            ],
            "form": form or BotNameForm(),
            "enter_form": EnterBotForm(clubs=clubs),
            "has_clubs": bool(clubs),
            "token": token,
            "error": error,
        },
        status=status,
    )


@login_required
@league_pages
@require_http_methods(["GET", "POST"])
def bots(request):
    person(request)
    if request.method == "GET":
        return _bots_page(request)
    form = BotNameForm(request.POST)
    if form.is_valid():
        with shown_refusal(form, field="name", text=_bot_refusal):
            grant = account_services.do_register_bot(
                owner=request.user, name=form.cleaned_data["name"]
            )
            return _bots_page(request, token={"name": grant.user.username, "key": grant.key})
    return _bots_page(request, form=form, status=400)


def _terms_shown(terms: BotTerms | None) -> list[str] | None:
    return None if terms is None else challenge_pages.terms_lines(terms)


def _terms_form(bot, terms: BotTerms | None, posted: TermsForm | None) -> TermsForm:
    if posted is not None and posted.bot == bot.username:
        return posted
    initial = {f: getattr(terms, f) for f in TermsForm.base_fields} if terms else None
    return TermsForm(bot=bot.username, initial=initial)


def _bot_refusal(err: ApiError) -> str:
    if err.code == "username_taken":
        return _("This name is taken.")
    if err.code == "quota_exceeded":
        return _("You own as many bots as a member may.")
    if err.code == "validation_error":
        return _("3 to 40 letters, digits or . _ -")
    return refusal_text(err)


@login_required
@league_pages
@require_POST
def bot_token(request, name: str):
    person(request)
    try:
        if request.POST.get("action") == "revoke":
            account_services.do_revoke_bot_tokens(owner=request.user, bot_name=name)
            return redirect("web:bots")
        grant = account_services.do_rotate_bot_token(owner=request.user, bot_name=name)
    except NotFound:
        raise Http404("no such bot of yours") from None
    return _bots_page(request, token={"name": grant.user.username, "key": grant.key})


@login_required
@league_pages
@require_POST
@once_per_form
def enter_bot(request, name: str):
    person(request)
    slug = request.POST.get("club", "")
    club = league.club_for_reader(slug, request.user)
    with shown_refusal(forbidden_page=True) as refusal:
        members.do_enter_bot(user=request.user, club=club, bot_name=name)
        return redirect("web:bots")
    return _bots_page(request, status=400, error=refusal.text)


# -- a bot's terms: which challenges it takes ---------------------------------------------------
def _own_bot(request, name: str):
    """One of the member's own bots (the bots page lists no other), else 404."""
    person(request)
    bot = account_selectors.bots_of(request.user).filter(username=name).first()
    if bot is None:
        raise Http404("no such bot of yours")
    return bot


def _terms_refusal(err: ApiError) -> str:
    if err.code == "validation_error":
        return _(
            "Take casual games, rated games or both, with the fewest seconds per move no "
            "more than the most."
        )
    return refusal_text(err)


@login_required
@league_pages
@require_POST
def publish_terms(request, name: str):
    """The bots page's terms form: publish or change what challenges the bot takes."""
    bot = _own_bot(request, name)
    form = TermsForm(request.POST, bot=bot.username)
    status = 400
    if form.is_valid():
        with shown_refusal(form, text=_terms_refusal) as refusal:
            challenges.do_publish_terms(user=request.user, bot=bot, terms=form.terms())
            return redirect("web:bots")
        status = refusal.status
    return _bots_page(request, status=status, terms_form=form)


@login_required
@league_pages
@require_POST
def withdraw_terms(request, name: str):
    """Withdraw the bot's terms (it takes no challenges), after a confirmation page."""
    bot = _own_bot(request, name)
    challenges.check_may_publish(request.user, bot)
    if not confirmed(request):
        return confirmation_page(
            request,
            title=_("Withdraw the terms of %(name)s?") % {"name": bot.username},
            what_happens=[
                _("%(name)s takes no challenges until you publish its terms again.")
                % {"name": bot.username},
                _("Challenges already made to it stay open for its answer."),
            ],
            button=_("Withdraw its terms"),
            cancel=reverse("web:bots"),
            fields={},
        )
    challenges.do_withdraw_terms(user=request.user, bot=bot)
    return redirect("web:bots")
