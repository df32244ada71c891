"""The forms of the ways in to a casual table: a new table against the computer (a level,
and which seats stay open for friends), a seat taken from a link, a table found by its
code. They parse; the tables' and the league's services decide (``shown_refusal``)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.bots import LEVELS
from server.web.forms.organizer import LEVEL_LABELS

COMPUTER, FRIEND = "computer", "friend"
OTHER_SEATS = (2, 3, 4)  # seat 1 is the table's creator
SEAT_LABELS = {
    2: _("Seat 2 (opponent, team B)"),
    3: _("Seat 3 (your partner, team A)"),
    4: _("Seat 4 (opponent, team B)"),
}


class NewTableForm(forms.Form):
    level = forms.ChoiceField(
        label=_("Level of the computer players"),
        choices=[(lv, LEVEL_LABELS.get(lv, lv)) for lv in LEVELS],
        initial="medium",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for n in OTHER_SEATS:
            self.fields[f"seat_{n}"] = forms.ChoiceField(
                label=SEAT_LABELS[n],
                choices=[(COMPUTER, _("a computer player")), (FRIEND, _("a friend (open seat)"))],
                initial=COMPUTER,
                widget=forms.RadioSelect,
            )

    def seat_fields(self):
        return [self[f"seat_{n}"] for n in OTHER_SEATS]

    def open_seats(self) -> list[int]:
        return [n for n in OTHER_SEATS if self.cleaned_data[f"seat_{n}"] == FRIEND]


class TableCodeForm(forms.Form):
    code = forms.RegexField(
        label=_("Table code"), regex=r"^\s*[A-Za-z0-9]{1,12}\s*$", max_length=20, strip=True
    )

    def clean_code(self) -> str:
        return self.cleaned_data["code"].strip().upper()


class TakeSeatForm(forms.Form):
    seat = forms.TypedChoiceField(choices=[(n, n) for n in (1, 2, 3, 4)], coerce=int)
