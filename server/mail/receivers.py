"""How mail follows the league without the league knowing mail: receivers of what the
league already emits, each queueing in the transaction of its event.

- every league action writes one ``ClubAction`` row (``record_action``, inside the
  action's transaction): its ``post_save`` here queues the mail the action causes (a
  round's draw: your table is ready; a substitution; a forfeit; an announcement);
- the ticking driver's ``ticked`` (``server.league.tick``): the reminders of deadlines
  coming within ``DEKABES_MAIL_DEADLINE_HOURS``, due because time passed;
- Django's ``user_logged_in``: the language the member signs in with is their mail's.

A receiver's failure never fails the action: its writes run in a savepoint, and an error
is logged and the action commits without its mail.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone

from engine.seats import team_of
from server.accounts.models import User
from server.league.models import Announcement, ClubAction, LeagueMatch, Membership, Round
from server.league.tick import ticked
from server.mail import services
from server.mail.kinds import ANNOUNCEMENT, DEADLINE, SEAT_CHANGES, TABLE_READY
from server.mail.models import MailPreference, OutboxMail
from server.tables.locking import writing
from server.tables.models import Seat

log = logging.getLogger(__name__)


def connect() -> None:
    post_save.connect(on_club_action, sender=ClubAction, dispatch_uid="mail-club-action")
    ticked.connect(on_tick, dispatch_uid="mail-deadline-reminders")
    user_logged_in.connect(on_sign_in, dispatch_uid="mail-sign-in-language")


# -- the league's actions ---------------------------------------------------------------------
def on_club_action(sender, instance: ClubAction, created: bool, raw: bool = False, **kwargs):
    handler = HANDLERS.get(instance.verb)
    if not created or raw or handler is None:  # raw: rows loaded from a backup
        return
    try:
        with transaction.atomic():  # a savepoint: a failure here leaves the action whole
            handler(instance)
    except Exception:
        log.exception("mail: nothing queued for club action %s (%s)", instance.pk, instance.verb)


def _match_data(match: LeagueMatch) -> dict:
    assert match.club is not None and match.season is not None and match.round is not None
    return {
        "club_name": match.club.name,
        "club_slug": match.club.slug,
        "season": match.season_id,
        "season_name": match.season.name,
        "round": match.round.number,
        "table_number": match.table_number,
        "deadline": match.round.deadline,
    }


def _holders(match: LeagueMatch) -> dict[int, User]:
    """Who holds each seat of the match's table now."""
    return _holders_of([match])[match.table_id]


def _holders_of(matches: list[LeagueMatch]) -> dict[int, dict[int, User]]:
    """Who holds each seat of each match's table now, by table id, in one read."""
    found: dict[int, dict[int, User]] = {m.table_id: {} for m in matches}
    seats = Seat.objects.filter(table__in=list(found), player__isnull=False).select_related(
        "player"
    )
    for seat in seats:
        if seat.player is not None:
            found[seat.table_id][seat.number] = seat.player
    return found


def _table_ready(
    match: LeagueMatch, seat: int, user: User, key: str, holders: dict[int, User], **extra
) -> tuple[User, dict, str]:
    """The "your table is ready" mail of the holder of ``seat``: (member, data, key)."""
    partner = holders.get((seat + 1) % 4 + 1)  # seats 1+3 and 2+4 are partners
    opponents = [holders[n] for n in sorted(holders) if n % 2 != seat % 2]
    data = {
        **_match_data(match),
        "code": match.table.code,
        "seat": seat,
        "partner": partner.username if partner is not None else "",
        "opponents": [o.username for o in opponents],
        **extra,
    }
    return user, data, key


def _league_match(action: ClubAction, **filters) -> list[LeagueMatch]:
    return list(
        LeagueMatch.objects.filter(club=action.club_id, **filters).select_related(
            "table", "club", "season", "round"
        )
    )


def round_started(action: ClubAction) -> None:
    matches = _league_match(action, table__code__in=action.details.get("tables", []))
    holders_of = _holders_of(matches)
    services.queue_each(
        kind=TABLE_READY,
        mails=[
            _table_ready(
                match,
                seat,
                user,
                key=f"{match.table.code}:{seat}",
                holders=holders_of[match.table_id],
            )
            for match in matches
            for seat, user in holders_of[match.table_id].items()
        ],
    )


