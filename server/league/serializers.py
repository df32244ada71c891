"""Request bodies (read with ``server.api_schema.strict``) and the league's answers.

The answer serializers *render* what the views return (``MatchSerializer(match).data``):
they are the one statement of each answer's shape, and the OpenAPI schema is generated
from them. They read model instances and the selectors' small read results; a value
that needs a read (a live match's score) comes from ``selectors``."""

from __future__ import annotations

import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

from engine.bots import LEVELS
from server.api_schema import Answer, Instant
from server.errors import BadPage, ValidationError
from server.league import holders, selectors
from server.league.action_log import VERBS

ID_MAX = 2**63 - 1  # a database integer: larger ids cannot exist (and SQLite overflows)


# -- pagination ---------------------------------------------------------------------------
PAGE_SIZE, MAX_PAGE_SIZE = 50, 200
PAGE_SIZE_RE = re.compile(r"\A[0-9]{1,6}\Z")  # ASCII digits (str.isdigit takes "²")
PAGE_RE = re.compile(r"\A[0-9]{1,9}\Z")

# The query of every list, declared once for the schema.
PAGE_PARAMETERS = [
    OpenApiParameter(
        "page", OpenApiTypes.INT, description="1, 2, ...; a page past the end is 404 bad_page"
    ),
    OpenApiParameter(
        "page_size",
        OpenApiTypes.INT,
        description=f"rows per page, 1 to {MAX_PAGE_SIZE} (default {PAGE_SIZE})",
    ),
]


class Pages(PageNumberPagination):
    page_size = PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE


def check_page_query(params) -> None:
    """The one check of ``?page=&page_size=`` for every list: outside the documented
    range is a 400 ``validation_error`` (never quietly clamped)."""
    size = params.get("page_size")
    if size not in (None, "") and not (
        PAGE_SIZE_RE.match(size) and 1 <= int(size) <= MAX_PAGE_SIZE
    ):
        raise ValidationError(f"page_size is a whole number from 1 to {MAX_PAGE_SIZE}")
    page = params.get("page")
    if page not in (None, "", "last") and not (PAGE_RE.match(page) and int(page) >= 1):
        raise ValidationError("page is a whole number of 1 or more")


def paginate(request, rows, serializer_class, *, prepare=None, prepare_page=None):
    """``{"count", "next", "previous", "results"}`` for ``?page=&page_size=``, each row
    of the page (read further by ``prepare``, when given; the page's list by
    ``prepare_page``) rendered by ``serializer_class``."""
    check_page_query(request.query_params)
    pages = Pages()
    try:
        page: list = pages.paginate_queryset(rows, request) or []
    except NotFound:
        raise BadPage() from None
    if prepare is not None:
        page = [prepare(row) for row in page]
    if prepare_page is not None:
        page = prepare_page(page)
    return pages.get_paginated_response(serializer_class(page, many=True).data)


def paged(name: str, item) -> serializers.Serializer:
    return inline_serializer(
        name,
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True)
            if isinstance(item, type)
            else serializers.ListField(child=item),
        },
    )


# -- requests -----------------------------------------------------------------------------
class CreateClubSerializer(serializers.Serializer):
    slug = serializers.SlugField(max_length=40)
    name = serializers.CharField(max_length=80)
    description = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=2000
    )
    visibility = serializers.ChoiceField(choices=("public", "members"), default="public")


class UpdateClubSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80, required=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    visibility = serializers.ChoiceField(choices=("public", "members"), required=False)


class InviteRequestSerializer(serializers.Serializer):
    single_use = serializers.BooleanField(default=False)
    expires_at = serializers.DateTimeField(required=False, allow_null=True, default=None)


class JoinClubSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=16)


class EnterBotSerializer(serializers.Serializer):
    bot = serializers.CharField(
        max_length=40, help_text="a bot account you own (organizers: a house bot)"
    )


class AddHostedPlayerSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=LEVELS, help_text="engine.bots level it plays at")
    name = serializers.CharField(
        max_length=40,
        required=False,
        help_text="its account name (default: derived, e.g. riverside-expert-2)",
    )


class RoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=("organizer", "member"))


class CreateSeasonSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    format = serializers.ChoiceField(choices=("individual", "pairs"))
    starts_on = serializers.DateField(required=False, allow_null=True, default=None)
    ends_on = serializers.DateField(required=False, allow_null=True, default=None)
    fill_with_bots = serializers.BooleanField(
        default=False, help_text="house bots fill seats instead of byes"
    )
    auto_substitute_after = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        max_value=24 * 60,
        help_text="minutes (off: null, the default): once a round's deadline has passed, "
        "a seat away this long is handed to a strong hosted computer player",
    )
    duplicate = serializers.BooleanField(
        default=False,
        help_text="duplicate rounds: every table of a round plays the same deals; other "
        "tables' results hidden from the round's players until it ends (docs/league.md)",
    )
    seed = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=2**31 - 1,
        help_text="draw seed (default: random); same seed, same draws",
    )


class UpdateSeasonSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80, required=False)
    starts_on = serializers.DateField(required=False, allow_null=True)
    ends_on = serializers.DateField(required=False, allow_null=True)


class PairSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80, required=False, default="", allow_blank=True)
    players = serializers.ListField(
        child=serializers.CharField(max_length=40), min_length=2, max_length=2
    )


class CheckInSerializer(serializers.Serializer):
    players = serializers.ListField(
        child=serializers.CharField(max_length=40),
        required=False,
        help_text="individual seasons: usernames present",
    )
    pairs = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        required=False,
        help_text="pairs seasons: pair ids present",
    )


class AnnulSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


class DeadlineSerializer(serializers.Serializer):
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="ISO 8601 with a time zone; null removes the deadline"
    )


class SubstituteBySerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=40, required=False, help_text="a club member not seated in the round"
    )
    level = serializers.ChoiceField(
        choices=LEVELS, required=False, help_text="a server-hosted computer player at this level"
    )


class SubstituteSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=4)
    by = SubstituteBySerializer(help_text='{"username": ...} or {"level": ...}, one of the two')
    reason = serializers.CharField(max_length=500, required=False, default="", allow_blank=True)


class ForfeitSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=4, help_text="the absent seat")
    reason = serializers.CharField(max_length=500)


class NoBodySerializer(serializers.Serializer):
    pass


# -- answers -------------------------------------------------------------------------------
class PlayerRefSerializer(Answer):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()


class ClubSerializer(Answer):
    """A ``Club`` as ``selectors.clubs_for_reader`` reads it (counts and role annotated)."""

    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    visibility = serializers.ChoiceField(choices=("public", "members"))
    created_by = serializers.CharField(source="created_by.username")
    created_at = Instant()
    members = serializers.IntegerField(
        source="active_members", help_text="active members, bots included"
    )
    your_role = serializers.ChoiceField(
        choices=("organizer", "member"),
        allow_null=True,
        help_text="the caller's role; null for a non-member",
    )


class MemberSerializer(Answer):
    """A ``Membership``."""

    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=("organizer", "member"))
    is_bot = serializers.BooleanField(source="user.is_bot")
    owner = serializers.CharField(
        source="user.bot_owner.username",
        allow_null=True,
        help_text="the member who owns this bot",
    )
    house_bot = serializers.BooleanField(
        source="user.is_house_bot", help_text="a bot account without an owner"
    )
    level = serializers.SerializerMethodField(
        help_text="a server-hosted computer player's level; null for everyone else"
    )
    active = serializers.BooleanField()
    joined_at = Instant()
    removed_at = Instant(allow_null=True)

    @extend_schema_field(serializers.ChoiceField(choices=LEVELS, allow_null=True))
    def get_level(self, membership) -> str | None:
        return membership.user.hosted_level or None


class InviteSerializer(Answer):
    code = serializers.CharField()
    single_use = serializers.BooleanField()
    uses = serializers.IntegerField()
    expires_at = Instant(allow_null=True)
    created_by = serializers.CharField(source="created_by.username")
    created_at = Instant()
    revoked_at = Instant(allow_null=True, help_text="set once revoked: the code joins no one")


