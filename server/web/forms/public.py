"""The front door's forms: sign in and register. Registration goes through the accounts
service, the same one the API's ``/api/auth/register`` calls; its refusals become form
errors (``refusals.shown_refusal``)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from server import errors
from server.accounts import services
from server.web.refusals import shown_refusal

# The registration service's refusals, as the form shows them (keyed by class).
REGISTER_ERRORS: dict[type[errors.ApiError], StrOrPromise] = {
    errors.UsernameTaken: _("This name is taken."),
    errors.BadInvite: _("That invite code is unknown or used."),
    errors.RegistrationClosed: _("Registration is closed on this server, or by invite only."),
}


class SignInForm(AuthenticationForm):
    username = forms.CharField(
        label=_("Name"),
        max_length=40,
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    error_messages = {
        "invalid_login": _("Wrong name or password."),
        "inactive": _("This account is disabled."),
    }


class RegisterForm(forms.Form):
    username = forms.CharField(
        label=_("Login name"),
        max_length=40,
        help_text=_(
            "You sign in with it: 3 to 40 characters, Latin letters a-z (no accents), "
            "digits, dot, underscore or hyphen; no spaces."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "username"}),
    )
    display_name = forms.CharField(
        label=_("Name others see (optional)"),
        max_length=40,
        required=False,
        help_text=_("Any alphabet, spaces allowed: Фарид, Añá, Nur Aisyah."),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        max_length=200,
        help_text=_("At least 8 characters, not a common password."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    invite = forms.CharField(
        label=_("Server invite code (if registration is by invite)"), max_length=64, required=False
    )

    def clean_display_name(self):
        return checked_display_name(self.cleaned_data.get("display_name", ""))

    def register(self):
        """The new account, or None with the service's refusal attached to the form."""
        data = self.cleaned_data
        with shown_refusal(self, field="username", text=_name_refusal) as name:
            services.check_username(data["username"])
        if name.error is None:
            # Password refusals come from Django's validators, already in the active language.
            with shown_refusal(self, field=REGISTER_FIELDS, text=_register_refusal):
                return services.do_register(
                    username=data["username"],
                    password=data["password"],
                    invite=data["invite"] or None,
                    display_name=data["display_name"],
                )
        return None


REGISTER_FIELDS = {errors.UsernameTaken: "username", errors.ValidationError: "password"}


def checked_display_name(name: str) -> str:
    try:
        return services.clean_display_name(name)
    except errors.ValidationError:
        raise forms.ValidationError(
            _("Letters of any alphabet, digits, spaces and . _ - ' only, up to 40.")
        ) from None


class DisplayNameForm(forms.Form):
    display_name = forms.CharField(
        label=_("Name others see"),
        max_length=40,
        required=False,
        help_text=_(
            "Any alphabet, spaces allowed: Фарид, Añá, Nur Aisyah. Empty: your login name is shown."
        ),
    )


def _name_refusal(err: errors.ApiError) -> StrOrPromise:
    return REGISTER_ERRORS.get(type(err), _("This name cannot be used."))


def _register_refusal(err: errors.ApiError) -> StrOrPromise:
    return REGISTER_ERRORS.get(type(err), err.message)

    def clean_display_name(self):
        return checked_display_name(self.cleaned_data.get("display_name", ""))
