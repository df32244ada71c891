"""The answers and request bodies of ``/api/me/mail`` (docs/api.md): these serializers
render them, and the schema is made from them."""

from __future__ import annotations

from rest_framework import serializers

from server.api_schema import Answer
from server.mail.selectors import LANGUAGE_CODES


class MailChoicesSerializer(Answer):
    """A ``selectors.MailChoices``: the member's address and which mail they get."""

    email = serializers.CharField(allow_blank=True, help_text="empty: no mail at all")
    language = serializers.ChoiceField(choices=LANGUAGE_CODES, help_text="of the mail")
    table_ready = serializers.BooleanField(help_text="your table is ready")
    deadline = serializers.BooleanField(help_text="a round's deadline is near")
    seat_changes = serializers.BooleanField(help_text="substituted, or your match forfeited")
    announcement = serializers.BooleanField(help_text="new announcements of your clubs")


class MailChoicesChangeSerializer(serializers.Serializer):
    """What ``PATCH /api/me/mail`` changes: the fields named, the others stay."""

    email = serializers.CharField(required=False, allow_blank=True, max_length=254)
    language = serializers.ChoiceField(choices=LANGUAGE_CODES, required=False)
    table_ready = serializers.BooleanField(required=False)
    deadline = serializers.BooleanField(required=False)
    seat_changes = serializers.BooleanField(required=False)
    announcement = serializers.BooleanField(required=False)
