"""Forms of the league pages. They parse; the league's services decide (who may act,
what is allowed) and their refusals come back as form errors."""

from __future__ import annotations

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from server import errors

# The refusals a league page's form can receive, as a member reads them; keyed by class,
# so the codes come from server.errors. tests/web/test_league_pages.py fails when a
# league refusal has no text here (or is not listed there as one no form can receive).
REFUSALS: dict[type[errors.ApiError], StrOrPromise] = {
    errors.ValidationError: _("Check the values you entered."),
    errors.PermissionDenied: _("Your account may not do this."),
    errors.NotAMember: _("Only the club's members may do this."),
    errors.OrganizerOnly: _("Only the club's organizers may do this."),
    errors.InviteInvalid: _("No such invite code for this club."),
    errors.InviteExpired: _("This invite code has expired."),
    errors.InviteUsed: _("This single-use invite code was used already."),
    errors.AlreadyMember: _("You are a member of this club already."),
    errors.RoundStarted: _("This round has started already."),
    errors.RoundInProgress: _("The previous round is not finished."),
    errors.SeasonClosed: _("This season is closed."),
    errors.LastOrganizer: _("A club keeps at least one organizer."),
    errors.TooManyHostedPlayers: _("The club has as many computer players as it may."),
    errors.NotYourBot: _("That bot is not yours."),
    errors.AlreadyInPair: _("One of them is in a pair of this season already."),
    errors.SlugTaken: _("This address is taken: choose another."),
    errors.NotEnoughPlayers: _("Too few players are checked in to make one table."),
    errors.NotEnoughHouseBots: _("The club has too few free house bots to fill the seats."),
    errors.OneSeatPerPlayer: _("A member and their own bot cannot both play a round."),
    errors.MatchInProgress: _("The match is in progress."),
    errors.MatchOver: _("The match is over."),
    errors.MatchAnnulled: _("The match was annulled."),
    errors.NotALeagueMatch: _("Only league matches are annulled."),
    errors.WrongFormat: _("This does not fit the season's format."),
    errors.DeadlineNotPassed: _("The round's deadline has not passed yet."),
    errors.NotSubstitutable: _(
        "This member cannot take the seat: not in the club, or seated in this round."
    ),
    errors.MatchForfeited: _("The match ended by forfeit."),
    errors.TooManyClubs: _("You have created as many clubs as one account may."),
    errors.TooManySeasons: _("The club has as many seasons as a club may have."),
    errors.TooManyInvites: _(
        "The club has as many open invite codes as it may have: wait until one expires."
    ),
    errors.TooManyRounds: _("The season has as many rounds as a season may have."),
}


def refusal_text(err: errors.ApiError) -> str:
    return str(REFUSALS.get(type(err), err.message))


class JoinClubForm(forms.Form):
    club = forms.SlugField(label=_("Club"), max_length=40)
    code = forms.CharField(label=_("Invite code"), max_length=16)


class SeasonForm(forms.Form):
    FORMATS = (("individual", _("Individual (partners rotate)")), ("pairs", _("Fixed pairs")))

    name = forms.CharField(label=_("Name"), max_length=80)
    format = forms.ChoiceField(label=_("Format"), choices=FORMATS)
    starts_on = forms.DateField(
        label=_("Starts on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=_("Ends on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    fill_with_bots = forms.BooleanField(
        label=_("House bots fill empty seats instead of byes"), required=False
    )

    def clean(self):
        data = super().clean() or {}
        starts_on, ends_on = data.get("starts_on"), data.get("ends_on")
        if starts_on and ends_on and ends_on < starts_on:
            self.add_error("ends_on", _("The season ends before it starts."))
        return data


class InviteForm(forms.Form):
    single_use = forms.BooleanField(label=_("Single use"), required=False)
    expires_at = forms.DateTimeField(
        label=_("Expires at (optional)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def clean_expires_at(self):
        expires_at = self.cleaned_data.get("expires_at")
        if expires_at is not None and expires_at <= timezone.now():
            raise forms.ValidationError(_("Pick a time in the future."))
        return expires_at


class CheckInForm(forms.Form):
    def __init__(self, *args, choices: list[tuple[str, str]], field_name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.field_name = field_name
        self.fields[field_name] = forms.MultipleChoiceField(
            label=_("Present"), choices=choices, required=False, widget=forms.CheckboxSelectMultiple
        )


class AnnulForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 2})
    )
