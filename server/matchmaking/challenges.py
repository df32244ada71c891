"""Challenges of four seats, and the terms a bot publishes.

The challenger sits at seat 1, its partner at seat 3, the two opponents at 2 and 4.
Every invited bot's published terms (``BotTerms``) are checked before the challenge is
made (``check_terms``): one outside them is refused with ``409 outside_terms`` and
nothing is written, so a bot never has to decline for a reason it published. An invitee
may still decline, with a reason from ``DECLINE_REASONS``. Each invitee accepts; with the
last acceptance the table is made (owned by the challenger, every seat held) and the
match starts. A challenge left unanswered expires (the ticking driver).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import (
    NoLongerOpen,
    NotFound,
    OutsideTerms,
    PermissionDenied,
    ValidationError,
)
from server.matchmaking import quotas
from server.matchmaking.models import BotTerms, Challenge, ChallengeSeat, QuotaUse
from server.matchmaking.selectors import challenge_for
from server.notices import notify
from server.tables import quota as table_quota
from server.tables import services as table_services
from server.tables.locking import writing

# Lichess's list, for a four-seat game: why a bot (or a person) says no.
DECLINE_REASONS = (
    "generic",
    "later",
    "too_fast",
    "too_slow",
    "rated",
    "casual",
    "no_bots",
    "only_bots",
    "partner",
    "too_many_games",
)
DEFAULT_MINUTES = 10
MAX_MINUTES = 24 * 60
PARTNER_OF = {1: 3, 2: 4, 3: 1, 4: 2}


# -- terms ----------------------------------------------------------------------------------
def check_may_publish(user: User, bot: User) -> None:
    """A bot's terms are published by its owner, or by the bot itself (its program)."""
    if not bot.is_bot or (user.pk != bot.pk and bot.bot_owner_id != user.pk):
        raise NotFound(f"no bot {bot.username!r} of yours")


def do_publish_terms(*, user: User, bot: User, terms: dict) -> BotTerms:
    check_may_publish(user, bot)
    if terms["min_seconds_per_move"] > terms["max_seconds_per_move"]:
        raise ValidationError("min_seconds_per_move is above max_seconds_per_move")
    if not (terms["casual"] or terms["rated"]):
        raise ValidationError("terms take casual games, rated games or both")
    row, _ = BotTerms.objects.update_or_create(bot=bot, defaults=terms)
    return row


def do_withdraw_terms(*, user: User, bot: User) -> None:
    check_may_publish(user, bot)
    BotTerms.objects.filter(bot=bot).delete()


def _kind_fits(who: str, player: User) -> bool:
    return who == "any" or (who == "bots") == player.is_bot


def challenge_games_today(bot: User, now: dt.datetime) -> int:
    return QuotaUse.objects.filter(account=bot, what="accept", at__gt=now - quotas.WINDOW).count()


def check_terms(
    bot: User, number: int, seats: dict[int, User], rated: bool, seconds: int, now: dt.datetime
) -> None:
    """Whether the bot at seat ``number`` of ``seats`` takes this challenge by its terms."""
    terms = BotTerms.objects.filter(bot=bot).first()

    def outside(term: str | None, why: str) -> OutsideTerms:
        return OutsideTerms(player=bot.username, why=why, term=term)

    if terms is None:
        raise outside(None, "it publishes no terms (it takes no challenges)")
    if rated and not terms.rated:
        raise outside("kinds", "it plays casual games only")
    if not rated and not terms.casual:
        raise outside("kinds", "it plays rated games only")
    partner = seats[PARTNER_OF[number]]
    if not _kind_fits(terms.partners, partner):
        raise outside("players", f"it partners {terms.partners} only")
    for n, opponent in seats.items():
        if n not in (number, PARTNER_OF[number]) and not _kind_fits(terms.opponents, opponent):
            raise outside("players", f"it plays against {terms.opponents} only")
    if not terms.min_seconds_per_move <= seconds <= terms.max_seconds_per_move:
        raise outside(
            "seconds",
            f"it plays {terms.min_seconds_per_move} to {terms.max_seconds_per_move} "
            "seconds per move",
        )
    if challenge_games_today(bot, now) >= terms.games_per_day:
        raise outside("games_per_day", f"it plays {terms.games_per_day} challenge games a day")
    low, high = terms.hours_from, terms.hours_to
    if low != high:
        hour = now.astimezone(dt.UTC).hour
        inside = low <= hour < high if low < high else (hour >= low or hour < high)
        if not inside:
            raise outside("hours", f"it takes challenges from {low:02d}:00 to {high:02d}:00 UTC")


