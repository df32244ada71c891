"""The organizer action log's verbs: the one list (docs/league.md, "Action log").

A verb is a short stable code, ``<subject>.<what happened>``. It is part of the API
(``GET /api/clubs/{slug}/log``): verbs are added, never renamed or reused for something
else. ``record_action``, the one writer of the log, refuses a verb that is not listed
here, and a test holds docs/league.md to list every one of them.
"""

from __future__ import annotations

from django.db import transaction

from server.accounts.models import User
from server.league.models import Club, ClubAction

# verb -> what the entry says happened (its ``details`` are documented in docs/league.md)
VERBS: dict[str, str] = {
    "club.create": "created the club",
    "club.edit": "changed the club's name, description, visibility or time zone",
    "member.join": "joined with an invite code",
    "member.promote": "made a member an organizer",
    "member.demote": "made an organizer a member",
    "member.remove": "removed a member (a bot or a hosted player too)",
    "member.readmit": "took a removed member off the removed list: they may join again",
    "member.close": "closed their account: the name is a pseudonym now (server, no actor)",
    "invite.create": "made an invite code",
    "invite.revoke": "revoked an invite code",
    "bot.enter": "entered a bot into the club",
    "bot.host": "added a server-hosted computer player",
    "season.create": "created a season",
    "season.edit": "changed a season's name or dates",
    "season.close": "closed (archived) a season",
    "pair.register": "registered a pair for a pairs season",
    "round.open": "opened the next round",
    "round.delete": "deleted an open round that had no table",
    "round.checkin": "checked in who is present",
    "round.deadline": "set a round's deadline",
    "round.start": "drew a round and created its tables",
    "match.annul": "annulled a match",
    "match.substitute": "handed a seat to a substitute",
    "match.forfeit": "ended a match by forfeit",
    "availability.override": "said whether a member can play the next round, for them",
    "announcement.post": "posted an announcement",
    "announcement.remove": "removed an announcement",
}

# Listed in VERBS, documented, and written by no service (none today; a verb added
# before the action that writes it goes here).
NOT_YET_WRITTEN: frozenset[str] = frozenset()


def verb_family(verb: str) -> str:
    """``member.remove`` -> ``member``: what the log's ``?verb=`` filter may name."""
    return verb.split(".", 1)[0]


FAMILIES = frozenset(verb_family(v) for v in VERBS)


def record_action(*, club: Club, actor: User | None, verb: str, **details) -> ClubAction:
    """One entry of the club's action log. Called inside the transaction of the action
    it records, so a refused (rolled back) action leaves no entry; ``actor`` None is the
    server itself. ``details`` name the subject as data (usernames, numbers, reasons)."""
    if verb not in VERBS:
        raise ValueError(f"{verb!r} is not in action_log.VERBS")
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("record_action belongs inside the action's transaction")
    return ClubAction.objects.create(club=club, actor=actor, verb=verb, details=details)
