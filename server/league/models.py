"""The club league: organisation rows (clubs, seasons, rounds, who sits where) and
projections (results, standings, ratings).

Tables stay the one place where matches are played. A ``LeagueMatch`` points at its
``Table``; its result fields, ``StandingRow``, ``Rating`` and ``RatingPoint`` are
projections over the tables' event logs: ``manage.py rebuild_league`` drops and
recomputes them to identical values. Nothing here is ever deleted by the API: a removed
member's matches stay.
"""

from __future__ import annotations

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils import timezone

USER = settings.AUTH_USER_MODEL


class Club(models.Model):
    VISIBILITIES = (("public", "public"), ("members", "members"))

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True, default="")
    visibility = models.CharField(max_length=7, choices=VISIBILITIES, default="public")
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text="an IANA zone (Europe/Madrid): deadlines and match times are shown in it",
    )
    created_by = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    ROLES = (("organizer", "organizer"), ("member", "member"))

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="memberships")
    role = models.CharField(max_length=9, choices=ROLES, default="member")
    active = models.BooleanField(default=True, help_text="False once removed; the history stays")
    entered_by = models.ForeignKey(
        USER,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="who entered this bot",
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True)
    barred = models.BooleanField(
        default=False,
        help_text="removed by an organizer: no invite code lets them back until an "
        "organizer allows it",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "user"], name="one_membership")]
        ordering = ["club", "user__username"]

    def __str__(self) -> str:
        return f"{self.user_id} in club {self.club_id} ({self.role})"


class Invite(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invites")
    code = models.CharField(max_length=16, unique=True)
    created_by = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    single_use = models.BooleanField(default=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(
        null=True, blank=True, help_text="set once revoked: the code joins no one any more"
    )

    def __str__(self) -> str:
        return f"invite to club {self.club_id}"


class ClubAction(models.Model):
    """One entry of a club's organizer action log: who did what, when. Kept forever.

    Written by ``services.record_action`` inside the transaction of the action itself, so
    the log never disagrees with what happened (a refused action writes nothing). What
    the action was about is stored as data in ``details`` (usernames, round numbers, the
    reason...), so an entry still reads the same after its subject changes. Nothing
    deletes an entry: its club and actor are protected, and neither clubs nor accounts
    are ever deleted by the API.
    """

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="actions")
    actor = models.ForeignKey(
        USER,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="who did it; null: the server itself (e.g. an automatic substitution)",
    )
    verb = models.CharField(max_length=32, help_text="one of action_log.VERBS")
    details = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-id"]
        # A club's log is read newest first, a page at a time.
        indexes = [models.Index(fields=["club", "-at", "-id"], name="club_log")]

    def __str__(self) -> str:
        return f"club {self.club_id}: {self.verb} by {self.actor_id}"


class Season(models.Model):
    FORMATS = (("individual", "individual"), ("pairs", "pairs"))

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=80)
    format = models.CharField(max_length=10, choices=FORMATS)
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)
    fill_with_bots = models.BooleanField(
        default=False, help_text="house bots fill seats instead of byes"
    )
    seed = models.BigIntegerField(help_text="draws are deterministic for a season's seed")
    duplicate = models.BooleanField(
        default=False,
        help_text="duplicate rounds: every table of a round plays the same deals (docs/league.md)",
    )
    auto_substitute_after = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="minutes: at a round's deadline, a seat away this long gets a hosted "
        "computer player (null: off)",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="set once closed (archived): no new round"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.format})"


class Pair(models.Model):
    """A fixed partnership registered for a pairs season."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="pairs")
    name = models.CharField(max_length=80)
    player_1 = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    player_2 = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    @property
    def members(self) -> list:
        """The two players, in registration order."""
        return [self.player_1, self.player_2]


class Round(models.Model):
    STATUSES = (("open", "open"), ("started", "started"), ("finished", "finished"))

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=8, choices=STATUSES, default="open")
    started_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(
        null=True,
        blank=True,
        help_text="set by an organizer: forfeits and automatic substitutes after it",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="one_round_number")
        ]
        ordering = ["season", "number"]

    def __str__(self) -> str:
        return f"season {self.season_id} round {self.number} ({self.status})"


class CheckIn(models.Model):
    """Who is present for a round: a player (individual) or a pair (pairs)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="checkins")
    player = models.ForeignKey(
        USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pair = models.ForeignKey(
        Pair, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    bye = models.BooleanField(default=False, help_text="drawn to sit this round out")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "player"], name="one_checkin_per_player"),
            models.UniqueConstraint(fields=["round", "pair"], name="one_checkin_per_pair"),
        ]

    def __str__(self) -> str:
        return f"round {self.round_id}: " + (
            f"pair {self.pair_id}" if self.pair_id else f"player {self.player_id}"
        )


