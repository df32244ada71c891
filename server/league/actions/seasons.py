"""A club's seasons: creating, editing and closing one, its pairs (a pairs season), and
who says they can play its next round."""

from __future__ import annotations

import datetime as dt
import random

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import (
    AlreadyInPair,
    OneSeatPerPlayer,
    OrganizerOnly,
    RoundInProgress,
    SeasonClosed,
    TooManySeasons,
    ValidationError,
    WrongFormat,
)
from server.league.action_log import record_action
from server.league.actions.members import active_member, check_members
from server.league.actions.roles import check_member, check_organizer, lock_club
from server.league.models import Availability, CheckIn, Club, Pair, Season
from server.tables.locking import writing
from server.tables.services import controller_of


def do_create_season(
    *,
    user: User,
    club: Club,
    name: str,
    format: str,
    starts_on: dt.date | None = None,
    ends_on: dt.date | None = None,
    fill_with_bots: bool = False,
    auto_substitute_after: int | None = None,
    duplicate: bool = False,
    seed: int | None = None,
) -> Season:
    check_organizer(club, user)
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError("ends_on is before starts_on")
    with writing(), transaction.atomic():
        lock_club(club.pk)
        limit = settings.DEKABES_MAX_SEASONS
        if Season.objects.filter(club=club).count() >= limit:
            raise TooManySeasons(limit=limit)
        season = Season.objects.create(
            club=club,
            name=name,
            format=format,
            starts_on=starts_on,
            ends_on=ends_on,
            fill_with_bots=fill_with_bots,
            auto_substitute_after=auto_substitute_after,
            duplicate=duplicate,
            seed=random.randrange(2**31) if seed is None else seed,
        )
        record_action(
            club=club,
            actor=user,
            verb="season.create",
            season=season.pk,
            name=name,
            format=format,
            starts_on=starts_on,
            ends_on=ends_on,
            fill_with_bots=fill_with_bots,
            auto_substitute_after=auto_substitute_after,
            duplicate=duplicate,
        )
        return season


def check_season_open(season: Season) -> None:
    if season.closed_at is not None:
        raise SeasonClosed()


SEASON_FIELDS = ("name", "starts_on", "ends_on")


def do_update_season(*, user: User, season: Season, changes: dict) -> Season:
    """Change a season's name or dates (``changes``: some of ``SEASON_FIELDS``)."""
    check_organizer(season.club, user)
    check_season_open(season)
    unknown = set(changes) - set(SEASON_FIELDS)
    if unknown:
        raise ValidationError(f"a season's {', '.join(sorted(unknown))} cannot be changed")
    if "name" in changes and not str(changes["name"]).strip():
        raise ValidationError("a season has a name")
    starts_on = changes.get("starts_on", season.starts_on)
    ends_on = changes.get("ends_on", season.ends_on)
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError("ends_on is before starts_on")
    with writing(), transaction.atomic():
        lock_club(season.club_id)
        before = {name: getattr(season, name) for name in changes}
        for name, value in changes.items():
            setattr(season, name, value)
        season.save(update_fields=list(changes) or None)
        record_action(
            club=season.club,
            actor=user,
            verb="season.edit",
            season=season.pk,
            changes={n: [before[n], v] for n, v in changes.items() if before[n] != v},
        )
    return season


def do_close_season(*, user: User, season: Season) -> Season:
    """Archive a season: its standings stay readable, it takes no new round, check-in or
    start. A round being played must finish first (``RoundInProgress``); a round opened
    but not drawn (it has no table) is deleted with the closing: a closed season shows
    no open round (its numbers in the entry's ``deleted_rounds``)."""
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        lock_club(season.club_id)
        season = Season.objects.select_for_update().select_related("club").get(pk=season.pk)
        check_season_open(season)
        if season.rounds.filter(status="started").exists():
            raise RoundInProgress("a round of this season is being played")
        unstarted = list(season.rounds.filter(status="open").order_by("number"))
        for round_ in unstarted:
            CheckIn.objects.filter(round=round_).delete()
            round_.delete()
        season.closed_at = timezone.now()
        season.save(update_fields=["closed_at"])
        record_action(
            club=season.club,
            actor=user,
            verb="season.close",
            season=season.pk,
            name=season.name,
            deleted_rounds=[r.number for r in unstarted],
        )
    return season


# -- pairs -----------------------------------------------------------------------------------
def check_format(season: Season, wanted: str) -> None:
    if season.format != wanted:
        raise WrongFormat(format=season.format)


def do_register_pair(
    *, user: User, season: Season, name: str, player_1: str, player_2: str
) -> Pair:
    check_organizer(season.club, user)
    check_format(season, "pairs")
    first, second = check_members(season.club, [player_1, player_2])
    if controller_of(first) == controller_of(second):
        raise OneSeatPerPlayer("a pair is two different people")
    with writing(), transaction.atomic():
        lock_club(season.club_id)  # one registration at a time: a player in one pair
        taken = {
            controller_of(p)
            for pair in Pair.objects.filter(season=season).select_related("player_1", "player_2")
            for p in (pair.player_1, pair.player_2)
        }
        if {controller_of(first), controller_of(second)} & taken:
            raise AlreadyInPair()
        pair = Pair.objects.create(
            season=season,
            name=name or f"{first.username} & {second.username}",
            player_1=first,
            player_2=second,
        )
        record_action(
            club=season.club,
            actor=user,
            verb="pair.register",
            season=season.pk,
            pair=pair.pk,
            name=pair.name,
            players=[first.username, second.username],
        )
        return pair


# -- availability ---------------------------------------------------------------------------
def do_set_availability(
    *, user: User, season: Season, available: bool, username: str | None = None
) -> Availability:
    """A member says whether they can play the season's next round; an organizer may say
    it for any member (``username``: an override, in the action log). The check-in of the
    round is still the organizer's (the round page offers "everyone available")."""
    club = season.club
    member = check_member(club, user)
    check_season_open(season)
    if username is None or username == user.username:
        player = user
    else:
        if member.role != "organizer":
            raise OrganizerOnly("only organizers mark another member")
        player = active_member(club, username).user
    with writing(), transaction.atomic():
        lock_club(season.club_id)
        row, _ = Availability.objects.update_or_create(
            season=season,
            player=player,
            defaults={"available": available, "set_by": user, "at": timezone.now()},
        )
        if player != user:
            record_action(
                club=club,
                actor=user,
                verb="availability.override",
                season=season.pk,
                username=player.username,
                available=available,
            )
    return row
