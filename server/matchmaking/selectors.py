"""Reads of matchmaking: the open seats, a seek, challenges and their versions."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, Q
from django.utils import timezone

from server.accounts.models import User
from server.matchmaking.admission import may_take
from server.matchmaking.levels import level_of
from server.matchmaking.models import BotTerms, Challenge, ChallengeSeat, Seek
from server.tables.models import Seat

MAX_LISTED = 200


def seeks_version() -> int:
    """Grows whenever a seek opens or closes (a long-poll's ``after``)."""
    return Seek.objects.count() + Seek.objects.exclude(status="open").count()


def _with_seats(seeks):
    return seeks.select_related("table", "owner").prefetch_related(
        Prefetch(
            "table__seats",
            queryset=Seat.objects.select_related("player").order_by("number"),
            to_attr="seat_rows",
        )
    )


@dataclass(frozen=True)
class OpenSeats:
    version: int
    seeks: list[Seek]


def open_seeks(user: User, fits: bool = False) -> OpenSeats:
    """Open seeks with a seat still open, oldest first (at most ``MAX_LISTED``); ``fits``:
    only those ``user`` may take a seat of now."""
    version = seeks_version()
    rows = _with_seats(
        Seek.objects.filter(status="open", expires_at__gt=timezone.now()).order_by("created_at")
    )
    listed = []
    level = level_of(user) if fits else None  # read once for every seek's range
    for seek in rows[: MAX_LISTED * 2]:
        seats = seek.table.seat_rows
        if all(s.player_id is not None for s in seats):
            continue  # filled some other way: the tick closes it
        if fits and (seek.owner_id == user.pk or not may_take(user, seek, seats, level)):
            continue
        listed.append(seek)
        if len(listed) == MAX_LISTED:
            break
    return OpenSeats(version, listed)


def seek_by_id(seek_id: int) -> Seek | None:
    return _with_seats(Seek.objects.filter(pk=seek_id)).first()


# -- challenges ----------------------------------------------------------------------------
def challenges_version(user: User) -> int:
    """Grows whenever a challenge to or by ``user`` is made, answered or closed."""
    mine = ChallengeSeat.objects.filter(player=user)
    return (
        mine.count()
        + mine.exclude(answer="pending").count()
        + mine.exclude(challenge__status="pending").count()
    )


RECENT = 50


def challenges_of(user: User) -> list[Challenge]:
    """Challenges to or by ``user``: every pending one, then the latest closed ones."""
    involving = Challenge.objects.filter(seats__player=user).distinct()
    seats = Prefetch("seats", queryset=ChallengeSeat.objects.select_related("player"))
    pending = list(
        involving.filter(status="pending")
        .select_related("challenger", "table")
        .prefetch_related(seats)
        .order_by("created_at")
    )
    closed = list(
        involving.filter(~Q(status="pending"))
        .select_related("challenger", "table")
        .prefetch_related(seats)
        .order_by("-closed_at", "-pk")[:RECENT]
    )
    return pending + closed


def challenge_for(user: User, challenge_id: int) -> Challenge | None:
    """The challenge, if ``user`` is one of its four players (to anyone else none)."""
    seats = Prefetch("seats", queryset=ChallengeSeat.objects.select_related("player"))
    return (
        Challenge.objects.filter(pk=challenge_id, seats__player=user)
        .select_related("challenger", "table")
        .prefetch_related(seats)
        .first()
    )


PUBLISHED_LISTED = 500


def published_terms() -> list[BotTerms]:
    """The bots that take challenges (active accounts with published terms), by name."""
    return list(
        BotTerms.objects.filter(bot__is_active=True)
        .select_related("bot")
        .order_by("bot__username")[:PUBLISHED_LISTED]
    )


def terms_of(bots: list[User]) -> dict[int, BotTerms]:
    """The published terms of ``bots``, by bot id (a bot without terms is absent)."""
    return {t.bot_id: t for t in BotTerms.objects.filter(bot__in=bots)}


def terms_of_bot(username: str) -> BotTerms | None:
    """The published terms of the bot named ``username``, None when it publishes none."""
    return BotTerms.objects.filter(bot__username=username).first()
