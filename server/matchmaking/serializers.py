"""Requests and answers of matchmaking (the schema is generated from them)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from server.api_schema import Instant, StrictIntegerField
from server.matchmaking.challenges import DECLINE_REASONS
from server.matchmaking.seeks import DEFAULT_MINUTES, MAX_MINUTES
from server.tables.models import Seat

WANTED = ("people", "bots", "any")


def seats_json(seats: list[Seat]) -> dict[str, dict]:
    """Who holds each seat (kind, name): nothing of the match, no hand."""
    return {
        str(s.number): {
            "kind": s.kind,
            "player": s.player.username if s.player is not None else None,
            "is_bot": s.player is not None and s.player.is_bot,
        }
        for s in seats
    }


class SeekSeatSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(["human", "bot"])
    player = serializers.CharField(allow_null=True, help_text="null: the seat is open")
    is_bot = serializers.BooleanField()


# -- seeks --------------------------------------------------------------------------------------
class SeekRequestSerializer(serializers.Serializer):
    wanted = serializers.ChoiceField(
        choices=WANTED, help_text="who may take the open seats: people, bots or any"
    )
    join = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=4),
        required=False,
        default=[1],
        help_text="the seats you take (default [1]; a bot takes one)",
    )
    bots = serializers.DictField(
        child=serializers.CharField(max_length=40),
        required=False,
        default=dict,
        help_text="seats given at once to computer players you may seat: seat -> bot name",
    )
    min_level = serializers.FloatField(required=False, allow_null=True, default=None)
    max_level = serializers.FloatField(required=False, allow_null=True, default=None)
    minutes = StrictIntegerField(
        required=False,
        default=DEFAULT_MINUTES,
        min_value=1,
        max_value=MAX_MINUTES,
        help_text="the seek expires this long after it is made",
    )


class SeekSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.CharField(source="table.code", help_text="the table's code (join it)")
    owner = serializers.CharField(source="owner.username")
    wanted = serializers.ChoiceField(choices=WANTED)
    min_level = serializers.FloatField(allow_null=True)
    max_level = serializers.FloatField(allow_null=True)
    status = serializers.ChoiceField(choices=("open", "filled", "expired", "cancelled"))
    open_seats = serializers.SerializerMethodField()
    seats = serializers.SerializerMethodField()
    created_at = Instant()
    expires_at = Instant()

    def _seats(self, seek) -> list[Seat]:
        rows = getattr(seek.table, "seat_rows", None)
        return rows if rows is not None else list(seek.table.seats.select_related("player"))

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_open_seats(self, seek) -> list[int]:
        return [s.number for s in self._seats(seek) if s.player_id is None]

    @extend_schema_field(serializers.DictField(child=SeekSeatSerializer()))
    def get_seats(self, seek) -> dict:
        return seats_json(self._seats(seek))


class OpenSeatsSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="long-poll: ask again with after=version")
    seeks = SeekSerializer(many=True)


# -- terms ------------------------------------------------------------------------------------
class TermsSerializer(serializers.Serializer):
    casual = serializers.BooleanField(required=False, default=True)
    rated = serializers.BooleanField(required=False, default=False)
    opponents = serializers.ChoiceField(choices=WANTED, required=False, default="any")
    partners = serializers.ChoiceField(choices=WANTED, required=False, default="any")
    min_seconds_per_move = StrictIntegerField(
        required=False, default=1, min_value=1, max_value=3600
    )
    max_seconds_per_move = StrictIntegerField(
        required=False, default=600, min_value=1, max_value=3600
    )
    games_per_day = StrictIntegerField(required=False, default=50, min_value=0, max_value=10000)
    hours_from = StrictIntegerField(
        required=False, default=0, min_value=0, max_value=23, help_text="UTC hour"
    )
    hours_to = StrictIntegerField(
        required=False,
        default=0,
        min_value=0,
        max_value=23,
        help_text="UTC hour; equal to hours_from: all day",
    )


class TermsAnswerSerializer(TermsSerializer):
    bot = serializers.CharField(source="bot.username")
    updated_at = Instant()


class PublishedTermsSerializer(serializers.Serializer):
    bots = TermsAnswerSerializer(many=True)


# -- challenges ---------------------------------------------------------------------------------
class ChallengeRequestSerializer(serializers.Serializer):
    partner = serializers.CharField(max_length=40, help_text="your partner (seat 3)")
    opponents = serializers.ListField(
        child=serializers.CharField(max_length=40),
        min_length=2,
        max_length=2,
        help_text="the two opponents (seats 2 and 4)",
    )
    rated = serializers.BooleanField(required=False, default=False)
    seconds_per_move = StrictIntegerField(required=False, default=30, min_value=1, max_value=3600)
    minutes = StrictIntegerField(
        required=False,
        default=10,
        min_value=1,
        max_value=MAX_MINUTES,
        help_text="unanswered this long, the challenge expires",
    )


class DeclineSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=DECLINE_REASONS, required=False, default="generic")


class ChallengeSeatSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    player = serializers.CharField(source="player.username")
    is_bot = serializers.BooleanField(source="player.is_bot")
    answer = serializers.ChoiceField(choices=("pending", "accepted", "declined"))
    reason = serializers.CharField(help_text="a declined seat's reason (DECLINE_REASONS)")


class ChallengeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    challenger = serializers.CharField(source="challenger.username")
    rated = serializers.BooleanField()
    seconds_per_move = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=("pending", "started", "declined", "cancelled", "expired")
    )
    table = serializers.CharField(
        source="table.code", allow_null=True, help_text="once started: the table's code"
    )
    seats = ChallengeSeatSerializer(many=True, source="seats.all")
    created_at = Instant()
    expires_at = Instant()
    closed_at = Instant(allow_null=True)


class ChallengeListSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="long-poll: ask again with after=version")
    challenges = ChallengeSerializer(many=True)