class ClubActionSerializer(Answer):
    """One ``ClubAction`` of the organizer action log (docs/league.md, "Action log")."""

    id = serializers.IntegerField()
    at = Instant()
    actor = serializers.CharField(
        source="actor.username", allow_null=True, help_text="who did it; null: the server"
    )
    verb = serializers.ChoiceField(choices=list(VERBS), help_text="a stable code, never renamed")
    details = serializers.DictField(
        help_text="what the action was about, as data (its keys per verb in docs/league.md)"
    )


class HostedPlayerSerializer(Answer):
    """A hosted player in service, as the host process reads it (a ``User``)."""

    username = serializers.CharField()
    level = serializers.ChoiceField(choices=LEVELS, source="hosted_level")


class HostedPlayersSerializer(Answer):
    players = HostedPlayerSerializer(many=True)


class PairOutSerializer(Answer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    players = PlayerRefSerializer(many=True, source="members")


class SeasonSerializer(Answer):
    """A ``Season`` as ``selectors.seasons_of`` reads it (round count annotated)."""

    id = serializers.IntegerField()
    club = serializers.CharField(source="club.slug")
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=("individual", "pairs"))
    starts_on = serializers.DateField(allow_null=True)
    ends_on = serializers.DateField(allow_null=True)
    fill_with_bots = serializers.BooleanField()
    auto_substitute_after = serializers.IntegerField(
        allow_null=True, help_text="minutes away before an automatic substitute; null: off"
    )
    duplicate = serializers.BooleanField(help_text="duplicate rounds (docs/league.md)")
    rounds = serializers.IntegerField(source="round_count")
    pairs = PairOutSerializer(many=True)
    created_at = Instant()
    closed_at = Instant(allow_null=True, help_text="set once closed (archived)")


class OmitNullsSerializer(Answer):
    """Leaves out the ``omit_when_null`` fields whose value is null (e.g. a standings row
    has ``player`` or ``pair``, never both)."""

    omit_when_null: tuple[str, ...] = ()

    def to_representation(self, instance):
        data = super().to_representation(instance)
        for name in self.omit_when_null:
            if data.get(name, 0) is None:
                del data[name]
        return data


class EntrantSerializer(OmitNullsSerializer):
    """Who a check-in (or a bye) is: a player (individual seasons) or a pair."""

    omit_when_null = ("player", "pair")
    player = PlayerRefSerializer(required=False, allow_null=True)
    pair = PairOutSerializer(required=False, allow_null=True)


class TeamCountsSerializer(Answer):
    """``{"A": n, "B": n}``; with ``column``, read from a match's ``<column>_a`` and
    ``<column>_b`` (e.g. ``column="points"``)."""

    A = serializers.IntegerField()
    B = serializers.IntegerField()

    def __init__(self, *args, column: str | None = None, **kwargs):
        self.column = column
        if column is not None:
            kwargs["source"] = "*"
        super().__init__(*args, **kwargs)

    def to_representation(self, instance):
        if self.column is None:
            return super().to_representation(instance)
        return {team: getattr(instance, f"{self.column}_{team.lower()}") for team in ("A", "B")}


