"""The organizer's forms: the club, its members and invites, its hosted players and
announcements, seasons and pairs, a round's check-in, deadline, substitutes, forfeits
and annulments. They parse; the league's actions decide, and their refusals come back
as form errors (``refusals.shown_refusal``)."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django import forms
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from engine.bots import LEVELS
from server.league import selectors as league
from server.league.actions.clubs import available_time_zones
from server.league.models import Club, Season


# -- times: typed in the club's time zone -------------------------------------------------------
def club_zone(club: Club | None) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(club.time_zone if club is not None else "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def in_zone(value: dt.datetime | None, zone: zoneinfo.ZoneInfo) -> dt.datetime | None:
    """A time typed without a zone (``datetime-local``) read in ``zone``. Django reads it in
    the server's zone (UTC): the wall-clock value is kept and the club's zone put on it."""
    if value is None:
        return None
    return timezone.make_naive(value, dt.UTC).replace(tzinfo=zone)


# -- the club ---------------------------------------------------------------------------------
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
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_("Deadlines and match times are shown in it (and in each reader's own)."),
        initial="UTC",
        required=False,
    )

    def clean_time_zone(self):
        return self.cleaned_data.get("time_zone") or "UTC"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        zones = self.fields["time_zone"]
        assert isinstance(zones, forms.ChoiceField)
        zones.choices = [(z, z) for z in sorted(available_time_zones())]

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


class AnnouncementForm(forms.Form):
    text = forms.CharField(
        label=_("Announcement"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": 500}),
        help_text=_("Plain text, up to 500 characters; shown on the club page."),
    )


# -- members, invites, hosted players -----------------------------------------------------------
class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=(("organizer", "organizer"), ("member", "member")))


class RemoveMemberForm(forms.Form):
    revoke_invite = forms.BooleanField(
        label=_("Also revoke the invite code they joined with"), required=False
    )


class InviteForm(forms.Form):
    single_use = forms.BooleanField(label=_("Single use"), required=False)
    expires_at = forms.DateTimeField(
        label=_("Expires at (optional)"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def __init__(self, *args, club: Club | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.zone = club_zone(club)
        self.fields["expires_at"].help_text = gettext("In the club's time zone (%(zone)s).") % {
            "zone": self.zone.key
        }

    def clean_expires_at(self):
        expires_at = in_zone(self.cleaned_data.get("expires_at"), self.zone)
        if expires_at is not None and expires_at <= timezone.now():
            raise forms.ValidationError(_("Pick a time in the future."))
        return expires_at


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


# -- seasons and pairs -------------------------------------------------------------------------
class SeasonDates(forms.Form):
    """A season's form with dates: it ends on or after the day it starts."""

    def clean(self):
        data = super().clean() or {}
        starts_on, ends_on = data.get("starts_on"), data.get("ends_on")
        if starts_on and ends_on and ends_on < starts_on:
            self.add_error("ends_on", _("The season ends before it starts."))
        return data


class SeasonForm(SeasonDates):
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
    duplicate = forms.BooleanField(
        label=_("Duplicate rounds: every table of a round plays the same deals"),
        required=False,
        help_text=_("Results compare how each table played the same cards."),
    )
    auto_substitute_after = forms.IntegerField(
        label=_("Automatic substitutes after (minutes, optional)"),
        required=False,
        min_value=1,
        max_value=24 * 60,
        help_text=_(
            "Once a round's deadline has passed, a seat away this long is handed to a "
            "computer player. Empty: never automatically."
        ),
    )


class EditSeasonForm(SeasonDates):
    name = forms.CharField(label=_("Name"), max_length=80)
    starts_on = forms.DateField(
        label=_("Starts on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=_("Ends on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )


class PairForm(forms.Form):
    name = forms.CharField(
        label=_("Pair name (optional)"), max_length=80, required=False, empty_value=""
    )

    def __init__(self, *args, members: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player_1"] = forms.ChoiceField(label=_("First player"), choices=members)
        self.fields["player_2"] = forms.ChoiceField(label=_("Second player"), choices=members)
        if len(members) > 1:  # the two lists do not start on the same name
            self.fields["player_2"].initial = members[1][0]

    def clean(self):
        data = super().clean() or {}
        if data.get("player_1") and data.get("player_1") == data.get("player_2"):
            self.add_error("player_2", _("Choose two different members."))
        return data

    @classmethod
    def for_club(cls, club: Club, data=None) -> PairForm:
        """Two of the club's members to pair."""
        members = [(m.user.username, _member_label(m.user)) for m in league.members_of(club)]
        return cls(data, members=members)


def _member_label(user) -> str:
    """A member in a choice: the name others see, with the login name when it differs."""
    if user.display_name and user.display_name != user.username:
        return f"{user.display_name} ({user.username})"
    return user.username


# -- rounds and their matches --------------------------------------------------------------------
class CheckInForm(forms.Form):
    def __init__(self, *args, choices: list[tuple[str, str]], field_name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.field_name = field_name
        self.fields[field_name] = forms.MultipleChoiceField(
            label=_("Present"), choices=choices, required=False, widget=forms.CheckboxSelectMultiple
        )

    @classmethod
    def for_season(cls, season: Season, data=None, initial=None) -> CheckInForm:
        """The season's entrants to tick: its pairs, or its members (bots flagged)."""
        if season.format == "pairs":
            choices = [(str(p.pk), p.name) for p in season.pairs.all()]
            return cls(data, choices=choices, field_name="pairs", initial=initial)
        choices = [
            (
                m.user.username,
                gettext("%(name)s (bot)") % {"name": m.user.shown_name}
                if m.user.is_bot
                else _member_label(m.user),
            )
            for m in league.members_of(season.club)
        ]
        return cls(data, choices=choices, field_name="players", initial=initial)


class AnnulForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 2})
    )


class DeadlineForm(forms.Form):
    """A round's deadline, typed in the club's time zone; "now" ends the wait at once
    (forfeits and automatic substitutes become possible)."""

    deadline = forms.DateTimeField(
        required=False, input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
    )
    action = forms.ChoiceField(choices=(("set", "set"), ("clear", "clear"), ("now", "now")))

    def __init__(self, *args, club: Club | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.zone = club_zone(club)

    def clean_deadline(self):
        return in_zone(self.cleaned_data.get("deadline"), self.zone)


class SubstituteForm(forms.Form):
    seat = forms.IntegerField(min_value=1, max_value=4)
    by = forms.RegexField(regex=r"\A(level|user):[A-Za-z0-9_.-]{1,40}\Z")
    reason = forms.CharField(required=False, max_length=500)
    confirm = forms.BooleanField()


class ForfeitForm(forms.Form):
    """A forfeit: its second step (``server.web.confirm``) names what happens."""

    seat = forms.IntegerField(min_value=1, max_value=4)
    reason = forms.CharField(max_length=500)
