"""Reads of the ladder: its standings (one row per bot, its current version's rating),
one bot's versions, and its pairs, newest first. All public: the ladder is."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from server.errors import NotFound
from server.ladder.models import Entry, Pair, Version


def standings() -> QuerySet[Entry]:
    """Entries on the ladder (and those that left, with their rating), best first."""
    return (
        Entry.objects.filter(version__isnull=False)
        .select_related("bot__bot_owner", "version")
        .annotate(version_count=Count("versions", distinct=True))
        .order_by("-version__ordinal", "bot__username")
    )


def entry_by_name(name: str) -> Entry:
    entry = standings().filter(bot__username__iexact=name).first()
    if entry is None:
        raise NotFound(f"{name!r} is not on the ladder")
    return entry


def versions_of(entry: Entry) -> QuerySet[Version]:
    return Version.objects.filter(entry=entry).order_by("-created_at", "-id")


def pairs(bot: str | None = None) -> QuerySet[Pair]:
    """The ladder's pairs, newest first (those a bot played, when named)."""
    rows = Pair.objects.prefetch_related(
        "seats__entry__bot", "seats__version", "legs__match__table"
    ).order_by("-created_at", "-id")
    if bot:
        rows = rows.filter(seats__entry__bot__username__iexact=bot)
    return rows


def pair_by_id(pair_id: int) -> Pair:
    pair = pairs().filter(pk=pair_id).first()
    if pair is None:
        raise NotFound(f"no ladder match {pair_id}")
    return pair