class SeasonRefSerializer(Answer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PairRefSerializer(Answer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class TeamPairsSerializer(Answer):
    A = PairRefSerializer(source="pair_a")
    B = PairRefSerializer(source="pair_b")


class MatchSeatsSerializer(serializers.ListSerializer):
    """A match's seats: the ``seat_rows`` a list read with its page
    (``selectors.with_seat_rows``), else the match's own ``seats``."""

    def get_attribute(self, instance):
        rows = getattr(instance, "seat_rows", None)
        return instance.seats.all() if rows is None else rows


class MatchSeatSerializer(Answer):
    class Meta:
        list_serializer_class = MatchSeatsSerializer

    seat = serializers.IntegerField(source="number")
    team = serializers.ChoiceField(choices=("A", "B"))
    player = serializers.CharField(source="player.username")
    is_bot = serializers.BooleanField()
    filler = serializers.BooleanField(help_text="a house bot filling the seat")


OVER_ONLY = ("hands_won", "hands_tied", "points", "dekabes")


class MatchSerializer(Answer):
    """A ``LeagueMatch``. In progress it shows its seats and its score only: the
    counters of ``OVER_ONLY`` come with a finished or annulled match."""

    id = serializers.IntegerField()
    table = serializers.CharField(
        source="table.code", help_text="the table's code (/api/tables/{code})"
    )
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=("playing", "finished", "annulled"))
    annulled = serializers.SerializerMethodField()
    annul_reason = serializers.SerializerMethodField()
    club = serializers.CharField(
        source="club.slug", allow_null=True, help_text="null: a casual match"
    )
    season = SeasonRefSerializer(allow_null=True)
    round = serializers.IntegerField(source="round.number", allow_null=True)
    table_number = serializers.IntegerField(allow_null=True)
    started_at = Instant()
    finished_at = Instant(allow_null=True)
    seats = MatchSeatSerializer(many=True)
    pairs = serializers.SerializerMethodField(help_text="pairs seasons: the pair of each team")
    score = serializers.SerializerMethodField(help_text="the match score (live while playing)")
    winner = serializers.ChoiceField(choices=("A", "B"), allow_null=True)
    forfeited_by = serializers.ChoiceField(
        choices=("A", "B"),
        allow_null=True,
        help_text="the team that lost by forfeit (the other one is the winner); null: none",
    )
    hands = serializers.SerializerMethodField(help_text="hands played; null while in progress")
    hands_won = TeamCountsSerializer(
        column="hands_won",
        required=False,
        help_text="hands won per team (finished or annulled matches only)",
    )
    hands_tied = serializers.IntegerField(
        required=False, help_text="tied hands (finished or annulled matches only)"
    )
    points = TeamCountsSerializer(
        column="points",
        required=False,
        help_text="points scored per team, hand by hand (finished or annulled matches only)",
    )
    dekabes = TeamCountsSerializer(
        column="dekabes",
        required=False,
        help_text="hands won with a Dékabès per team (finished or annulled matches only)",
    )

    @extend_schema_field(serializers.BooleanField())
    def get_annulled(self, m) -> bool:
        return m.status == "annulled"

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_annul_reason(self, m) -> str | None:
        return m.annul_reason or None

    @extend_schema_field(TeamPairsSerializer(allow_null=True))
    def get_pairs(self, m):
        return TeamPairsSerializer(m).data if m.pair_a_id else None

    @extend_schema_field(TeamCountsSerializer)
    def get_score(self, m) -> dict:
        return selectors.match_score(m)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_hands(self, m) -> int | None:
        return m.hands if m.status != "playing" else None

    def to_representation(self, instance):
        data = super().to_representation(instance)
        if instance.status == "playing":  # no counter of a live match is shown
            for name in OVER_ONLY:
                del data[name]
        return data


class SeatHolderSerializer(Answer):
    """One person's time at a seat (``holders.Holding``; docs/league.md, "Who really
    played"). Where and how long are ``null`` while the match is played."""

    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True, help_text="who held the seat")
    previous = serializers.CharField(
        allow_null=True, help_text="who held it before them (null: the first holder)"
    )
    reason = serializers.CharField(
        allow_null=True,
        help_text="how the seat came to them: substitute, auto_substitute, leave, replace,"
        " computer (null: the first holder)",
    )
    from_hand = serializers.IntegerField(
        allow_null=True, help_text="the hand they played from (1: from the start)"
    )
    from_move = serializers.IntegerField(
        allow_null=True, help_text="the move of that hand that came next (1: its first)"
    )
    from_step = serializers.IntegerField(
        allow_null=True,
        help_text="the record's index (0-based) of the first event after they took the"
        " seat: the replay's step",
    )
    hands = serializers.IntegerField(
        allow_null=True, help_text="the hands that ended while they held the seat"
    )
    rated = serializers.BooleanField(
        allow_null=True,
        help_text="whether the match rates them for this seat (at least half of its hands);"
        " null: the match is not rated",
    )


