"""The round page's organizer tools (issue #22): set a round's deadline, substitute a
seat, end a match by forfeit. Forms posted from ``web/round_match_actions.html``; the
league's actions decide (``server.league.actions.matches``, ``rounds``) and a refusal comes back as the
site's error page with the refusal's text. A required confirmation box stands for the
confirmation (no JavaScript needed)."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from server.errors import ApiError
from server.league import selectors as league
from server.league.actions import matches, rounds
from server.web.league_forms import refusal_text


class DeadlineForm(forms.Form):
    deadline = forms.DateTimeField(
        required=False, input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
    )
    action = forms.ChoiceField(choices=(("set", "set"), ("clear", "clear")))


class SubstituteForm(forms.Form):
    seat = forms.IntegerField(min_value=1, max_value=4)
    by = forms.RegexField(regex=r"\A(level|user):[A-Za-z0-9_.-]{1,40}\Z")
    reason = forms.CharField(required=False, max_length=500)
    confirm = forms.BooleanField()


class ForfeitForm(forms.Form):
    seat = forms.IntegerField(min_value=1, max_value=4)
    reason = forms.CharField(max_length=500)
    confirm = forms.BooleanField()


def _refused(request, message: str, status: int = 400):
    return render(
        request,
        "web/error.html",
        {"status": status, "title": _("Not done"), "message": message},
        status=status,
    )


def _back_to_round(match):
    return redirect(
        "web:round", slug=match.club.slug, season_id=match.season_id, number=match.round.number
    )


@login_required
@require_POST
def round_deadline(request, slug: str, season_id: int, number: int):
    form = DeadlineForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Check the values you entered."))
    try:
        club = league.club_for_reader(slug, request.user)
        round_ = league.round_of(league.season_of(club, season_id), number)
        deadline = None
        if form.cleaned_data["action"] == "set":
            deadline = form.cleaned_data["deadline"]
            if deadline is None:
                return _refused(request, _("Check the values you entered."))
            if timezone.is_naive(deadline):
                deadline = deadline.replace(tzinfo=dt.UTC)  # the page says UTC
        rounds.do_set_deadline(user=request.user, round_=round_, deadline=deadline)
    except ApiError as err:
        return _refused(request, refusal_text(err), err.status)
    return redirect("web:round", slug=slug, season_id=season_id, number=number)


@login_required
@require_POST
def match_substitute(request, match_id: int):
    form = SubstituteForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Check the values you entered."))
    kind, _sep, name = form.cleaned_data["by"].partition(":")
    try:
        match = league.match_for_reader(match_id, request.user)
        matches.do_substitute(
            user=request.user,
            match=match,
            seat=form.cleaned_data["seat"],
            username=name if kind == "user" else None,
            level=name if kind == "level" else None,
            reason=form.cleaned_data["reason"],
        )
    except ApiError as err:
        return _refused(request, refusal_text(err), err.status)
    return _back_to_round(match)


@login_required
@require_POST
def match_forfeit(request, match_id: int):
    form = ForfeitForm(request.POST)
    if not form.is_valid():
        return _refused(request, _("Check the values you entered."))
    try:
        match = league.match_for_reader(match_id, request.user)
        matches.do_forfeit(
            user=request.user,
            match=match,
            seat=form.cleaned_data["seat"],
            reason=form.cleaned_data["reason"],
        )
    except ApiError as err:
        return _refused(request, refusal_text(err), err.status)
    return _back_to_round(match)
