"""The accounts' answers: these serializers render them, and the schema is made from them."""

from __future__ import annotations

from rest_framework import serializers

from server.accounts.services import TokenGrant
from server.api_schema import Answer, Instant


class AccountSerializer(Answer):
    """An account (a ``User``), or a ``TokenGrant``: the account with the key just issued."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField(
        source="shown_name", help_text="the name the pages show (any alphabet)"
    )
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(source="bot_owner.username", allow_null=True)
    token = serializers.CharField(
        required=False,
        help_text="only when a token is issued: register, log in, rotate, a new bot; shown once",
    )
    device = serializers.CharField(required=False, help_text="the issued token's device name")

    def to_representation(self, instance):
        if not isinstance(instance, TokenGrant):
            return super().to_representation(instance)
        data = super().to_representation(instance.user)
        data["token"], data["device"] = instance.key, instance.device  # shown this once
        return data


class TokenInfoSerializer(Answer):
    """An ``AccessToken`` (never its key); ``current`` needs the ``current`` token in the
    context."""

    id = serializers.IntegerField()
    device = serializers.CharField(source="name")
    created_at = Instant()
    current = serializers.SerializerMethodField(help_text="the token this request was sent with")

    def get_current(self, token) -> bool:
        current = self.context.get("current")
        return current is not None and token.pk == current.pk


class TokenListSerializer(Answer):
    tokens = TokenInfoSerializer(many=True)


class BotListSerializer(Answer):
    bots = AccountSerializer(many=True)


class PasswordChangedSerializer(Answer):
    revoked = serializers.IntegerField(help_text="other tokens revoked")