# -- making, answering, closing -------------------------------------------------------------
@dataclass(frozen=True)
class ChallengePlan:
    partner: str
    opponents: tuple[str, str]
    rated: bool
    seconds_per_move: int
    minutes: int


def _account(name: str) -> User:
    found = User.objects.filter(username__iexact=name, is_active=True).first()
    if found is None:
        raise ValidationError(f"no account named {name!r}")
    return found


def check_challenge(user: User, plan: ChallengePlan, now: dt.datetime) -> dict[int, User]:
    """The four seats of the challenge; raises (before anything is written) when it
    cannot be made: a bot's terms, a quota, the same account twice."""
    if user.is_hosted:
        raise PermissionDenied("a server-hosted computer player does not challenge")
    if not 1 <= plan.minutes <= MAX_MINUTES:
        raise ValidationError(f"minutes is 1 to {MAX_MINUTES}")
    partner, (first, second) = _account(plan.partner), map(_account, plan.opponents)
    seats = {1: user, 2: first, 3: partner, 4: second}
    if len({p.pk for p in seats.values()}) < 4:
        raise ValidationError("four different accounts: you, your partner, two opponents")
    if any(p.is_hosted for p in seats.values()):
        raise ValidationError("server-hosted computer players are not challenged")
    if plan.rated:
        table_services.check_one_seat_per_person(list(seats.values()))
    for number, player in seats.items():
        if number != 1 and player.is_bot:
            check_terms(player, number, seats, plan.rated, plan.seconds_per_move, now)
    for player in seats.values():
        quotas.check_daily_quota(user=player, now=now)
    table_quota.check_table_quota(user)  # the table will be the challenger's
    return seats


def do_challenge(*, user: User, plan: ChallengePlan) -> Challenge:
    now = timezone.now()
    seats = check_challenge(user, plan, now)
    with writing(), transaction.atomic():
        challenge = Challenge.objects.create(
            challenger=user,
            rated=plan.rated,
            seconds_per_move=plan.seconds_per_move,
            expires_at=now + dt.timedelta(minutes=plan.minutes),
        )
        for number, player in seats.items():
            ChallengeSeat.objects.create(
                challenge=challenge,
                number=number,
                player=player,
                answer="accepted" if number == 1 else "pending",
            )
        quotas.record_use(user=user, what="challenge")
        ids = [p.pk for p in seats.values()]
        transaction.on_commit(lambda: notify.challenges_changed(ids))
    return _read(user, challenge.pk)


def _read(user: User, challenge_id: int) -> Challenge:
    found = challenge_for(user, challenge_id)
    if found is None:
        raise NotFound(f"no challenge {challenge_id}")
    return found


def _pending(user: User, challenge_id: int, now: dt.datetime) -> Challenge:
    challenge = _read(user, challenge_id)
    if challenge.status == "pending" and challenge.expires_at <= now:
        raise NoLongerOpen(what="challenge", status="expired")  # the tick has yet to close it
    if challenge.status != "pending":
        raise NoLongerOpen(what="challenge", status=challenge.status)
    return challenge


