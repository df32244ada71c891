"""The challenges page ``/challenges``: a member's challenges (made by them or to them,
as the API lists them), their answers (accept, decline with a reason, cancel one's own;
declining and cancelling after a confirmation page), and a form to challenge three
players. Thin: ``server.matchmaking.challenges`` decides, its refusals are shown as
sentences (``shown_refusal``); who sees a challenge is the selectors' to say (its four
players; anyone else gets 404, as from the API)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from server.errors import ApiError, OutsideTerms
from server.matchmaking import challenges
from server.matchmaking.models import Challenge
from server.web.confirm import confirmation_page, confirmed
from server.web.forms.challenges import REASON_LABELS, ChallengeForm, DeclineForm
from server.web.once import once_per_form
from server.web.refusals import refusal_text, shown_refusal
from server.web.selectors import challenges as page_reads
from server.web.visitor import person


def challenge_refusal(err: ApiError) -> str:
    """The challenge services' refusals as a member reads them (their own messages are
    for programs: names, codes and English)."""
    if isinstance(err, OutsideTerms):
        term = page_reads.refused_term(err.player, err.term)
        if term is None:
            return _("%(bot)s publishes no terms: it takes no challenges.") % {"bot": err.player}
        return _("%(bot)s does not take this challenge by its published terms: %(term)s") % {
            "bot": err.player,
            "term": term,
        }
    if err.code == "validation_error":
        return _(
            "Check the names: four different accounts (you, your partner and two "
            "opponents), each the name of a member or a bot, none a club's computer player."
        )
    if err.code == "daily_limit":
        return _(
            "One of the four players has played as many challenge and open-seat games today "
            "as one account may: try again later."
        )
    if err.code == "one_seat_per_player":
        return _("At a rated table one person holds one seat: their own bots count as them.")
    if err.code == "no_longer_open":
        return _("This challenge is no longer open.")
    return refusal_text(err)


def _page(request, form: ChallengeForm | None = None, error: str | None = None, status=200):
    pending, closed = page_reads.challenges_page(request.user)
    context = {
        "pending": pending,
        "closed": closed,
        "form": form or ChallengeForm(),
        "decline_form": DeclineForm(),
        "challengeable": page_reads.challengeable(),
        "error": error,
    }
    return render(request, "web/challenges.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def challenges_page(request):
    person(request)
    if request.method == "GET":
        return _page(request)
    form = ChallengeForm(request.POST)
    status = 400
    if form.is_valid():
        with shown_refusal(form, text=challenge_refusal) as refusal:
            challenges.do_challenge(user=request.user, plan=form.plan())
            return redirect("web:challenges")
        status = refusal.status
    return _page(request, form=form, status=status)


def _readable(request, challenge_id: int) -> Challenge:
    """The challenge if the member is one of its players, else the 404 page (the API's)."""
    person(request)
    found = page_reads.challenge_of(request.user, challenge_id)
    if found is None:
        raise Http404("no such challenge")
    return found


def _answered(request, answer) -> object:
    """Run an answer (a service call); a refusal is the page with its sentence."""
    with shown_refusal(text=challenge_refusal) as refusal:
        answer()
        return redirect("web:challenges")
    return _page(request, error=refusal.text, status=refusal.status)


@login_required
@require_POST
def accept(request, challenge_id: int):
    _readable(request, challenge_id)
    return _answered(
        request, lambda: challenges.do_accept(user=request.user, challenge_id=challenge_id)
    )


@login_required
@require_POST
def decline(request, challenge_id: int):
    challenge = _readable(request, challenge_id)
    form = DeclineForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else "generic"
    if not confirmed(request):
        return confirmation_page(
            request,
            title=_("Decline the challenge of %(name)s?") % {"name": challenge.challenger.username},
            what_happens=[
                _("The challenge closes for all four players: no table is made."),
                _("Your reason: %(reason)s.") % {"reason": REASON_LABELS[reason]},
            ],
            button=_("Decline the challenge"),
            cancel=reverse("web:challenges"),
            fields={"reason": reason},
        )
    return _answered(
        request,
        lambda: challenges.do_decline(user=request.user, challenge_id=challenge_id, reason=reason),
    )


@login_required
@require_POST
def cancel(request, challenge_id: int):
    _readable(request, challenge_id)
    if not confirmed(request):
        return confirmation_page(
            request,
            title=_("Cancel your challenge?"),
            what_happens=[
                _("The challenge closes for all four players: no table is made."),
                _("To play them again, make a new challenge."),
            ],
            button=_("Cancel the challenge"),
            cancel=reverse("web:challenges"),
            fields={},
        )
    return _answered(
        request, lambda: challenges.do_cancel(user=request.user, challenge_id=challenge_id)
    )
