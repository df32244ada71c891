"""Shared request checking and the OpenAPI description of common bodies.

``strict`` is the one way views read a JSON body: unknown fields and wrong types are a
400 ``validation_error`` before any service runs.
"""

from __future__ import annotations

import functools

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

from server.errors import validation_error


@functools.cache
def _field_names(serializer_class) -> frozenset[str]:
    # Built once per class: a serializer instance deep-copies all its fields, which
    # cost more than the rest of a game action's validation.
    return frozenset(serializer_class().fields)


def strict(serializer_class, request, data=None) -> dict:
    data = request.data if data is None else data
    if not isinstance(data, dict):
        raise validation_error("the body must be a JSON object")
    known = _field_names(serializer_class)
    unknown = sorted(set(data) - known)
    if unknown:
        raise validation_error(f"unknown field(s): {', '.join(unknown)}")
    serializer = serializer_class(data=data)
    if not serializer.is_valid():
        from server.errors import _flatten

        raise validation_error(_flatten(serializer.errors))
    return serializer.validated_data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: not a string of digits, not a float, not a boolean."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="stable machine-readable code, e.g. stale_version")
    message = serializers.CharField(help_text="human-readable explanation")


class StaleErrorSerializer(ErrorSerializer):
    view = serializers.DictField(
        help_text="the current seat response (409 stale_version only)", required=False
    )


def _error(description: str, serializer=ErrorSerializer) -> OpenApiResponse:
    return OpenApiResponse(serializer, description=description)


ERRORS = {
    400: _error(
        "validation_error (malformed body) or a rule rejection: bad_event, bad_deal, "
        "tile_not_in_hand, tile_does_not_fit, end_required, must_play, "
        "must_open_double_six, not_entitled, opener_not_on_team"
    ),
    401: _error("not_authenticated"),
    403: _error("not_your_seat, permission_denied"),
    404: _error("not_found"),
    409: _error(
        "stale_version (with the current view), paused, or a rule rejection about the "
        "table's state: wrong_phase, not_your_turn, already_accepted, "
        "not_representative, nothing_to_undo, nothing_to_redo, not_allowed_in_rated",
        StaleErrorSerializer,
    ),
    413: _error("body_too_large (bodies are at most 64 KB)"),
    422: _error("idempotency_key_reused"),
    429: _error("throttled (with Retry-After), too_many_long_polls"),
}


class AccountSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    owner = serializers.CharField(allow_null=True)
    token = serializers.CharField(
        required=False,
        help_text="only when a token is issued: register, log in, rotate, a new bot; shown once",
    )
    device = serializers.CharField(required=False, help_text="the issued token's device name")


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
    created_at = serializers.DateTimeField()


class SeatResponseSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    seat = serializers.IntegerField()
    paused = serializers.BooleanField()
    allowed = serializers.ListField(
        child=serializers.CharField(),
        help_text="action types the caller may send for this seat now",
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