def seat_holders(m) -> list[dict]:
    """The answer's ``seat_holders``: every holding of every seat, seat by seat."""
    over = m.status != "playing"
    held = holders.match_holdings(m)
    rated = m.status == "finished" and m.rated and m.club_id and m.forfeited_by is None
    rows = []
    for h in held.all:
        rated_holder = held.rated_holder(h.seat) if rated else None
        rows.append(
            {
                "seat": h.seat,
                "player": h.player,
                "previous": h.previous,
                "reason": h.reason,
                "from_hand": h.hand if over else None,
                "from_move": h.move if over else None,
                "from_step": h.step if over else None,
                "hands": h.hands if over else None,
                "rated": (rated_holder is h) if rated else None,
            }
        )
    return rows


class MatchDetailSerializer(MatchSerializer):
    """``GET /api/matches/{id}``: a match with who held each seat when. ``seats`` keeps
    the players drawn (the entrants); ``seat_holders`` lists every holding of every
    seat, a substitute's from the hand and move where they took over."""

    seat_holders = serializers.SerializerMethodField(
        help_text="who held each seat when, seat by seat in order (one per seat when no"
        " seat changed hands)"
    )

    @extend_schema_field(SeatHolderSerializer(many=True))
    def get_seat_holders(self, m) -> list[dict]:
        return seat_holders(m)


class RoundSerializer(Answer):
    """A ``selectors.RoundDetails``: the round, who checked in, the byes, the matches."""

    season = serializers.IntegerField(source="round.season_id")
    number = serializers.IntegerField(source="round.number")
    status = serializers.ChoiceField(choices=("open", "started", "finished"), source="round.status")
    started_at = Instant(source="round.started_at", allow_null=True)
    deadline = Instant(
        source="round.deadline",
        allow_null=True,
        help_text="set by an organizer: forfeits and automatic substitutes come after it",
    )
    present = EntrantSerializer(many=True, help_text="who checked in")
    byes = EntrantSerializer(many=True, help_text="who sits this round out")
    tables = MatchSerializer(many=True)


class StandingSerializer(OmitNullsSerializer):
    """A ``StandingRow``: every column is defined in docs/league.md ("Standings")."""

    omit_when_null = ("player", "pair", "duplicate")
    position = serializers.IntegerField()
    entrant_id = serializers.IntegerField(
        help_text="the player's (individual) or the pair's (pairs) id: the last tie-break"
    )
    player = PlayerRefSerializer(required=False, allow_null=True, help_text="individual seasons")
    pair = PairOutSerializer(required=False, allow_null=True, help_text="pairs seasons")
    played = serializers.IntegerField(help_text="finished matches played (byes not counted)")
    wins = serializers.IntegerField(help_text="match wins, a bye counting as one")
    byes = serializers.IntegerField()
    hands_won = serializers.IntegerField(help_text="hands its side won, in its matches")
    hands_lost = serializers.IntegerField(help_text="hands the other side won")
    points = serializers.IntegerField(
        help_text="points its side scored, hand by hand (a later reset to 0 takes none back)"
    )
    dekabes = serializers.IntegerField(help_text="hands its side won with a Dékabès")
    ties = serializers.IntegerField(help_text="tied hands in its matches")
    forfeits = serializers.IntegerField(
        help_text="matches its side lost by forfeit (counted in played; no hands or points)"
    )
    duplicate = serializers.FloatField(
        required=False,
        allow_null=True,
        help_text="duplicate seasons only: the duplicate score, points above each deal's "
        "par summed over the finished rounds (docs/league.md)",
    )


class RatingSerializer(Answer):
    player = serializers.CharField(source="player.username")
    is_bot = serializers.BooleanField(source="player.is_bot")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the number to display")
    matches = serializers.IntegerField()


class RatingPointSerializer(Answer):
    match = serializers.IntegerField(source="match_id")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()


class RatingHistoryField(serializers.ListField):
    """A rating history: ``RatingPointSerializer``'s shape, written point by point here
    because a history grows with every match (1,000 points: 0.4 ms this way, 9.8 ms
    through the child serializer, measured on a shared host); the suite checks the
    answers against the schema."""

    def __init__(self, **kwargs):
        super().__init__(child=RatingPointSerializer(), **kwargs)

    def to_representation(self, points):  # selectors.HistoryPoint tuples
        return [
            {"match": match, "mu": mu, "sigma": sigma, "ordinal": ordinal}
            for match, mu, sigma, ordinal in points
        ]


