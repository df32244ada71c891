"""The forms of what a member does for themself: join a club with a code, say whether
they can play a season's next round, register their own bots and enter them in a club.
They parse; the league's and the accounts' actions decide (``refusals.shown_refusal``)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class JoinClubForm(forms.Form):
    club = forms.SlugField(label=_("Club"), max_length=40)
    code = forms.CharField(label=_("Invite code"), max_length=16)


class AvailabilityForm(forms.Form):
    available = forms.TypedChoiceField(
        choices=(("yes", "yes"), ("no", "no")), coerce=lambda v: v == "yes"
    )
    player = forms.CharField(max_length=40, required=False)


class BotNameForm(forms.Form):
    name = forms.CharField(
        label=_("Name of the bot"),
        max_length=40,
        help_text=_("3 to 40 letters, digits or . _ -"),
    )


class EnterBotForm(forms.Form):
    def __init__(self, *args, clubs: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["club"] = forms.ChoiceField(label=_("Club"), choices=clubs)
