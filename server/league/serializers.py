"""Request bodies (read with ``server.api_schema.strict``) and the OpenAPI description of
the league's answers. The answers themselves are built by ``selectors``."""

from __future__ import annotations

import re

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

from server.errors import ApiError, validation_error

ID_MAX = 2**63 - 1  # a database integer: larger ids cannot exist (and SQLite overflows)


# -- pagination ---------------------------------------------------------------------------
class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def paginate(request, rows, to_json):
    """``{"count", "next", "previous", "results"}`` for ``?page=&page_size=``."""
    pages = Pages()
    raw = request.query_params.get("page_size")
    if raw is not None and not (re.fullmatch(r"[0-9]{1,6}", raw) and int(raw) > 0):
        raise validation_error("page_size is a whole number of 1 or more")
    try:
        page: list = pages.paginate_queryset(rows, request) or []
    except NotFound:
        raise ApiError("bad_page", "no such page", 404) from None
    return pages.get_paginated_response([to_json(row) for row in page])


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
    seed = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=2**31 - 1,
        help_text="draw seed (default: random); same seed, same draws",
    )


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


class NoBodySerializer(serializers.Serializer):
    pass


# -- answers (OpenAPI) ----------------------------------------------------------------------
PlayerRef = inline_serializer(
    "PlayerRef", {"username": serializers.CharField(), "is_bot": serializers.BooleanField()}
)


class ClubSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    visibility = serializers.ChoiceField(choices=("public", "members"))
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    members = serializers.IntegerField(help_text="active members, bots included")
    your_role = serializers.CharField(allow_null=True)


class MemberSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=("organizer", "member"))
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(allow_null=True, help_text="the member who owns this bot")
    house_bot = serializers.BooleanField()
    active = serializers.BooleanField()
    joined_at = serializers.DateTimeField()
    removed_at = serializers.DateTimeField(allow_null=True)


class InviteSerializer(serializers.Serializer):
    code = serializers.CharField()
    single_use = serializers.BooleanField()
    uses = serializers.IntegerField()
    expires_at = serializers.DateTimeField(allow_null=True)
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()


class PairOutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    players = serializers.ListField(child=PlayerRef)


class SeasonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    club = serializers.CharField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=("individual", "pairs"))
    starts_on = serializers.DateField(allow_null=True)
    ends_on = serializers.DateField(allow_null=True)
    fill_with_bots = serializers.BooleanField()
    rounds = serializers.IntegerField()
    pairs = PairOutSerializer(many=True)
    created_at = serializers.DateTimeField()


TeamInts = inline_serializer(
    "TeamCounts", {"A": serializers.IntegerField(), "B": serializers.IntegerField()}
)


class MatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.CharField(help_text="the table's code (/api/tables/{code})")
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=("playing", "finished", "annulled"))
    annulled = serializers.BooleanField()
    annul_reason = serializers.CharField(allow_null=True)
    club = serializers.CharField(allow_null=True, help_text="null: a casual match")
    season = inline_serializer(
        "SeasonRef",
        {"id": serializers.IntegerField(), "name": serializers.CharField()},
        allow_null=True,
    )
    round = serializers.IntegerField(allow_null=True)
    table_number = serializers.IntegerField(allow_null=True)
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = serializers.ListField(
        child=inline_serializer(
            "MatchSeat",
            {
                "seat": serializers.IntegerField(),
                "team": serializers.CharField(),
                "player": serializers.CharField(),
                "is_bot": serializers.BooleanField(),
                "filler": serializers.BooleanField(help_text="a house bot filling the seat"),
            },
        )
    )
    pairs = serializers.DictField(allow_null=True, help_text="pairs seasons: the pair of each team")
    score = TeamInts
    winner = serializers.CharField(allow_null=True)
    hands = serializers.IntegerField(allow_null=True, help_text="null while in progress")
    hands_won = TeamInts
    hands_tied = serializers.IntegerField(required=False)
    points = TeamInts
    dekabes = TeamInts


class RoundSerializer(serializers.Serializer):
    season = serializers.IntegerField()
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=("open", "started", "finished"))
    started_at = serializers.DateTimeField(allow_null=True)
    present = serializers.ListField(child=serializers.DictField(), help_text="{player} or {pair}")
    byes = serializers.ListField(child=serializers.DictField())
    tables = MatchSerializer(many=True)


class StandingSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    player = PlayerRef
    pair = PairOutSerializer(required=False)
    played = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="match wins, a bye counting as one")
    byes = serializers.IntegerField()
    hands_won = serializers.IntegerField()
    hands_lost = serializers.IntegerField()
    points = serializers.IntegerField()
    dekabes = serializers.IntegerField()
    ties = serializers.IntegerField(help_text="tied hands")


class RatingSerializer(serializers.Serializer):
    player = serializers.CharField()
    is_bot = serializers.BooleanField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: the number to display")
    matches = serializers.IntegerField()


RatingPointSerializer = inline_serializer(
    "RatingPoint",
    {
        "match": serializers.IntegerField(),
        "mu": serializers.FloatField(),
        "sigma": serializers.FloatField(),
        "ordinal": serializers.FloatField(),
    },
)


class PlayerRatingSerializer(RatingSerializer):
    club = serializers.CharField()
    history = serializers.ListField(child=RatingPointSerializer)


class PlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(allow_null=True)
    clubs = serializers.ListField(
        child=inline_serializer(
            "PlayerClub",
            {
                "slug": serializers.CharField(),
                "name": serializers.CharField(),
                "role": serializers.CharField(allow_null=True),
            },
        )
    )
    ratings = PlayerRatingSerializer(many=True)
    recent_matches = MatchSerializer(many=True)


class LeagueTableSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    table = serializers.CharField()
    seat = serializers.IntegerField()
    team = serializers.CharField()
    club = serializers.CharField()
    season = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True)
    table_number = serializers.IntegerField(allow_null=True)
    seat_url = serializers.CharField()


class MyLeagueTablesSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        help_text="grows when a round seats you or one of your "
        "league matches ends; long-poll with after="
    )
    tables = LeagueTableSerializer(many=True)


class HandSerializer(serializers.Serializer):
    hand_no = serializers.IntegerField()
    result = serializers.ChoiceField(choices=("domino", "block", "tie"))
    team = serializers.CharField(allow_null=True)
    points = serializers.IntegerField()
    dekabes = serializers.BooleanField()
    pips = serializers.DictField(child=serializers.IntegerField())
    dealt = serializers.DictField(help_text="the accepted deal, per seat")
    hands = serializers.DictField(help_text="tiles left at the end, per seat")
    line = serializers.ListField(child=serializers.DictField())
    turns = serializers.ListField(child=serializers.DictField())
    opener = serializers.IntegerField(allow_null=True)
    scores_after = TeamInts
