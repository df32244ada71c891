"""A bot joins the ladder (declaring its version), says it is still there, or leaves."""

from __future__ import annotations

import re

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import NotAuthenticated, NotFound, PermissionDenied, ValidationError
from server.ladder.models import Entry, Version
from server.ladder.rating import new_version
from server.ladder.setup import ensure_ladder
from server.league.ratings import Rating, initial_rating

VERSION = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._+-]{0,39}\Z")


def check_version(name: str) -> None:
    if not VERSION.match(name):
        raise ValidationError(
            "a version is 1-40 letters, digits and . _ + - (starting with a letter or digit)"
        )


def check_matches_per_day(n: int | None) -> int:
    limit = settings.DEKABES_LADDER_MATCHES_PER_DAY
    if n is None:
        return limit
    if not 2 <= n <= limit:
        raise ValidationError(f"matches_per_day is between 2 and {limit}")
    return n


def bot_for(user: User | None, name: str) -> User:
    """The bot ``name`` that ``user`` speaks for: the bot itself or its owner."""
    if user is None or not user.is_authenticated:
        raise NotAuthenticated()
    bot = User.objects.filter(username__iexact=name, is_bot=True).first()
    if bot is None:
        raise NotFound(f"no bot {name!r}")
    if bot.bot_owner_id is None:
        raise PermissionDenied("the house players are on the ladder as its anchors")
    if user.pk not in (bot.pk, bot.bot_owner_id):
        raise PermissionDenied(f"only {bot.username} or its owner enters it on the ladder")
    return bot


def do_enter(
    *, user: User | None, name: str, version: str, matches_per_day: int | None = None
) -> Entry:
    """Put the bot on the ladder (again), playing as ``version``; or, already on it with
    that version, say it is still there (``seen_at``: only bots seen within
    ``DEKABES_LADDER_SEEN_SECONDS`` are scheduled). A new version starts from the
    bot's current rating with wider uncertainty (``rating.new_version``)."""
    bot = bot_for(user, name)
    check_version(version)
    per_day = check_matches_per_day(matches_per_day)
    ensure_ladder()
    now = timezone.now()
    with transaction.atomic():
        entry, _ = Entry.objects.select_for_update().get_or_create(
            bot=bot, defaults={"matches_per_day": per_day, "joined_at": now}
        )
        current = entry.version
        if current is None or current.name != version:
            entry.version = _version(entry, version, current)
        if matches_per_day is not None or not entry.active:
            entry.matches_per_day = per_day
        if not entry.active:
            entry.joined_at = now
        entry.active, entry.seen_at = True, now
        entry.save()
    return entry


def _version(entry: Entry, name: str, current: Version | None) -> Version:
    known = Version.objects.filter(entry=entry, name=name).first()
    if known is not None:  # back to an earlier version: its own rating
        return known
    start = new_version(current_rating(current)) if current is not None else initial_rating()
    return Version.objects.create(
        entry=entry,
        name=name,
        mu=start.mu,
        sigma=start.sigma,
        ordinal=start.ordinal,
        start_mu=start.mu,
        start_sigma=start.sigma,
    )


def current_rating(version: Version) -> Rating:
    return Rating(mu=version.mu, sigma=version.sigma)


def do_leave(*, user: User | None, name: str) -> Entry:
    """Off the ladder: no new pair (one in play is played out); the history stays."""
    bot = bot_for(user, name)
    entry = Entry.objects.filter(bot=bot).first()
    if entry is None:
        raise NotFound(f"{bot.username} is not on the ladder")
    Entry.objects.filter(pk=entry.pk).update(active=False)
    entry.refresh_from_db()
    return entry


def leave_with_account(bots: list[User]) -> int:
    """Closing an account (``member_data``): its bots leave the ladder (a pair in play is
    played out, as with ``do_leave``); returns the entries that left."""
    return Entry.objects.filter(bot__in=bots, active=True).update(active=False)
