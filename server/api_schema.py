"""Shared request checking and the OpenAPI description of common bodies.

``strict`` is the one way views read a JSON body: unknown fields and wrong types are a
400 ``validation_error`` before any service runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from django.db.models.manager import BaseManager
from drf_spectacular.authentication import SessionScheme
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers
from rest_framework.fields import SkipField

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


# -- answers -----------------------------------------------------------------------------
# Fields whose whole output is the attribute converted by a builtin (DRF's
# ``to_representation`` for exactly these types does the same).
_BUILTIN_OUTPUT: dict[type, Callable[[Any], Any]] = {
    serializers.IntegerField: int,
    serializers.CharField: str,
    serializers.FloatField: float,
}
_MISSING = object()


def _slow(out: dict, field: serializers.Field, instance: Any) -> None:
    """One field as DRF's own ``Serializer.to_representation`` renders it."""
    try:
        value = field.get_attribute(instance)
    except SkipField:
        return
    out[field.field_name] = None if value is None else field.to_representation(value)


def _field_kind(field: serializers.Field) -> str:
    """How the generated renderer reads a field (see ``_renderer_source``)."""
    if type(field).get_attribute is not serializers.Field.get_attribute:
        return "slow"
    if field.source == "*":
        return "method" if isinstance(field, serializers.SerializerMethodField) else "whole"
    if not field.source_attrs:
        return "slow"
    if type(field) is serializers.ListSerializer:
        return "list"
    if type(field) is serializers.BooleanField:
        return "bool"
    return "convert"


def _converter(self: serializers.Serializer, field: serializers.Field, kind: str) -> Any:
    if kind == "method":
        return getattr(self, field.method_name)  # type: ignore[attr-defined]
    if kind == "list":
        return field.child.to_representation  # type: ignore[attr-defined]
    if kind == "convert":
        return _BUILTIN_OUTPUT.get(type(field)) or field.to_representation
    return field.to_representation


def _renderer_source(shape: tuple[tuple[str, str, tuple[str, ...]], ...], mapping: bool) -> str:
    """A function rendering one instance: per field, the attribute read with plain
    ``getattr`` (``mapping``: ``dict.get``, one step only) and converted; whatever is
    unusual — a missing step, a None on the way, a callable value, a mapping where an
    object was expected — is handed to DRF's own per-field path (``_slow``), so the
    answer is DRF's, field for field."""
    lines = ["def render(obj, F, C):", "    out = {}"]
    for i, (name, kind, path) in enumerate(shape):
        key = repr(name)
        if kind == "slow" or (mapping and len(path) > 1):
            lines.append(f"    slow(out, F[{i}], obj)")
            continue
        if kind == "method" or kind == "whole":
            lines.append(f"    out[{key}] = C[{i}](obj)")
            continue
        if mapping:
            lines.append(f"    v = obj.get({path[0]!r}, M)")
        else:
            lines.append(f"    v = getattr(obj, {path[0]!r}, M)")
            for step in path[1:]:
                lines.append(f"    if v is not M and v is not None: v = getattr(v, {step!r}, M)")
                lines.append("    else: v = M")
        lines.append(f"    if v is None: out[{key}] = None")
        if kind == "list":
            lines.append(
                f"    elif isinstance(v, BM): c = C[{i}]; out[{key}] = [c(x) for x in v.all()]"
            )
        lines.append(f"    elif v is M or callable(v): slow(out, F[{i}], obj)")
        if kind == "list":
            lines.append(f"    else: c = C[{i}]; out[{key}] = [c(x) for x in v]")
        elif kind == "bool":
            lines.append(f"    else: out[{key}] = v if v is True or v is False else C[{i}](v)")
        else:
            lines.append(f"    else: out[{key}] = C[{i}](v)")
    lines.append("    return out")
    return "\n".join(lines)


@functools.cache
def _renderer(
    shape: tuple[tuple[str, str, tuple[str, ...]], ...], mapping: bool
) -> Callable[[Any, Any, Any], dict]:
    namespace: dict[str, Any] = {
        "M": _MISSING,
        "slow": _slow,
        "BM": BaseManager,
        "isinstance": isinstance,
        "callable": callable,
        "getattr": getattr,
    }
    exec(_renderer_source(shape, mapping), namespace)  # noqa: S102 -- our own text, made from field declarations
    return namespace["render"]