def do_accept(*, user: User, challenge_id: int) -> Challenge:
    """``user`` accepts; the last acceptance makes the table and starts the match."""
    now = timezone.now()
    challenge = _pending(user, challenge_id, now)
    mine = next(s for s in challenge.seats.all() if s.player_id == user.pk)
    if mine.answer == "accepted":
        return challenge
    quotas.check_daily_quota(user=user, now=now)
    with writing(), transaction.atomic():
        locked = Challenge.objects.select_for_update().get(pk=challenge.pk)
        if locked.status != "pending":
            raise NoLongerOpen(what="challenge", status=locked.status)
        ChallengeSeat.objects.filter(pk=mine.pk).update(answer="accepted")
        quotas.record_use(user=user, what="accept")
        seats = list(ChallengeSeat.objects.filter(challenge=locked).select_related("player"))
        if all(s.answer == "accepted" for s in seats):
            table = table_services.do_create_seated_table(
                owner=locked.challenger,
                players={s.number: s.player for s in seats},
                rated=locked.rated,
            )
            locked.status, locked.table, locked.closed_at = "started", table, now
            locked.save(update_fields=["status", "table", "closed_at"])
        ids = [s.player_id for s in seats]
        transaction.on_commit(lambda: notify.challenges_changed(ids))
    return _read(user, challenge.pk)


def do_decline(*, user: User, challenge_id: int, reason: str) -> Challenge:
    if reason not in DECLINE_REASONS:
        raise ValidationError(f"reason is one of {', '.join(DECLINE_REASONS)}")
    now = timezone.now()
    challenge = _pending(user, challenge_id, now)
    if challenge.challenger_id == user.pk:
        raise PermissionDenied("the challenger cancels its challenge, it does not decline it")
    return _close(user, challenge, "declined", now, reason=reason)


def do_cancel(*, user: User, challenge_id: int) -> Challenge:
    now = timezone.now()
    challenge = _pending(user, challenge_id, now)
    if challenge.challenger_id != user.pk:
        raise PermissionDenied("only the challenger cancels a challenge (decline it instead)")
    return _close(user, challenge, "cancelled", now)


def _close(user: User, challenge: Challenge, status: str, now, reason: str = "") -> Challenge:
    with writing(), transaction.atomic():
        closed = Challenge.objects.filter(pk=challenge.pk, status="pending").update(
            status=status, closed_at=now
        )
        if not closed:
            raise NoLongerOpen(
                what="challenge", status=Challenge.objects.get(pk=challenge.pk).status
            )
        if reason:
            ChallengeSeat.objects.filter(challenge=challenge, player=user).update(
                answer="declined", reason=reason
            )
        ids = [s.player_id for s in challenge.seats.all()]
        transaction.on_commit(lambda: notify.challenges_changed(ids))
    return _read(user, challenge.pk)


def _close_pending(pks: list[int], status: str, now: dt.datetime) -> None:
    """Close the pending challenges among ``pks`` as ``status`` (in the caller's
    transaction), and tell their players once it commits."""
    if not pks:
        return
    Challenge.objects.filter(pk__in=pks, status="pending").update(status=status, closed_at=now)
    ids = list(
        ChallengeSeat.objects.filter(challenge_id__in=pks).values_list("player_id", flat=True)
    )
    transaction.on_commit(lambda: notify.challenges_changed(ids))


def cancel_challenges_of(accounts: list[User]) -> int:
    """Closing an account (``member_data``): every pending challenge it made or was invited
    to is cancelled (no one waits on an account that is gone) and its bots' published
    terms are withdrawn. Runs in the caller's transaction; returns the challenges closed."""
    BotTerms.objects.filter(bot__in=accounts).delete()
    pending = list(
        Challenge.objects.filter(status="pending", seats__player__in=accounts)
        .distinct()
        .values_list("pk", flat=True)
    )
    _close_pending(pending, "cancelled", timezone.now())
    return len(pending)


def expire_due_challenges(now: dt.datetime | None = None) -> list[int]:
    """Close every pending challenge past its time (the ticking driver)."""
    now = now or timezone.now()
    with writing(), transaction.atomic():
        due = list(
            Challenge.objects.filter(status="pending", expires_at__lte=now).values_list(
                "pk", flat=True
            )
        )
        _close_pending(due, "expired", now)
    return due
