"""The member's data download and the closing's answer: these serializers render them,
and the schema is made from them. The download reuses the league's answers (a match,
a rating with its history, an action-log entry) so a field means what it means there."""

from __future__ import annotations

import orjson
from rest_framework import serializers

from server.api_schema import Answer, Instant
from server.league.serializers import (
    ClubActionSerializer,
    MatchSerializer,
    PlayerRatingSerializer,
)


class CloseAccountSerializer(serializers.Serializer):
    password = serializers.CharField(max_length=200, trim_whitespace=False)
    confirm = serializers.CharField(
        max_length=40, help_text='the words "close my account": closing cannot be undone'
    )


class ClosedAccountSerializer(Answer):
    pseudonym = serializers.CharField(help_text="the name now shown wherever yours was")
    bots = serializers.IntegerField(help_text="your bots, closed with the account")
    tokens = serializers.IntegerField(help_text="tokens revoked (yours and your bots')")
    sessions = serializers.IntegerField(help_text="web sessions ended")


class DataAccountSerializer(Answer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    date_joined = Instant()
    last_login = Instant(allow_null=True)
    is_staff = serializers.BooleanField(help_text="an operator of this server")


class DataTokenSerializer(Answer):
    id = serializers.IntegerField()
    device = serializers.CharField(source="name")
    created_at = Instant()


class DataBotSerializer(Answer):
    username = serializers.CharField()
    date_joined = Instant()


class DataMembershipSerializer(Answer):
    club = serializers.CharField(source="club.slug")
    club_name = serializers.CharField(source="club.name")
    role = serializers.ChoiceField(choices=("organizer", "member"))
    active = serializers.BooleanField()
    joined_at = Instant()
    removed_at = Instant(allow_null=True)


class DataRecordSerializer(Answer):
    match = serializers.IntegerField()
    record = serializers.CharField(
        help_text="the match record, JSON Lines (docs/records.md), as "
        "GET /api/matches/{id}/record serves it to you"
    )


class DataLogEntrySerializer(ClubActionSerializer):
    club = serializers.CharField(source="club.slug")


class DataMailSerializer(Answer):
    """The member's mail choices (docs/web.md, "Mail"); the address is the account's."""

    language = serializers.CharField(
        allow_blank=True, help_text="the language of your mail (empty: the site's default)"
    )
    table_ready = serializers.BooleanField()
    deadline = serializers.BooleanField()
    seat_changes = serializers.BooleanField()
    announcement = serializers.BooleanField()


class MemberDataSerializer(Answer):
    """A ``selectors.MemberData``: everything the server holds about the member that
    the rules let them see (docs/server.md, "Members' data")."""

    format = serializers.CharField(help_text="dekabes-member-data/1")
    exported_at = Instant()
    server_version = serializers.CharField()
    account = DataAccountSerializer()
    tokens = DataTokenSerializer(many=True, help_text="devices holding a token (never a key)")
    bots = DataBotSerializer(many=True)
    memberships = DataMembershipSerializer(many=True)
    matches = MatchSerializer(many=True, help_text="every match you played that you may read")
    records = DataRecordSerializer(many=True, help_text="finished and annulled matches only")
    ratings = PlayerRatingSerializer(many=True, help_text="per club, with the history")
    club_log = DataLogEntrySerializer(
        many=True, help_text="the action-log entries you made or that name you, oldest first"
    )
    mail = DataMailSerializer(help_text="which mail you get, in which language")


def member_data_file(data) -> bytes:
    """The download's bytes (the API's and the web page's): ``MemberDataSerializer``'s
    rendering of a ``selectors.MemberData``, indented for a person who opens it."""
    return orjson.dumps(MemberDataSerializer(data).data, option=orjson.OPT_INDENT_2)