class PlayerRatingSerializer(Answer):
    """A ``selectors.PlayerRating``: a club's rating of the player, with its history."""

    club = serializers.CharField(source="rating.club.slug")
    player = serializers.CharField(source="rating.player.username")
    is_bot = serializers.BooleanField(source="rating.player.is_bot")
    mu = serializers.FloatField(source="rating.mu")
    sigma = serializers.FloatField(source="rating.sigma")
    ordinal = serializers.FloatField(
        source="rating.ordinal", help_text="mu - 3 sigma: the number to display"
    )
    matches = serializers.IntegerField(source="rating.matches")
    history = RatingHistoryField(help_text="after each rated match, oldest first")


class PlayerClubSerializer(Answer):
    slug = serializers.CharField()
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=("organizer", "member"), allow_null=True)


class AccuracySerializer(Answer):
    """A player's accuracy over their analysed matches that the reader may see
    (``selectors.accuracy_of``; docs/league.md, "Analysis")."""

    matches = serializers.IntegerField(help_text="analysed matches counted")
    decisions = serializers.IntegerField(help_text="decisions with a choice, over those matches")
    mean_loss = serializers.FloatField(
        allow_null=True,
        help_text="average loss per decision, in the probability of winning the match; "
        "null without a decision",
    )
    best_share = serializers.FloatField(
        allow_null=True,
        help_text="share of decisions within 0.01 of the expert's best move; null without one",
    )
    blunders = serializers.IntegerField()


class PlayerSerializer(Answer):
    """A ``selectors.PlayerProfile``."""

    username = serializers.CharField(source="player.username")
    is_bot = serializers.BooleanField(source="player.is_bot")
    owner = serializers.CharField(source="player.bot_owner.username", allow_null=True)
    clubs = PlayerClubSerializer(many=True)
    ratings = PlayerRatingSerializer(many=True)
    recent_matches = MatchSerializer(many=True)
    accuracy = AccuracySerializer()


class StatsLineSerializer(Answer):
    """A ``selectors.StatsLine``."""

    club = serializers.CharField(allow_null=True, help_text="the club's slug; null: casual tables")
    club_name = serializers.CharField(allow_null=True)
    matches = serializers.IntegerField(help_text="finished matches")
    won = serializers.IntegerField(help_text="matches the player's team won")
    hands = serializers.IntegerField(help_text="hands of those matches")
    hands_won = serializers.IntegerField(help_text="hands the player's team won")
    dekabes = serializers.IntegerField(help_text="hands the player's team won with a Dékabès")


class PlayerStatsSerializer(Answer):
    """A ``selectors.PlayerStats``: over the finished matches the reader may read."""

    username = serializers.CharField(source="player.username")
    is_bot = serializers.BooleanField(source="player.is_bot")
    overall = StatsLineSerializer()
    clubs = StatsLineSerializer(many=True, help_text="one line per club, casual tables last")


class LeagueTableSerializer(Answer):
    """One seat of the caller's at a league match in progress (a ``LeagueMatchSeat``)."""

    match = serializers.IntegerField(source="match_id")
    table = serializers.CharField(source="match.table.code")
    seat = serializers.IntegerField(source="number")
    team = serializers.ChoiceField(choices=("A", "B"))
    club = serializers.CharField(source="match.club.slug")
    season = serializers.IntegerField(source="match.season_id")
    round = serializers.IntegerField(source="match.round.number", allow_null=True)
    table_number = serializers.IntegerField(source="match.table_number", allow_null=True)
    seat_url = serializers.SerializerMethodField()

    def get_seat_url(self, seat) -> str:
        return f"/api/tables/{seat.match.table.code}/seats/{seat.number}"


class MyLeagueTablesSerializer(Answer):
    """A ``selectors.LeagueTables``."""

    version = serializers.IntegerField(
        help_text="grows when a round seats you or one of your "
        "league matches ends; long-poll with after="
    )
    tables = LeagueTableSerializer(many=True, source="seats")


def league_tables_body(user) -> dict:
    """``GET /api/me/league-tables``, also pushed on ``/ws/me`` (the same body)."""
    return MyLeagueTablesSerializer(selectors.league_tables(user)).data


