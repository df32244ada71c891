"""Seeks: a casual table's open seats, listed for the kind of player they want.

``do_seek`` makes the table (its maker and the maker's chosen computer players seated,
the other seats open) and the seek beside it. Anyone the seek admits takes a seat with
the ordinary ``POST /api/tables/{code}/join``: the tables app asks ``offer_seek_seat``
(``tables.signals.seat_offer_rules``), and ``seek_seat_taken`` closes the seek as filled
once the last seat is taken. The match waits at its first deal until every seat is held
(an open seat cannot accept it), so the table starts when full. A seek left unfilled
expires at ``expires_at``: the ticking driver closes it (``expire_due_seeks``), never a
read; its table stays an ordinary casual table of its owner's.
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
    PermissionDenied,
    ValidationError,
)
from server.matchmaking import quotas
from server.matchmaking.admission import check_may_take
from server.matchmaking.models import Seek
from server.notices import notify
from server.tables import quota as table_quota
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Seat, Table

DEFAULT_MINUTES = 30
MAX_MINUTES = 24 * 60


@dataclass(frozen=True)
class SeekPlan:
    wanted: str  # people, bots, any
    join: list[int]  # seats the seeker takes
    bots: dict[int, str]  # seats given at once to computer players: seat -> bot name
    min_level: float | None
    max_level: float | None
    minutes: int


def check_seek_plan(user: User, plan: SeekPlan) -> dict[int, User]:
    """The seated players by seat; raises on a plan that cannot be a seek."""
    if not plan.join:
        raise ValidationError("a seeker takes a seat of its own table: join names one")
    if set(plan.join) & set(plan.bots):
        raise ValidationError("a seat is joined or given to a computer player, not both")
    if len(plan.join) + len(plan.bots) >= 4:
        raise ValidationError("a seek leaves at least one seat open")
    if user.is_bot and (len(plan.join) > 1 or plan.bots):
        raise ValidationError("a bot seeking takes one seat and leaves the others open")
    if not 1 <= plan.minutes <= MAX_MINUTES:
        raise ValidationError(f"minutes is 1 to {MAX_MINUTES}")
    low, high = plan.min_level, plan.max_level
    if low is not None and high is not None and low > high:
        raise ValidationError("min_level is above max_level")
    players: dict[int, User] = {n: user for n in plan.join}
    for n, name in plan.bots.items():
        bot = User.objects.filter(username__iexact=name, is_bot=True).first()
        if bot is None:
            raise ValidationError(f"no bot account named {name!r}")
        table_services.check_may_seat_bot(user, bot)
        players[n] = bot
    return players


def do_seek(*, user: User, plan: SeekPlan) -> Seek:
    if user.is_hosted:
        raise PermissionDenied("a server-hosted computer player does not seek")
    players = check_seek_plan(user, plan)
    quotas.check_daily_quota(user=user)
    table_quota.check_table_quota(user)
    open_kind = "bot" if plan.wanted == "bots" else "human"  # "any": the joiner's kind
    kinds = {
        n: ("bot" if players[n].is_bot else "human") if n in players else open_kind
        for n in (1, 2, 3, 4)
    }
    with writing(), transaction.atomic():
        table = table_services.do_create_open_table(owner=user, seats=kinds, players=players)
        seek = Seek.objects.create(
            table=table,
            owner=user,
            wanted=plan.wanted,
            min_level=plan.min_level,
            max_level=plan.max_level,
            expires_at=timezone.now() + dt.timedelta(minutes=plan.minutes),
        )
        quotas.record_use(user=user, what="seek")
        transaction.on_commit(notify.seeks_changed)
    return seek


def do_cancel_seek(*, user: User, seek_id: int) -> Seek:
    """The seeker withdraws its seek (its table stays, its open seats offered no more)."""
    seek = Seek.objects.filter(pk=seek_id).select_related("table").first()
    if seek is None or seek.owner_id != user.pk:
        raise NotFound(f"no seek {seek_id} of yours")
    with writing(), transaction.atomic():
        closed = Seek.objects.filter(pk=seek.pk, status="open").update(
            status="cancelled", closed_at=timezone.now()
        )
        if not closed:
            raise NoLongerOpen(what="seek", status=seek.status)
        transaction.on_commit(notify.seeks_changed)
    seek.refresh_from_db()
    return seek


def cancel_seeks_of(accounts: list[User]) -> int:
    """Closing an account (``member_data``): its open seeks are offered no more. Runs in
    the caller's transaction; returns how many were cancelled."""
    cancelled = Seek.objects.filter(owner__in=accounts, status="open").update(
        status="cancelled", closed_at=timezone.now()
    )
    if cancelled:
        transaction.on_commit(notify.seeks_changed)
    return cancelled


# -- taking a seat (the tables app's join asks) -----------------------------------------------
def offer_seek_seat(user: User, table: Table, seat: Seat) -> bool:
    """``tables.signals.seat_offer_rules``: an open seat of an open seek is offered to
    whoever the seek admits (and refused, with the seek's code, to anyone else)."""
    seek = Seek.objects.filter(table=table, status="open").first()
    if seek is None or seek.expires_at <= timezone.now():
        return False  # no seek (or one past its time): the table's own rules decide
    if seek.owner_id == user.pk:
        return False  # the seeker at its own table: as at any table of its own
    seats = list(Seat.objects.filter(table=table).select_related("player"))
    check_may_take(user, seek, seats)
    quotas.check_daily_quota(user=user)
    return True


def seek_seat_taken(sender, *, table: Table, seat: int, user: User, **kwargs) -> None:
    """``tables.signals.seat_joined``: count the seat against the joiner's quota, and
    close the seek as filled when it was its last open seat."""
    seek = Seek.objects.filter(table=table, status="open").first()
    if seek is None:
        return
    if seek.owner_id != user.pk:
        quotas.record_use(user=user, what="join")
    if not Seat.objects.filter(table=table, player__isnull=True).exists():
        Seek.objects.filter(pk=seek.pk, status="open").update(
            status="filled", closed_at=timezone.now()
        )
        transaction.on_commit(notify.seeks_changed)


# -- the ticking driver ---------------------------------------------------------------------
def expire_due_seeks(now: dt.datetime | None = None) -> list[int]:
    """Close every open seek past its time (expired) or whose seats were all filled some
    other way (an owner's replace: filled). Returns the ids of the seeks closed."""
    now = now or timezone.now()
    closed: list[int] = []
    with writing(), transaction.atomic():
        full = Seek.objects.filter(status="open").exclude(table__seats__player__isnull=True)
        full_ids = list(full.values_list("pk", flat=True))
        if full_ids:
            Seek.objects.filter(pk__in=full_ids, status="open").update(
                status="filled", closed_at=now
            )
        due = Seek.objects.filter(status="open", expires_at__lte=now)
        due_ids = list(due.values_list("pk", flat=True))
        if due_ids:
            Seek.objects.filter(pk__in=due_ids, status="open").update(
                status="expired", closed_at=now
            )
        closed = full_ids + due_ids
        if closed:
            transaction.on_commit(notify.seeks_changed)
    return closed
