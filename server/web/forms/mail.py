"""The forms of members' mail: a member's address, language and kinds of mail, and an
organizer's invite sent to an address. They parse; ``server.mail.services`` decides."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from server.mail import selectors
from server.mail.kinds import MEMBER_KINDS


class MailPreferencesForm(forms.Form):
    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        help_text=_("Empty: no mail at all. Only the server's operators see it."),
    )
    language = forms.ChoiceField(label=_("Language of the mail"), choices=settings.LANGUAGES)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for kind, label in MEMBER_KINDS.items():
            self.fields[kind] = forms.BooleanField(label=label, required=False)

    @property
    def kind_fields(self):
        return [self[kind] for kind in MEMBER_KINDS]

    def kinds(self) -> dict[str, bool]:
        return {kind: self.cleaned_data[kind] for kind in MEMBER_KINDS}


class SendInviteForm(forms.Form):
    address = forms.EmailField(
        label=_("Email address"),
        help_text=_("They get a link that works once, for 14 days, in your language."),
    )

    def clean_address(self) -> str:
        address = self.cleaned_data["address"].strip()
        if selectors.invite_refused(address):
            raise forms.ValidationError(_("This address asked to receive no invites."))
        return address
