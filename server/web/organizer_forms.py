"""Forms of the organizer pages (issue #21). They parse; the league's services decide, and
their refusals come back as form errors (``league_forms.refusal_text``)."""

from __future__ import annotations

from django import forms
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from engine.bots import LEVELS


class ClubForm(forms.Form):
    VISIBILITIES = (
        ("public", _("Public: anyone may read its pages")),
        ("members", _("Members only: invisible to everyone else")),
    )

    name = forms.CharField(label=_("Name"), max_length=80)
    slug = forms.SlugField(
        label=_("Address"),
        max_length=40,
        required=False,
        help_text=_("Letters, digits and - only; left empty, it is made from the name."),
    )
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    visibility = forms.ChoiceField(
        label=_("Who may read it"), choices=VISIBILITIES, widget=forms.RadioSelect
    )

    def clean(self):
        data = super().clean() or {}
        if not data.get("slug") and data.get("name"):
            data["slug"] = slugify(data["name"])[:40].strip("-")
            if not data["slug"]:
                self.add_error("slug", _("Choose an address for the club."))
        return data


class EditClubForm(ClubForm):
    """The same fields but the address, which stays."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["slug"]

    def clean(self):
        return forms.Form.clean(self) or {}


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=(("organizer", "organizer"), ("member", "member")))


class RemoveMemberForm(forms.Form):
    revoke_invite = forms.BooleanField(
        label=_("Also revoke the invite code they joined with"), required=False
    )


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


LEVEL_LABELS = {
    "random": _("random (plays any legal tile)"),
    "greedy": _("greedy"),
    "medium": _("medium"),
    "strong": _("strong"),
    "expert": _("expert"),
}


class HostedPlayerForm(forms.Form):
    level = forms.ChoiceField(
        label=_("Level"),
        choices=[(lv, LEVEL_LABELS.get(lv, lv)) for lv in LEVELS],
        initial="medium",
    )


class EditSeasonForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    starts_on = forms.DateField(
        label=_("Starts on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=_("Ends on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        data = super().clean() or {}
        starts_on, ends_on = data.get("starts_on"), data.get("ends_on")
        if starts_on and ends_on and ends_on < starts_on:
            self.add_error("ends_on", _("The season ends before it starts."))
        return data


class PairForm(forms.Form):
    name = forms.CharField(
        label=_("Pair name (optional)"), max_length=80, required=False, empty_value=""
    )

    def __init__(self, *args, members: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player_1"] = forms.ChoiceField(label=_("First player"), choices=members)
        self.fields["player_2"] = forms.ChoiceField(label=_("Second player"), choices=members)


class AvailabilityForm(forms.Form):
    available = forms.TypedChoiceField(
        choices=(("yes", "yes"), ("no", "no")), coerce=lambda v: v == "yes"
    )
    player = forms.CharField(max_length=40, required=False)


class AnnouncementForm(forms.Form):
    text = forms.CharField(
        label=_("Announcement"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": 500}),
        help_text=_("Plain text, up to 500 characters; shown on the club page."),
    )
