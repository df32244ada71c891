"""The forms of a bot's published terms and of challenges (``server.matchmaking``): they
parse, with the API's fields and defaults; ``challenges`` decides (``shown_refusal``)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from server.matchmaking.challenges import (
    DECLINE_REASONS,
    DEFAULT_MINUTES,
    MAX_MINUTES,
    ChallengePlan,
)

WHO_CHOICES = (("any", _("anyone")), ("people", _("people only")), ("bots", _("bots only")))

# A label for each of the services' reasons (tests/web/test_challenge_pages.py checks that
# every reason has one).
REASON_LABELS = {
    "generic": _("No reason given"),
    "later": _("Not now, later"),
    "too_fast": _("Too little time per move"),
    "too_slow": _("Too much time per move"),
    "rated": _("Not a rated game"),
    "casual": _("Not a casual game"),
    "no_bots": _("Not with bots"),
    "only_bots": _("Only with bots"),
    "partner": _("Not with this partner"),
    "too_many_games": _("Too many games already"),
}


def _seconds(label, initial: int) -> forms.IntegerField:
    return forms.IntegerField(label=label, min_value=1, max_value=3600, initial=initial)


def _hour(label) -> forms.IntegerField:
    return forms.IntegerField(label=label, min_value=0, max_value=23, initial=0)


class TermsForm(forms.Form):
    """``PUT /api/bots/{name}/terms``'s fields with its defaults (the initial values)."""

    casual = forms.BooleanField(label=_("Casual games"), required=False, initial=True)
    rated = forms.BooleanField(label=_("Rated games"), required=False, initial=False)
    opponents = forms.ChoiceField(label=_("Opponents"), choices=WHO_CHOICES, initial="any")
    partners = forms.ChoiceField(label=_("Partners"), choices=WHO_CHOICES, initial="any")
    min_seconds_per_move = _seconds(_("Fewest seconds per move"), 1)
    max_seconds_per_move = _seconds(_("Most seconds per move"), 600)
    games_per_day = forms.IntegerField(
        label=_("Challenge games a day"), min_value=0, max_value=10000, initial=50
    )
    hours_from = _hour(_("From (hour, UTC)"))
    hours_to = _hour(_("To (hour, UTC)"))

    def __init__(self, *args, bot: str, **kwargs):
        # one form per bot on the bots page: its own ids (auto_id) keep labels apart
        kwargs["auto_id"] = f"terms-{bot}-%s"
        super().__init__(*args, **kwargs)
        self.bot = bot

    def terms(self) -> dict:
        return dict(self.cleaned_data)


class ChallengeForm(forms.Form):
    """``POST /api/challenges``'s fields with its defaults: you sit at seat 1, your partner
    at 3, the opponents at 2 and 4."""

    partner = forms.CharField(label=_("Your partner"), max_length=40)
    opponent_1 = forms.CharField(label=_("First opponent"), max_length=40)
    opponent_2 = forms.CharField(label=_("Second opponent"), max_length=40)
    kind = forms.ChoiceField(
        label=_("Game"),
        choices=(("casual", _("Casual")), ("rated", _("Rated"))),
        initial="casual",
    )
    seconds_per_move = _seconds(_("Seconds per move"), 30)
    minutes = forms.IntegerField(
        label=_("Minutes to answer"),
        min_value=1,
        max_value=MAX_MINUTES,
        initial=DEFAULT_MINUTES,
        help_text=_("Unanswered this long, the challenge expires."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("partner", "opponent_1", "opponent_2"):
            # the bots that take challenges, offered as the names are typed (the page's list)
            self.fields[name].widget.attrs.update(list="challengeable", autocomplete="off")

    def plan(self) -> ChallengePlan:
        data = self.cleaned_data
        return ChallengePlan(
            partner=data["partner"],
            opponents=(data["opponent_1"], data["opponent_2"]),
            rated=data["kind"] == "rated",
            seconds_per_move=data["seconds_per_move"],
            minutes=data["minutes"],
        )


class DeclineForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("Reason"),
        choices=[(r, REASON_LABELS[r]) for r in DECLINE_REASONS],
        initial="generic",
    )
