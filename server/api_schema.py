"""Shared request checking and the OpenAPI description of common bodies.

``strict`` is the one way views read a JSON body: unknown fields and wrong types are a
400 ``validation_error`` before any service runs.
"""

from __future__ import annotations

import functools

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

from server.errors import ApiError, StaleVersion, ValidationError, codes_by_status, flatten


@functools.cache
def _field_names(serializer_class) -> frozenset[str]:
    # Built once per class: a serializer instance deep-copies all its fields, which
    # cost more than the rest of a game action's validation.
    return frozenset(serializer_class().fields)


def strict(serializer_class, request, data=None) -> dict:
    data = request.data if data is None else data
    if not isinstance(data, dict):
        raise ValidationError("the body must be a JSON object")
    known = _field_names(serializer_class)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(unknown)}")
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        raise ValidationError(flatten(serializer.errors))
    return serializer.validated_data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: not a string of digits, not a float, not a boolean."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class Instant(serializers.DateTimeField):
    """A moment as ISO 8601 with its offset, ``2026-12-02T23:27:00.957357+00:00`` (the
    API's format since its first version; DRF's own would end in ``Z``)."""

    def to_representation(self, value):
        if value is None or isinstance(value, str):  # already written (e.g. a log row)
            return value
        return value.isoformat()


def _error_serializer(status: int, classes: list[type[ApiError]]) -> serializers.Serializer:
    """The body of a refusal with ``status``: its ``code`` is one of ``classes``'."""
    fields: dict[str, serializers.Field] = {
        "code": serializers.ChoiceField(
            choices=[cls.code for cls in classes], help_text="stable machine-readable code"
        ),
        "message": serializers.CharField(help_text="human-readable explanation (English)"),
    }
    if StaleVersion in classes:
        fields["view"] = serializers.DictField(
            help_text="the current seat response (409 stale_version only)", required=False
        )
    return inline_serializer(f"Error{status}", fields)


def _error_description(classes: list[type[ApiError]]) -> str:
    return ", ".join(cls.code for cls in classes)


# Every refusal, by status, made from the catalogue of server.errors; each operation
# declares them all (a code's note is in docs/api.md, made from the same classes).
ERRORS = {
    status: OpenApiResponse(_error_serializer(status, classes), _error_description(classes))
    for status, classes in codes_by_status().items()
}


SeatInfoSerializer = inline_serializer(
    "SeatInfo",
    {
        "kind": serializers.ChoiceField(["human", "bot"]),
        "player": serializers.CharField(allow_null=True),
        "is_bot": serializers.BooleanField(),
    },
)


class TableSerializer(serializers.Serializer):
    code = serializers.CharField()
    owner = serializers.CharField()
    rated = serializers.BooleanField()
    version = serializers.IntegerField(help_text="seq of the table's newest event")
    paused = serializers.BooleanField()
    paused_by = serializers.ListField(child=serializers.IntegerField())
    phase = serializers.CharField(allow_null=True)
    annulled = serializers.BooleanField(help_text="an organizer annulled this league match")
    seats = serializers.DictField(child=SeatInfoSerializer)
    created_at = Instant()


class SeatResponseSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    seat = serializers.IntegerField()
    paused = serializers.BooleanField()
    allowed = serializers.ListField(
        child=serializers.CharField(),
        help_text="action types the caller may send for this seat now",
    )
    seats_to_act = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="the seats the match waits for now, the same in every seat's answer",
    )
    table = TableSerializer()
    view = serializers.DictField(help_text="the engine's seat view (docs/engine.md)")


NAME_PATTERN = r"^[A-Za-z0-9_.-]{3,40}$"
SEAT_KEY_PATTERN = r"^[1-4]$"


def describe_what_the_views_enforce(result, generator, request, public):
    """drf-spectacular postprocessing: state in the schema what ``strict`` and the views
    check anyway — no unknown fields in a request body, the name pattern, seat keys
    "1"-"4", ``wait`` from 0 to 30 seconds."""
    components = result.get("components", {}).get("schemas", {})
    for name, schema in components.items():
        if name.endswith("Request") and schema.get("type") == "object":
            schema["additionalProperties"] = False
        elif "properties" in schema and "additionalProperties" not in schema:
            # An answer object lists every field it has: one more is drift, and the
            # schema-conformance check of the tests (tests/conformance.py) fails on it.
            schema["additionalProperties"] = False
    for component, field in (("RegisterRequest", "username"), ("BotNameRequest", "name")):
        prop = components.get(component, {}).get("properties", {}).get(field)
        if prop is not None:
            prop["pattern"] = NAME_PATTERN
    for field in ("seats", "bots"):
        prop = components.get("CreateTableRequest", {}).get("properties", {}).get(field)
        if prop is not None:
            prop["propertyNames"] = {"pattern": SEAT_KEY_PATTERN}
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter.get("name") == "wait" and parameter.get("in") == "query":
                    parameter["schema"] = {
                        **parameter.get("schema", {}),
                        "minimum": 0,
                        "maximum": 30,
                    }
    return result
