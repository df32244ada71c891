"""The bot ladder's rows (docs/ladder.md): who is entered, each bot version's rating, and
the ladder's matches, each a *pair* of legs dealt in duplicate.

A leg is an ordinary table of the ladder's public club with its ``LeagueMatch`` (so its
replay, its match page and live watching are the league's); the rows here say which
legs belong together, who was drawn, with which version, and what the pair did to the
ratings. ``Version`` holds the current rating of a bot version (a projection of the
rated pairs, in the order they were rated).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

USER = settings.AUTH_USER_MODEL


class Ladder(models.Model):
    """The one ladder of the server: its public club (the legs' tables and the house
    players live there) and the house account that owns its tables."""

    club = models.OneToOneField("league.Club", on_delete=models.PROTECT, related_name="+")
    account = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    rounds = models.PositiveIntegerField(default=0, help_text="scheduling passes so far")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"ladder in club {self.club_id}"


class Entry(models.Model):
    """A bot on the ladder: an author's bot that opted in, or a house level (an anchor)."""

    bot = models.OneToOneField(USER, on_delete=models.PROTECT, related_name="ladder_entry")
    house_level = models.CharField(
        max_length=10, blank=True, default="", help_text="an anchor's level; empty: an entrant"
    )
    active = models.BooleanField(default=True, help_text="False once it left the ladder")
    version = models.ForeignKey(
        "Version", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    matches_per_day = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(
        default=timezone.now, help_text="its last opt-in: scheduled only while recent"
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"ladder entry of {self.bot_id}"

    @property
    def anchor(self) -> bool:
        return bool(self.house_level)


class Version(models.Model):
    """One declared version of a bot and its rating (an anchor has one, fixed)."""

    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="versions")
    name = models.CharField(max_length=40)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    # Where its rating started (``entries._version``): ``rebuild_ladder`` replays the
    # rated pairs from here, as ``rebuild_league`` replays the logs.
    start_mu = models.FloatField()
    start_sigma = models.FloatField()
    pairs = models.PositiveIntegerField(default=0, help_text="rated pairs played")
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    substituted = models.PositiveIntegerField(default=0, help_text="pairs it timed out of")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entry", "name"], name="one_version_name")]
        ordering = ["entry", "id"]

    def __str__(self) -> str:
        return f"entry {self.entry_id} version {self.name}"


class Pair(models.Model):
    """A ladder match: two legs on the same deals, the seats turned for the second."""

    STATUSES = (
        ("first", "first leg playing"),
        ("second", "second leg playing"),
        ("done", "done"),
        ("void", "void"),
    )
    RESULTS = (("A", "A"), ("B", "B"), ("tie", "tie"))

    round = models.PositiveIntegerField(help_text="the scheduling pass that drew it")
    status = models.CharField(max_length=6, choices=STATUSES, default="first")
    # Both legs deal from it (``tables.Table.deal_seed``); never leaves the server.
    deal_seed = models.CharField(max_length=64, editable=False)
    shared_owner = models.BooleanField(
        default=False, help_text="drawn with two bots of one owner: nothing else could be"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.CharField(max_length=3, choices=RESULTS, blank=True, default="")
    margin = models.IntegerField(default=0, help_text="team A's score difference, both legs")
    rated = models.BooleanField(default=False)
    note = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"], name="ladder_pair_status")]

    def __str__(self) -> str:
        return f"ladder pair {self.pk} ({self.status})"


class PairSeat(models.Model):
    """One of the pair's four bots: its team (of the first leg; the second turns the
    seats), the version it played with, and its rating before and after."""

    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="seats")
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="pair_seats")
    version = models.ForeignKey(Version, on_delete=models.PROTECT, related_name="+")
    team = models.CharField(max_length=1)
    first_seat = models.PositiveSmallIntegerField(help_text="its seat in the first leg")
    substituted = models.BooleanField(
        default=False, help_text="timed out: a house player took over"
    )
    mu_before = models.FloatField(null=True, blank=True)
    sigma_before = models.FloatField(null=True, blank=True)
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pair", "first_seat"], name="one_pair_seat"),
            models.UniqueConstraint(fields=["pair", "entry"], name="one_entry_per_pair"),
        ]
        ordering = ["pair", "first_seat"]
        indexes = [models.Index(fields=["entry", "pair"], name="ladder_entry_pairs")]

    def __str__(self) -> str:
        return f"pair {self.pair_id} seat {self.first_seat}"


class Leg(models.Model):
    """One of the pair's two matches: its league match (and so its table)."""

    pair = models.ForeignKey(Pair, on_delete=models.CASCADE, related_name="legs")
    number = models.PositiveSmallIntegerField()
    match = models.OneToOneField(
        "league.LeagueMatch", on_delete=models.PROTECT, related_name="ladder_leg"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pair", "number"], name="one_leg_number")]
        ordering = ["pair", "number"]

    def __str__(self) -> str:
        return f"pair {self.pair_id} leg {self.number}"