class Answer(serializers.Serializer):
    """The base of every answer serializer: the declared fields are the answer and its
    schema, rendered by a function generated once per shape of declaration (the field
    names, kinds and source paths; ``_renderer_source``) and bound once per class (per
    instance for a serializer given a context, which its method fields may read). A field that reads a source path with DRF's
    default ``get_attribute`` has its value read with ``getattr`` (``dict.get`` for a
    mapping) and int/str/float fields converted by the builtin; method fields call their
    method; anything unusual goes through DRF's own path for that field. The output is
    DRF's, field for field (tests/server/test_answers.py; the schema-conformance test
    checks every answer). Why not DRF's loop alone: its per-field machinery cost the
    league's reads more than the plain dicts it replaced (bench/api_reads.py; figures in
    docs/server.md)."""

    def _plan(self) -> tuple[Any, Any, tuple, tuple]:
        plan = self.__dict__.get("_answer_plan")
        if plan is None:
            if self.context:  # a method field may read it: this instance's own fields
                plan = self._make_plan()
            else:  # without a context every instance of the class renders alike
                plan = _SHARED_PLANS.get(type(self))
                if plan is None:
                    try:
                        prototype = type(self)()
                    except TypeError:  # a class that needs arguments: this instance's
                        prototype = self
                    plan = _SHARED_PLANS[type(self)] = prototype._make_plan()
            self.__dict__["_answer_plan"] = plan
        return plan

    def _make_plan(self) -> tuple[Any, Any, tuple, tuple]:
        fields = tuple(self._readable_fields)
        kinds = [_field_kind(f) for f in fields]
        shape = tuple(
            (f.field_name, kind, tuple(f.source_attrs))
            for f, kind in zip(fields, kinds, strict=True)
        )
        converters = tuple(_converter(self, f, k) for f, k in zip(fields, kinds, strict=True))
        return (_renderer(shape, False), _renderer(shape, True), fields, converters)

    def to_representation(self, instance):
        for_objects, for_mappings, fields, converters = self._plan()
        kind = type(instance)
        is_mapping = _IS_MAPPING.get(kind)
        if is_mapping is None:
            is_mapping = _IS_MAPPING[kind] = isinstance(instance, Mapping)
        if is_mapping:
            return for_mappings(instance, fields, converters)
        return for_objects(instance, fields, converters)


# An Answer class's plan, made once from an instance without context (``Answer._plan``).
_SHARED_PLANS: dict[type, tuple[Any, Any, tuple, tuple]] = {}
_IS_MAPPING: dict[type, bool] = {}


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


class HandoverSerializer(serializers.Serializer):
    """One ``seat_handover`` of the table's log (docs/api.md, "Seat handovers")."""

    seq = serializers.IntegerField(help_text="the handover's place in the table's log")
    seat = serializers.IntegerField()
    kind = serializers.ChoiceField(["human", "bot"], help_text="the seat's kind from then on")
    reason = serializers.ChoiceField(
        ["substitute", "auto_substitute", "leave", "replace", "computer"],
        help_text="why the seat changed hands",
    )
    note = serializers.CharField(help_text="the organizer's or owner's words (may be empty)")

    def get_fields(self):
        fields = super().get_fields()
        # "from" is a Python keyword: declared here rather than as attributes
        fields["from"] = serializers.CharField(
            allow_null=True, help_text="who held the seat before"
        )
        fields["to"] = serializers.CharField(
            allow_null=True, help_text="who holds it from then on (null: the seat is open)"
        )
        return fields


class TableSerializer(serializers.Serializer):
    code = serializers.CharField()
    owner = serializers.CharField()
    rated = serializers.BooleanField()
    version = serializers.IntegerField(help_text="seq of the table's newest event")
    paused = serializers.BooleanField()
    paused_by = serializers.ListField(child=serializers.IntegerField())
    phase = serializers.CharField(allow_null=True)
    annulled = serializers.BooleanField(help_text="an organizer annulled this league match")
    forfeited = serializers.BooleanField(
        help_text="an organizer ended this league match by forfeit (docs/league.md)"
    )
    handovers = HandoverSerializer(
        many=True, help_text="every time a seat changed hands, oldest first (docs/api.md)"
    )
    seats = serializers.DictField(child=SeatInfoSerializer)
    created_at = Instant()


class PresenceSerializer(serializers.Serializer):
    connected = serializers.BooleanField(
        help_text="an open socket or long-poll for the seat, or a request in the last 60 s"
    )
    away_since = serializers.DateTimeField(
        allow_null=True, help_text="null while connected; else when the seat went away"
    )


class TakebackSerializer(serializers.Serializer):
    seat = serializers.IntegerField(help_text="the seat that asked")
    command = serializers.ChoiceField(choices=("undo", "redo", "restart_hand", "new_match"))
    waiting_for = serializers.ListField(
        child=serializers.IntegerField(), help_text="seats (one per person) yet to answer"
    )


class PageSessionScheme(SessionScheme):
    """The site's session cookie, which the seat endpoints also take from the browser
    table's page (with its CSRF token on unsafe requests; docs/api.md, "Authentication")."""

    target_class = "server.accounts.auth.PageSessionAuthentication"
    name = "pageSession"


class LastTileEndsSerializer(serializers.Serializer):
    tile = serializers.CharField()
    ends = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2)


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
    presence = serializers.DictField(
        child=PresenceSerializer(), help_text='every seat, "1"-"4": here or away since when'
    )
    takeback = TakebackSerializer(
        allow_null=True, help_text="the open takeback request (several people), or null"
    )
    last_tile_ends = LastTileEndsSerializer(
        allow_null=True,
        help_text="the last hand's last tile and the two open ends it met (a domino), or null",
    )


class SpectatorResponseSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    paused = serializers.BooleanField()
    seats_to_act = serializers.ListField(
        child=serializers.IntegerField(), help_text="the seats the match waits for now"
    )
    table = TableSerializer()
    view = serializers.DictField(
        help_text="the engine's spectator view: public facts only (docs/engine.md)"
    )
    presence = serializers.DictField(
        child=PresenceSerializer(), help_text='every seat, "1"-"4": here or away since when'
    )


class WatchableSerializer(serializers.Serializer):
    watchable = serializers.BooleanField(
        help_text="anyone signed in who holds the table's code may watch it"
    )


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
