"""Matchmaking: seeks (a casual table's open seats, listed for anyone it wants), a bot's
published terms, challenges of four seats, and the ledger the daily quotas count.

A seek is a row beside its table, not a state of the table: the table is an ordinary
casual table whose open seats the seek offers (``seeks.offer_seek_seat``) until they are
taken or the seek expires (the ticking driver, ``matchmaking.tick``). A challenge's table
exists only once every invitee has accepted.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

USER = settings.AUTH_USER_MODEL

WANTED = (("people", "people"), ("bots", "bots"), ("any", "any"))
WHO = (("people", "people"), ("bots", "bots"), ("any", "any"))


class Seek(models.Model):
    STATUSES = (
        ("open", "open"),
        ("filled", "filled"),
        ("expired", "expired"),
        ("cancelled", "cancelled"),
    )

    table = models.OneToOneField("tables.Table", on_delete=models.CASCADE, related_name="seek")
    owner = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="seeks")
    wanted = models.CharField(max_length=6, choices=WANTED)
    min_level = models.FloatField(null=True, blank=True)
    max_level = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=9, choices=STATUSES, default="open")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "expires_at"], name="seek_open_by_expiry")]

    def __str__(self) -> str:
        return f"seek {self.pk} ({self.status})"


class BotTerms(models.Model):
    """What a bot accepts, published by its owner: a challenge outside them is refused
    before it is made (``challenges.check_terms``). A bot without terms takes none."""

    bot = models.OneToOneField(USER, on_delete=models.CASCADE, related_name="terms")
    casual = models.BooleanField(default=True)
    rated = models.BooleanField(default=False)
    opponents = models.CharField(max_length=6, choices=WHO, default="any")
    partners = models.CharField(max_length=6, choices=WHO, default="any")
    min_seconds_per_move = models.PositiveIntegerField(default=1)
    max_seconds_per_move = models.PositiveIntegerField(default=600)
    games_per_day = models.PositiveIntegerField(default=50)
    # UTC hours [from, to) in which it takes challenges; from == to: all day.
    hours_from = models.PositiveSmallIntegerField(default=0)
    hours_to = models.PositiveSmallIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"terms of {self.bot_id}"


class Challenge(models.Model):
    STATUSES = (
        ("pending", "pending"),
        ("started", "started"),
        ("declined", "declined"),
        ("cancelled", "cancelled"),
        ("expired", "expired"),
    )

    challenger = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="challenges_made")
    rated = models.BooleanField(default=False)
    seconds_per_move = models.PositiveIntegerField()
    status = models.CharField(max_length=9, choices=STATUSES, default="pending")
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "expires_at"], name="challenge_pending_by_expiry")
        ]

    def __str__(self) -> str:
        return f"challenge {self.pk} ({self.status})"


class ChallengeSeat(models.Model):
    """One of a challenge's four seats: the challenger's (accepted from the start), its
    partner's and the two opponents'."""

    ANSWERS = (("pending", "pending"), ("accepted", "accepted"), ("declined", "declined"))

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="challenge_seats")
    answer = models.CharField(max_length=8, choices=ANSWERS, default="pending")
    reason = models.CharField(max_length=20, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["challenge", "number"], name="one_challenge_seat"),
        ]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"challenge {self.challenge_id} seat {self.number}"


class QuotaUse(models.Model):
    """One use of a daily quota: an account took a seat (or made a table) through
    matchmaking. ``owner``: the member a bot belongs to (its own account for a person),
    so a member's bots are counted together."""

    account = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    what = models.CharField(max_length=10)  # seek, join, challenge, accept
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [
            models.Index(fields=["account", "at"], name="quota_use_by_account"),
            models.Index(fields=["owner", "at"], name="quota_use_by_owner"),
        ]

    def __str__(self) -> str:
        return f"{self.account_id} {self.what} at {self.at}"
