"""Forms of the league pages. They parse; the league's services decide (who may act,
what is allowed) and their refusals come back as form errors."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

# The league's refusal codes, as a member reads them (fallback: the service's message).
REFUSALS = {
    "not_a_member": _("Only the club's members may do this."),
    "organizer_only": _("Only the club's organizers may do this."),
    "club_members_only": _("This club's pages are for its members."),
    "invite_invalid": _("No such invite code for this club."),
    "invite_expired": _("This invite code has expired."),
    "invite_used": _("This single-use invite code was used already."),
    "already_member": _("You are a member of this club already."),
    "round_started": _("This round has started already."),
    "round_in_progress": _("The previous round is not finished."),
    "not_enough_players": _("Too few players are checked in to make one table."),
    "not_enough_house_bots": _("The club has too few free house bots to fill the seats."),
    "one_seat_per_player": _("A member and their own bot cannot both play a round."),
    "match_in_progress": _("The match is in progress."),
    "match_over": _("The match is over."),
    "match_annulled": _("The match was annulled."),
    "not_a_league_match": _("Only league matches are annulled."),
    "wrong_format": _("This does not fit the season's format."),
}


def refusal_text(err) -> str:
    return str(REFUSALS.get(err.code, err.message))


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


class InviteForm(forms.Form):
    single_use = forms.BooleanField(label=_("Single use"), required=False)
    expires_at = forms.DateTimeField(
        label=_("Expires at (optional)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )


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