def match_substituted(action: ClubAction) -> None:
    details = action.details
    for match in _league_match(action, pk=details.get("match")):
        seat = details["seat"]
        replaced = User.objects.filter(username=details.get("player") or "").first()
        if replaced is not None:
            services.queue_for_members(
                kind=SEAT_CHANGES,
                users=[replaced],
                data={
                    **_match_data(match),
                    "what": "substituted",
                    "seat": seat,
                    "substitute": details.get("substitute", ""),
                    "automatic": bool(details.get("automatic")),
                    "reason": details.get("reason", ""),
                },
                key=f"substituted:{action.pk}",
            )
        substitute = User.objects.filter(username=details.get("substitute") or "").first()
        if substitute is not None and not substitute.is_bot:
            services.queue_each(
                kind=TABLE_READY,
                mails=[
                    _table_ready(
                        match,
                        seat,
                        substitute,
                        key=f"substitute:{action.pk}",
                        holders=_holders(match),
                        substitute=True,
                    )
                ],
            )


def match_forfeited(action: ClubAction) -> None:
    """Everyone whose match it is: the drawn players and who holds each seat now."""
    details = action.details
    for match in _league_match(action, pk=details.get("match")):
        teams: dict[User, str] = {s.player: s.team for s in match.seats.select_related("player")}
        for number, holder in _holders(match).items():
            teams.setdefault(holder, team_of(number))
        data = {**_match_data(match), "what": "forfeited", "reason": details.get("reason", "")}
        services.queue_each(
            kind=SEAT_CHANGES,
            mails=[
                (
                    user,
                    {**data, "against_you": team == details.get("team")},
                    f"forfeited:{action.pk}",
                )
                for user, team in teams.items()
            ],
        )


def announcement_posted(action: ClubAction) -> None:
    note = (
        Announcement.objects.filter(pk=action.details.get("id"), club=action.club_id)
        .select_related("club", "author")
        .first()
    )
    if note is None:
        return
    members = User.objects.filter(
        pk__in=Membership.objects.filter(club=note.club, active=True).values("user_id")
    ).exclude(pk=note.author_id)
    services.queue_for_members(
        kind=ANNOUNCEMENT,
        users=members,
        data={
            "club_name": note.club.name,
            "club_slug": note.club.slug,
            "text": note.text,
            "author": note.author.username,
        },
        key=f"{note.pk}",
    )


def member_closed(action: ClubAction) -> None:
    """A closed account: its choices and its mail still waiting go (its address is
    erased already, so nothing more would be sent anyway)."""
    closed = User.objects.filter(username=action.details.get("username") or "", is_active=False)
    MailPreference.objects.filter(user__in=closed).delete()
    OutboxMail.objects.filter(user__in=closed).delete()


HANDLERS: dict[str, Callable[[ClubAction], None]] = {
    "member.close": member_closed,
    "round.start": round_started,
    "match.substitute": match_substituted,
    "match.forfeit": match_forfeited,
    "announcement.post": announcement_posted,
}


# -- time passing: the deadline reminders -----------------------------------------------------
def on_tick(sender, now: dt.datetime, **kwargs) -> list[str]:
    queued = queue_deadline_reminders(now)
    return [f"mail: {queued} deadline reminder(s) queued"] if queued else []


def queue_deadline_reminders(now: dt.datetime | None = None) -> int:
    """For every started round whose deadline comes within
    ``DEKABES_MAIL_DEADLINE_HOURS``: a reminder to each member holding a seat of a match
    not over. One per member, round and deadline (a deadline moved later reminds again)."""
    hours = settings.DEKABES_MAIL_DEADLINE_HOURS
    now = now or timezone.now()
    if hours <= 0:
        return 0
    rounds = Round.objects.filter(
        status="started", deadline__gt=now, deadline__lte=now + dt.timedelta(hours=hours)
    )
    with writing(), transaction.atomic():
        matches = list(
            LeagueMatch.objects.filter(round__in=rounds, status="playing").select_related(
                "table", "club", "season", "round"
            )
        )
        holders_of = _holders_of(matches)
        mails = []
        for match in matches:
            assert match.round is not None and match.round.deadline is not None
            stamp = int(match.round.deadline.timestamp())
            left = max(1, round((match.round.deadline - now).total_seconds() / 3600))
            data = {**_match_data(match), "code": match.table.code, "hours": left}
            for seat, user in holders_of[match.table_id].items():
                mails.append((user, {**data, "seat": seat}, f"{match.round_id}:{stamp}"))
        queued = services.queue_each(kind=DEADLINE, mails=mails)
    return queued


# -- the member's language --------------------------------------------------------------------
def on_sign_in(sender, request, user, **kwargs) -> None:
    language = getattr(request, "LANGUAGE_CODE", None)
    if language:
        try:
            services.do_remember_language(user=user, language=language)
        except Exception:  # a preference, never a reason to refuse a sign-in
            log.exception("mail: the language of account %s was not stored", user.pk)