class Availability(models.Model):
    """A member says they can play the season's next round (or, set by an organizer, that
    they cannot). One row per member and season; it speaks for the next round opened or
    still open, and the organizer's check-in is still what counts."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="availability")
    player = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    available = models.BooleanField(default=True)
    set_by = models.ForeignKey(
        USER, on_delete=models.PROTECT, related_name="+", help_text="the member or an organizer"
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["season", "player"], name="one_availability")
        ]

    def __str__(self) -> str:
        return f"season {self.season_id}: player {self.player_id} {self.available}"


class Announcement(models.Model):
    """A short plain-text note an organizer posts on the club page."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="announcements")
    text = models.CharField(max_length=500)
    author = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    removed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"announcement {self.pk} in club {self.club_id}"


class LeagueMatch(models.Model):
    """One match: a league table of a round, or a finished casual table.

    ``status``, ``winner`` and the counters are the projection of the table's log,
    written in the transaction of the event that ended (or annulled) the match.
    """

    STATUSES = (("playing", "playing"), ("finished", "finished"), ("annulled", "annulled"))

    table = models.OneToOneField(
        "tables.Table", on_delete=models.PROTECT, related_name="league_match"
    )
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    season = models.ForeignKey(
        Season, null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    round = models.ForeignKey(
        Round, null=True, blank=True, on_delete=models.PROTECT, related_name="matches"
    )
    table_number = models.PositiveSmallIntegerField(null=True, blank=True)
    pair_a = models.ForeignKey(
        Pair, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pair_b = models.ForeignKey(
        Pair, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    rated = models.BooleanField(default=False)
    started_at = models.DateTimeField()
    # -- projection ----------------------------------------------------------------
    status = models.CharField(max_length=8, choices=STATUSES, default="playing")
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    end_seq = models.PositiveIntegerField(null=True, blank=True)
    winner = models.CharField(max_length=1, null=True, blank=True)  # noqa: DJ001 -- NULL is "no result yet", distinct from A, B or a tie
    score_a = models.PositiveSmallIntegerField(default=0)
    score_b = models.PositiveSmallIntegerField(default=0)
    hands = models.PositiveSmallIntegerField(default=0)
    hands_won_a = models.PositiveSmallIntegerField(default=0)
    hands_won_b = models.PositiveSmallIntegerField(default=0)
    hands_tied = models.PositiveSmallIntegerField(default=0)
    points_a = models.PositiveSmallIntegerField(default=0)
    points_b = models.PositiveSmallIntegerField(default=0)
    dekabes_a = models.PositiveSmallIntegerField(default=0)
    dekabes_b = models.PositiveSmallIntegerField(default=0)
    annul_reason = models.TextField(blank=True, default="")
    # noqa: DJ001 -- NULL is "not forfeited", distinct from either team
    forfeited_by = models.CharField(max_length=1, null=True, blank=True)  # noqa: DJ001

    class Meta:
        ordering = ["-started_at", "-id"]
        # The lists walk these in their order and stop after a page (no sort of the club).
        indexes = [
            models.Index(fields=["club", "status", "finished_at"], name="club_finished"),
            models.Index(fields=["season", "status"], name="season_status"),
            models.Index(fields=["club", "-started_at", "-id"], name="club_recent"),
            models.Index(fields=["-started_at", "-id"], name="recent"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} ({self.status})"


class LeagueMatchSeat(models.Model):
    match = models.ForeignKey(LeagueMatch, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="match_seats")
    team = models.CharField(max_length=1)
    is_bot = models.BooleanField(default=False)
    filler = models.BooleanField(
        default=False, help_text="a house bot filling a seat: a substitute, not an entrant"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "number"], name="one_match_seat")]
        ordering = ["number"]
        indexes = [models.Index(fields=["player", "match"], name="player_matches")]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.number}"


class StandingRow(models.Model):
    """A season's standings, stored in order (projection)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    position = models.PositiveIntegerField()
    player = models.ForeignKey(
        USER, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pair = models.ForeignKey(
        Pair, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    played = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    byes = models.PositiveIntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)
    hands_lost = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    dekabes = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    forfeits = models.PositiveIntegerField(default=0)
    duplicate = models.FloatField(
        null=True, blank=True, help_text="duplicate score (duplicate seasons; docs/league.md)"
    )

    class Meta:
        ordering = ["season", "position"]
        constraints = [models.UniqueConstraint(fields=["season", "position"], name="one_position")]

    def __str__(self) -> str:
        return f"season {self.season_id} #{self.position}"

    @property
    def entrant_id(self) -> int:
        """The player's id (individual format) or the pair's (pairs): the last tie-break."""
        return self.player_id if self.player_id is not None else self.pair_id  # type: ignore[return-value]  # one of the two is set


class Rating(models.Model):
    """A player's current openskill rating in a club (projection)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="ratings")
    player = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    matches = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "player"], name="one_rating")]
        ordering = ["-ordinal", "player_id"]

    def __str__(self) -> str:
        return f"player {self.player_id} in club {self.club_id}: {self.ordinal:.2f}"


