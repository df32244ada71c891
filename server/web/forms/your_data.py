"""The "Your data" page's form: closing an account asks for the password and a tick."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from server import errors

# The closing service's refusals, as the page shows them (keyed by class).
CLOSE_ERRORS: dict[type[errors.ApiError], StrOrPromise] = {
    errors.WrongPassword: _("Wrong password."),
    errors.AccountInPlay: _(
        "You (or one of your bots) hold a seat in a match that is going on: finish it or "
        "leave the table first."
    ),
    errors.LastOrganizer: _(
        "You are the last organizer of a club with other members: make one of them an "
        "organizer first."
    ),
}


class CloseAccountForm(forms.Form):
    understood = forms.BooleanField(
        label=_("I understand that closing my account cannot be undone."), required=True
    )
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        max_length=200,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
