"""What the challenges page and the bots page show of challenges and bots' terms, read
through ``server.matchmaking.selectors`` (which say who sees a challenge: its four
players, as the API). Names and answers only, in the reader's language."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django_stubs_ext import StrOrPromise

from server.accounts.models import User
from server.matchmaking import selectors as matchmaking
from server.matchmaking.models import BotTerms, Challenge
from server.web.forms.challenges import REASON_LABELS, WHO_CHOICES

STATUSES: dict[str, StrOrPromise] = {
    "pending": gettext_lazy("waiting for answers"),
    "started": gettext_lazy("started"),
    "declined": gettext_lazy("declined"),
    "cancelled": gettext_lazy("cancelled"),
    "expired": gettext_lazy("expired"),
}
ANSWERS: dict[str, StrOrPromise] = {
    "pending": gettext_lazy("no answer yet"),
    "accepted": gettext_lazy("accepted"),
    "declined": gettext_lazy("declined"),
}
WHO = dict(WHO_CHOICES)


def terms_lines(terms: BotTerms) -> list[str]:
    """A bot's published terms as sentences."""
    return list(terms_by_name(terms).values())


def terms_by_name(terms: BotTerms) -> dict[str, str]:
    """A bot's published terms as sentences, by the name a refusal gives the term
    (``OutsideTerms.term``)."""
    if terms.casual and terms.rated:
        kinds = _("Casual and rated games.")
    elif terms.rated:
        kinds = _("Rated games only.")
    else:
        kinds = _("Casual games only.")
    hours = (
        _("At any hour.")
        if terms.hours_from == terms.hours_to
        else _("From %(low)02d:00 to %(high)02d:00 UTC.")
        % {"low": terms.hours_from, "high": terms.hours_to}
    )
    return {
        "kinds": kinds,
        "players": _("Opponents: %(who)s. Partners: %(partners)s.")
        % {"who": WHO[terms.opponents], "partners": WHO[terms.partners]},
        "seconds": ngettext(
            "%(low)s to %(high)s second per move.",
            "%(low)s to %(high)s seconds per move.",
            terms.max_seconds_per_move,
        )
        % {"low": terms.min_seconds_per_move, "high": terms.max_seconds_per_move},
        "games_per_day": ngettext(
            "At most %(n)s challenge game a day.",
            "At most %(n)s challenge games a day.",
            terms.games_per_day,
        )
        % {"n": terms.games_per_day},
        "hours": hours,
    }


def refused_term(bot_name: str, term: str | None) -> str | None:
    """The sentence of ``bot_name``'s published terms that a challenge fell outside,
    None when it publishes none (any more)."""
    terms = matchmaking.terms_of_bot(bot_name)
    if terms is None or term is None:
        return None
    return terms_by_name(terms).get(term)


def challengeable() -> list[tuple[str, list[str]]]:
    """The bots that take challenges (the API's ``GET /api/bots/terms``), with their terms."""
    return [(t.bot.username, terms_lines(t)) for t in matchmaking.published_terms()]


@dataclass(frozen=True)
class SeatRow:
    number: int
    player: str
    is_bot: bool
    you: bool
    answer: StrOrPromise
    reason: StrOrPromise


@dataclass(frozen=True)
class ChallengeRow:
    challenge: Challenge
    status: StrOrPromise
    seats: list[SeatRow]
    mine: bool  # made by the reader: they may cancel it
    to_answer: bool  # the reader's seat still waits for their answer
    table: str | None  # a started challenge's table (its play page)


def _row(user: User, challenge: Challenge) -> ChallengeRow:
    seats = sorted(challenge.seats.all(), key=lambda s: s.number)
    rows = [
        SeatRow(
            number=s.number,
            player=s.player.username,
            is_bot=s.player.is_bot,
            you=s.player_id == user.pk,
            answer=ANSWERS.get(s.answer, s.answer),
            reason=REASON_LABELS.get(s.reason, "") if s.reason else "",
        )
        for s in seats
    ]
    pending = challenge.status == "pending"
    return ChallengeRow(
        challenge=challenge,
        status=STATUSES.get(challenge.status, challenge.status),
        seats=rows,
        mine=pending and challenge.challenger_id == user.pk,
        to_answer=pending and any(s.player_id == user.pk and s.answer == "pending" for s in seats),
        table=challenge.table.code if challenge.table is not None else None,
    )


def challenges_page(user: User) -> tuple[list[ChallengeRow], list[ChallengeRow]]:
    """The reader's pending challenges, then the latest closed ones (the API's list)."""
    rows = [_row(user, c) for c in matchmaking.challenges_of(user)]
    return [r for r in rows if r.challenge.status == "pending"], [
        r for r in rows if r.challenge.status != "pending"
    ]


def challenge_of(user: User, challenge_id: int) -> Challenge | None:
    """The challenge if ``user`` is one of its four players (the API's rule), else None."""
    return matchmaking.challenge_for(user, challenge_id)
