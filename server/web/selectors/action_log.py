"""The organizer action log as the log page reads it: each verb in the reader's language
(every verb of ``action_log.VERBS`` has a sentence: tests/web/test_organizer_pages.py)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

VERB_TEXT: dict[str, StrOrPromise] = {
    "club.create": _("created the club"),
    "club.edit": _("changed the club's name, description, visibility or time zone"),
    "member.join": _("joined with an invite code"),
    "member.promote": _("made a member an organizer"),
    "member.demote": _("made an organizer a member"),
    "member.remove": _("removed a member"),
    "member.readmit": _("allowed a removed member back"),
    "member.close": _("closed a member's account, at their request"),
    "invite.create": _("made an invite code"),
    "invite.revoke": _("revoked an invite code"),
    "bot.enter": _("entered a bot into the club"),
    "bot.host": _("added a server-hosted computer player"),
    "season.create": _("created a season"),
    "season.edit": _("changed a season's name or dates"),
    "season.close": _("closed a season"),
    "availability.override": _("said whether a member can play the next round"),
    "pair.register": _("registered a pair"),
    "round.open": _("opened a round"),
    "round.delete": _("deleted an open round"),
    "round.checkin": _("checked in who is present"),
    "round.deadline": _("set a round's deadline"),
    "round.start": _("started a round"),
    "match.annul": _("annulled a match"),
    "match.substitute": _("handed a seat to a substitute"),
    "match.forfeit": _("ended a match by forfeit"),
    "announcement.post": _("posted an announcement"),
    "announcement.remove": _("removed an announcement"),
}


@dataclass(frozen=True)
class LogLine:
    at: object
    actor: str | None
    verb: str
    text: str
    details: list[tuple[str, str]]


def _value(value) -> str:
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in value.items())
    if value is None:
        return "—"
    if value is True or value is False:
        return "✓" if value else "✗"
    return str(value)


def log_lines(entries) -> list[LogLine]:
    return [
        LogLine(
            e.at,
            e.actor.username if e.actor is not None else None,
            e.verb,
            str(VERB_TEXT.get(e.verb, e.verb)),
            [(k, _value(v)) for k, v in sorted(e.details.items())],
        )
        for e in entries
    ]
