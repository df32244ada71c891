"""Daily quotas of matchmaking: per bot and per owner, over any 24 hours.

Every seek made, open seat taken, challenge made or accepted is one use (``QuotaUse``).
A bot has ``DEKABES_BOT_GAMES_PER_DAY``; a member's own uses and all their bots' uses
together have ``DEKABES_OWNER_GAMES_PER_DAY`` (a house bot is its own owner). Past
either, ``429 daily_limit`` with ``Retry-After``: the seconds until the use that must
age out is 24 hours old. Refused: nothing is written.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone

from server.accounts.models import User
from server.errors import DailyLimit
from server.matchmaking.models import QuotaUse
from server.tables.services import controller_of

WINDOW = dt.timedelta(hours=24)


def check_daily_quota(*, user: User, now: dt.datetime | None = None) -> None:
    now = now or timezone.now()
    since = now - WINDOW
    if user.is_bot:
        uses = QuotaUse.objects.filter(account=user, at__gt=since)
        _check(uses, settings.DEKABES_BOT_GAMES_PER_DAY, user.username, now)
    owner = controller_of(user)
    uses = QuotaUse.objects.filter(owner_id=owner, at__gt=since)
    who = user.username if owner == user.pk else f"the owner of {user.username}"
    _check(uses, settings.DEKABES_OWNER_GAMES_PER_DAY, who, now)


def _check(uses, limit: int, who: str, now: dt.datetime) -> None:
    count = uses.count()
    if count < limit:
        return
    # The uses that must age out for one more to fit: the (count - limit + 1) oldest.
    ages_out = uses.order_by("at").values_list("at", flat=True)[count - limit]
    raise DailyLimit(who=who, limit=limit, wait=(ages_out + WINDOW - now).total_seconds())


def record_use(*, user: User, what: str) -> None:
    QuotaUse.objects.create(account=user, owner_id=controller_of(user), what=what)


def uses_today(user: User, now: dt.datetime | None = None) -> int:
    now = now or timezone.now()
    return QuotaUse.objects.filter(account=user, at__gt=now - WINDOW).count()