class RatingPoint(models.Model):
    """A player's rating after one rated match: the history a chart is drawn from."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="rating_points")
    match = models.ForeignKey(LeagueMatch, on_delete=models.CASCADE, related_name="rating_points")
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "match"], name="one_point_per_match")
        ]
        indexes = [models.Index(fields=["club", "player", "id"], name="player_history")]

    def __str__(self) -> str:
        return f"player {self.player_id} after match {self.match_id}"


class MatchAnalysis(models.Model):
    """The expert's verdict on every decision of a finished match (``engine.analysis``).

    Computed in the background by ``manage.py analyse_matches --watch`` (started and
    supervised by ``server.run``), never in a request: a row is ``pending`` until a
    worker claims it (``running``, ``claimed_at``), then ``done`` with its ``report``,
    or ``failed``. ``version`` is the ``engine.analysis.ANALYSIS_VERSION`` the report was
    computed with: a row of an older version is analysed again. Disposable: deleting a
    row only means it is computed again.
    """

    STATUSES = (
        ("pending", "pending"),
        ("running", "running"),
        ("done", "done"),
        ("failed", "failed"),
    )

    match = models.OneToOneField(LeagueMatch, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=7, choices=STATUSES, default="pending")
    version = models.PositiveSmallIntegerField(default=0)
    iterations = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    done_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0.0, help_text="CPU time the analysis took")
    report = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["status", "id"], name="analysis_queue")]

    def __str__(self) -> str:
        return f"analysis of match {self.match_id} ({self.status})"


class SeatAccuracy(models.Model):
    """One holding's summary in an analysed match: the decisions one person made at one
    seat, what a player's accuracy sums (projection of ``MatchAnalysis.report`` split by
    ``holders``, written with it). A seat that never changed hands has one row (holding
    0); when it changed hands, each holder's decisions are a row of their own, ``holding``
    counting the seat's holders from 0."""

    analysis = models.ForeignKey(MatchAnalysis, on_delete=models.CASCADE, related_name="seats")
    match = models.ForeignKey(LeagueMatch, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(USER, on_delete=models.PROTECT, related_name="+")
    seat = models.PositiveSmallIntegerField()
    holding = models.PositiveSmallIntegerField(default=0, help_text="the seat's k-th holder")
    decisions = models.PositiveIntegerField(default=0)
    best_moves = models.PositiveIntegerField(default=0)
    total_loss = models.FloatField(default=0.0)
    blunders = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["analysis", "seat", "holding"], name="one_accuracy_per_holding"
            )
        ]
        indexes = [models.Index(fields=["player", "match"], name="player_accuracy")]

    def __str__(self) -> str:
        return f"match {self.match_id} seat {self.seat} holding {self.holding}"
