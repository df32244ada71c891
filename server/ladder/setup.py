"""The ladder's own club, house account and anchors, made on first use."""

from __future__ import annotations

import itertools

from django.conf import settings
from django.db import IntegrityError, transaction

from server.accounts import services as account_services
from server.accounts.models import User
from server.errors import UsernameTaken
from server.ladder.models import Entry, Ladder, Version
from server.ladder.rating import ANCHOR_MU, ANCHOR_SIGMA
from server.league.actions.hosted import hosted_player_for
from server.league.models import Club, Membership
from server.league.ratings import Rating
from server.tables.locking import writing

LADDER_ID = 1  # the one row: a second server process making it at once meets the key
RACE_TRIES = 5  # requests making the ladder at once: each loser reads the winner's


def the_ladder() -> Ladder | None:
    return Ladder.objects.select_related("club", "account").filter(pk=LADDER_ID).first()


def ensure_ladder() -> Ladder:
    """The ladder, made with its club, house account and anchors when it is first needed
    (a bot's first opt-in): a server whose bots never join has none of it."""
    for _ in range(RACE_TRIES):
        ladder = the_ladder()
        if ladder is None:
            try:
                with writing(), transaction.atomic():
                    ladder = _make_ladder()
            except (IntegrityError, UsernameTaken):  # made meanwhile by another request
                continue  # (several bots' first opt-ins at once): read it again
        try:
            with writing(), transaction.atomic():
                # the ladder's row locked: one request at a time adds the anchors (two at
                # once would each add a house player of a missing level)
                list(Ladder.objects.select_for_update().filter(pk=ladder.pk).values_list("pk"))
                ensure_anchors(ladder)
        except (IntegrityError, UsernameTaken):  # an anchor made meanwhile: see it
            continue
        return ladder
    raise RuntimeError(f"the ladder could not be made in {RACE_TRIES} tries")


def _free(name: str, taken) -> str:
    for n in itertools.count(1):
        candidate = name if n == 1 else f"{name}-{n}"
        if not taken(candidate):
            return candidate
    raise AssertionError("unreachable")


def _make_ladder() -> Ladder:
    account = account_services.do_create_bot(
        name=_free(
            settings.DEKABES_LADDER_ACCOUNT,
            lambda n: User.objects.filter(username__iexact=n).exists(),
        ),
        owner=None,
    )
    club = Club.objects.create(
        slug=_free("bot-ladder", lambda s: Club.objects.filter(slug=s).exists()),
        name="Bot ladder",
        description="The server's bot ladder: its matches, dealt in duplicate (docs/ladder.md).",
        visibility="public",
        created_by=account,
    )
    Membership.objects.create(club=club, user=account, role="organizer")
    return Ladder.objects.create(pk=LADDER_ID, club=club, account=account)


def ensure_anchors(ladder: Ladder) -> None:
    """One house player per level of ``DEKABES_LADDER_LEVELS``, each a fixed anchor."""
    have = set(
        Entry.objects.exclude(house_level="")
        .filter(active=True)
        .values_list("house_level", flat=True)
    )
    for level in settings.DEKABES_LADDER_LEVELS:
        if level in have:
            continue
        with transaction.atomic():
            bot = hosted_player_for(club=ladder.club, level=level)
            entry, _ = Entry.objects.get_or_create(
                bot=bot, defaults={"house_level": level, "matches_per_day": 0}
            )
            anchor = Rating(mu=ANCHOR_MU[level], sigma=ANCHOR_SIGMA)
            version, _ = Version.objects.get_or_create(
                entry=entry,
                name=level,
                defaults={
                    "mu": anchor.mu,
                    "sigma": anchor.sigma,
                    "ordinal": anchor.ordinal,
                    "start_mu": anchor.mu,
                    "start_sigma": anchor.sigma,
                },
            )
            entry.house_level, entry.active, entry.version = level, True, version
            entry.save(update_fields=["house_level", "active", "version"])
