"""The ladder's answers (docs/api.md, "The bot ladder")."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from server.api_schema import Answer, Instant
from server.ladder.rating import ORDINAL_Z
from server.ladder.selectors import versions_of


class EnterLadderSerializer(serializers.Serializer):
    version = serializers.CharField(max_length=40, help_text="the bot's version, as it names it")
    matches_per_day = serializers.IntegerField(
        required=False, help_text="its limit per rolling day (at most the server's)"
    )


class LadderVersionSerializer(Answer):
    name = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.FloatField(
        source="ordinal", help_text="mu - 3 sigma: the number to display"
    )
    pairs = serializers.IntegerField(help_text="rated ladder matches (pairs of legs)")
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    ties = serializers.IntegerField()
    substituted = serializers.IntegerField(help_text="pairs it timed out of")
    created_at = Instant()


class LadderRowSerializer(Answer):
    bot = serializers.CharField(source="bot.username")
    owner = serializers.SerializerMethodField()
    house_level = serializers.SerializerMethodField(
        help_text="a house player standing as a fixed anchor: its level (else null)"
    )
    active = serializers.BooleanField()
    version = serializers.CharField(source="version.name")
    rating = serializers.FloatField(source="version.ordinal", help_text="mu - 3 sigma")
    mu = serializers.FloatField(source="version.mu")
    sigma = serializers.FloatField(source="version.sigma")
    interval = serializers.SerializerMethodField(help_text="[mu - 3 sigma, mu + 3 sigma]")
    pairs = serializers.IntegerField(source="version.pairs")
    wins = serializers.IntegerField(source="version.wins")
    losses = serializers.IntegerField(source="version.losses")
    ties = serializers.IntegerField(source="version.ties")
    versions = serializers.IntegerField(source="version_count")
    matches_per_day = serializers.SerializerMethodField(help_text="null for an anchor")

    def get_owner(self, entry) -> str | None:
        owner = entry.bot.bot_owner
        return None if owner is None else owner.username

    def get_house_level(self, entry) -> str | None:
        return entry.house_level or None

    @extend_schema_field(serializers.ListField(child=serializers.FloatField()))
    def get_interval(self, entry):
        v = entry.version
        return [v.mu - ORDINAL_Z * v.sigma, v.mu + ORDINAL_Z * v.sigma]

    def get_matches_per_day(self, entry) -> int | None:
        return None if entry.house_level else entry.matches_per_day


class LadderBotSerializer(LadderRowSerializer):
    seen_at = Instant(help_text="its last opt-in: drawn only while recent")
    all_versions = serializers.SerializerMethodField(help_text="newest first")

    @extend_schema_field(LadderVersionSerializer(many=True))
    def get_all_versions(self, entry):
        return LadderVersionSerializer(versions_of(entry), many=True).data


class LadderSeatSerializer(Answer):
    bot = serializers.CharField(source="entry.bot.username")
    version = serializers.CharField(source="version.name")
    house_level = serializers.SerializerMethodField()
    team = serializers.ChoiceField(
        ["A", "B"], help_text="its team in leg 1 (leg 2 turns the seats)"
    )
    first_seat = serializers.IntegerField(help_text="its seat in leg 1; in leg 2 the next one")
    substituted = serializers.BooleanField()
    rating_before = serializers.SerializerMethodField(help_text="mu - 3 sigma; null until rated")
    rating_after = serializers.SerializerMethodField()

    def get_house_level(self, seat) -> str | None:
        return seat.entry.house_level or None

    def get_rating_before(self, seat) -> float | None:
        return None if seat.mu_before is None else seat.mu_before - ORDINAL_Z * seat.sigma_before

    def get_rating_after(self, seat) -> float | None:
        return None if seat.mu_after is None else seat.mu_after - ORDINAL_Z * seat.sigma_after


class LadderLegSerializer(Answer):
    number = serializers.IntegerField()
    match = serializers.IntegerField(source="match_id", help_text="GET /api/matches/{id}")
    table = serializers.CharField(source="match.table.code", help_text="watch it live: spectate")
    status = serializers.CharField(source="match.status")
    score_a = serializers.IntegerField(source="match.score_a", help_text="the table's team A")
    score_b = serializers.IntegerField(source="match.score_b")


class LadderMatchSerializer(Answer):
    id = serializers.IntegerField()
    round = serializers.IntegerField()
    status = serializers.ChoiceField(["first", "second", "done", "void"])
    result = serializers.SerializerMethodField(
        help_text="A, B or tie (team of leg 1); null until done"
    )
    margin = serializers.IntegerField(help_text="team A's score difference over both legs")
    rated = serializers.BooleanField()
    shared_owner = serializers.BooleanField()
    note = serializers.CharField()
    created_at = Instant()
    finished_at = Instant(allow_null=True)
    seats = LadderSeatSerializer(many=True)
    legs = LadderLegSerializer(many=True)

    def get_result(self, pair) -> str | None:
        return pair.result or None
