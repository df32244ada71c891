"""A club: its creation, its name, description and visibility, and its announcements."""

from __future__ import annotations

import functools
import zoneinfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import NotFound, SlugTaken, TooManyClubs, ValidationError
from server.league.action_log import record_action
from server.league.actions.roles import check_organizer, check_person, lock_club
from server.league.models import Announcement, Club, Membership
from server.tables.locking import writing


def check_time_zone(name: str) -> str:
    """An IANA time zone name the server knows (``Europe/Madrid``)."""
    if name not in available_time_zones():
        raise ValidationError(f"{name!r} is not a time zone (an IANA name: Europe/Madrid)")
    return name


@functools.cache
def available_time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def do_create_club(
    *,
    user: User,
    slug: str,
    name: str,
    description: str = "",
    visibility: str = "public",
    time_zone: str = "UTC",
) -> Club:
    check_person(user)
    check_time_zone(time_zone)
    if Club.objects.filter(slug=slug).exists():
        raise SlugTaken(slug=slug)
    try:
        with writing(), transaction.atomic():
            # One creation at a time per account (its row's lock): the quota holds.
            list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk"))
            check_club_quota(user)
            club = Club.objects.create(
                slug=slug,
                name=name,
                description=description,
                visibility=visibility,
                time_zone=time_zone,
                created_by=user,
            )
            Membership.objects.create(club=club, user=user, role="organizer")
            record_action(
                club=club,
                actor=user,
                verb="club.create",
                slug=slug,
                name=name,
                visibility=visibility,
                time_zone=time_zone,
            )
    except IntegrityError:
        raise SlugTaken(slug=slug) from None
    return club


def check_club_quota(user: User) -> None:
    limit = settings.DEKABES_MAX_CLUBS
    if Club.objects.filter(created_by=user).count() >= limit:
        raise TooManyClubs(limit=limit)


def do_update_club(*, user: User, club: Club, changes: dict) -> Club:
    check_organizer(club, user)
    if "time_zone" in changes:
        check_time_zone(changes["time_zone"])
    with writing(), transaction.atomic():
        before = {name: getattr(club, name) for name in changes}
        for name, value in changes.items():
            setattr(club, name, value)
        club.save(update_fields=list(changes) or None)
        record_action(
            club=club,
            actor=user,
            verb="club.edit",
            changes={n: [before[n], v] for n, v in changes.items() if before[n] != v},
        )
    return club


# -- announcements ----------------------------------------------------------------------------
ANNOUNCEMENT_MAX = 500


def do_post_announcement(*, user: User, club: Club, text: str) -> Announcement:
    check_organizer(club, user)
    text = text.strip()
    if not text or len(text) > ANNOUNCEMENT_MAX:
        raise ValidationError(f"an announcement has 1 to {ANNOUNCEMENT_MAX} characters")
    with writing(), transaction.atomic():
        lock_club(club.pk)
        note = Announcement.objects.create(club=club, text=text, author=user)
        record_action(club=club, actor=user, verb="announcement.post", id=note.pk, text=text)
    return note


def do_remove_announcement(*, user: User, club: Club, announcement_id: int) -> Announcement:
    check_organizer(club, user)
    with writing(), transaction.atomic():
        lock_club(club.pk)
        note = Announcement.objects.filter(
            club=club, pk=announcement_id, removed_at__isnull=True
        ).first()
        if note is None:
            raise NotFound(f"no announcement {announcement_id} in this club")
        note.removed_at = timezone.now()
        note.save(update_fields=["removed_at"])
        record_action(club=club, actor=user, verb="announcement.remove", id=note.pk, text=note.text)
    return note