class HandSerializer(Answer):
    """One finished hand: the engine's ``last_hand`` (docs/engine.md) and the score after."""

    hand_no = serializers.IntegerField()
    result = serializers.ChoiceField(choices=("domino", "block", "tie"))
    team = serializers.ChoiceField(choices=("A", "B"), allow_null=True)
    points = serializers.IntegerField()
    dekabes = serializers.BooleanField()
    pips = serializers.DictField(child=serializers.IntegerField(), help_text="pips left, per seat")
    dealt = serializers.DictField(help_text="the accepted deal, per seat")
    hands = serializers.DictField(help_text="tiles left at the end, per seat")
    line = serializers.ListField(child=serializers.DictField())
    turns = serializers.ListField(child=serializers.DictField())
    opener = serializers.IntegerField(allow_null=True)
    scores_after = TeamCountsSerializer()
    players = serializers.DictField(
        child=serializers.CharField(allow_null=True),
        help_text="who held each seat (1-4) when the hand ended: whoever finished it (a"
        " substitute from the hand they took over in)",
    )


class MatchHandsSerializer(Answer):
    """``GET /api/matches/{id}/hands``: the match's id and its hands, in order."""

    match = serializers.IntegerField(source="match_id")
    hands = HandSerializer(many=True)


class DecisionSerializer(Answer):
    """One decision of a match's analysis (``engine.analysis``; docs/engine.md), valued
    from the deciding seat's view only."""

    at = serializers.IntegerField(help_text="the event's index in the record (0-based)")
    hand_no = serializers.IntegerField()
    seat = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=("play", "choose_opener"))
    played = serializers.DictField(help_text="the event played")
    best = serializers.DictField(help_text="the expert's preferred event")
    win_played = serializers.FloatField(help_text="the seat's team's chance to win after it")
    win_best = serializers.FloatField()
    loss = serializers.FloatField(help_text="win_best - win_played (never below 0)")
    mark = serializers.ChoiceField(choices=("good", "inaccuracy", "mistake", "blunder"))
    team_a = serializers.FloatField(help_text="team A's chance to win after it, as the seat saw it")
    moves = serializers.ListField(
        child=serializers.DictField(), help_text="every legal move: {event, win}"
    )


class SeatAnalysisSerializer(Answer):
    decisions = serializers.IntegerField()
    accuracy = serializers.FloatField(
        allow_null=True, help_text="the best-move share (its first name: the same as best_share)"
    )
    best_share = serializers.FloatField(
        allow_null=True,
        help_text="the best-move share: decisions within 0.01 of the expert's best, over all"
        " decisions (4 decimals)",
    )
    mean_loss = serializers.FloatField(allow_null=True)
    best_moves = serializers.IntegerField()
    total_loss = serializers.FloatField()
    marks = serializers.DictField(child=serializers.IntegerField())
    biggest_mistakes = serializers.ListField(child=serializers.DictField())


class HolderAnalysisSerializer(SeatAnalysisSerializer):
    """One holding's own decisions summed: what counts for that person's accuracy."""

    seat = serializers.IntegerField()
    player = serializers.CharField(allow_null=True)
    from_step = serializers.IntegerField(
        help_text="the record's index of the first event after they took the seat"
    )


class MatchAnalysisSerializer(Answer):
    """``GET /api/matches/{id}/analysis``: the expert's verdict on every decision."""

    match = serializers.IntegerField(source="match_id")
    version = serializers.IntegerField(help_text="engine.analysis.ANALYSIS_VERSION")
    iterations = serializers.IntegerField(help_text="worlds sampled per move")
    seed = serializers.IntegerField()
    thresholds = serializers.DictField(
        child=serializers.FloatField(),
        help_text="each mark's upper bound on the loss (exclusive); beyond: blunder",
    )
    decisions = DecisionSerializer(many=True)
    seats = serializers.DictField(
        child=SeatAnalysisSerializer(),
        help_text="per seat (1-4), whoever made the decisions: see holders",
    )
    holders = HolderAnalysisSerializer(
        many=True,
        help_text="per seat holding: each person's own decisions at a seat (one line per"
        " seat when no seat changed hands)",
    )
