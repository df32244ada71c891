"""The body of a seat action, checked without a DRF serializer.

An action is the hot path: instantiating ``ActionSerializer`` (it deep-copies its
fields) and running DRF's field machinery cost ~0.4 ms of the ~1.2 ms a game action
adds to a trivial request, against ~10 µs here. ``ActionSerializer`` in ``views`` stays
the published schema; ``tests/server/test_action_body.py`` checks that both accept and
refuse the same bodies and give the same values.
"""

from __future__ import annotations

import re

from server.errors import ValidationError
from server.tables.services import ACTION_TYPES

ENDS = ("left", "right")
MAX_INTEGER_TEXT = 1000  # DRF's IntegerField.MAX_STRING_LENGTH
_ACTION_TYPE_SET = frozenset(ACTION_TYPES)
_WHOLE_NUMBER_TEXT = re.compile(r"\.0*\s*$")  # "2.0" counts as 2, as DRF reads it


def parse_action_body(data: object) -> dict:
    """The checked action: only the fields sent, with their values as the schema reads
    them. Anything else is a 400 ``validation_error`` naming every bad field."""
    if not isinstance(data, dict):
        raise ValidationError("the body must be a JSON object")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise ValidationError(f"unknown field(s): {', '.join(unknown)}")
    action: dict = {}
    errors: list[str] = []
    for name, check in _CHECKS:
        if name not in data:
            if name in _REQUIRED:
                errors.append(f"{name}: this field is required")
            continue
        value, problem = check(data[name])
        if problem:
            errors.append(f"{name}: {problem}")
        else:
            action[name] = value
    if errors:
        raise ValidationError("; ".join(errors))
    return action


def _type(value: object) -> tuple[object, str | None]:
    if isinstance(value, str) and value in _ACTION_TYPE_SET:
        return value, None
    return None, f"{_shown(value)} is not an action (one of {', '.join(ACTION_TYPES)})"


def _version(value: object) -> tuple[object, str | None]:
    # A JSON integer only: not a string of digits, a float or a boolean.
    if isinstance(value, bool) or not isinstance(value, int):
        return None, "a version is an integer"
    if value < 0:
        return None, "a version is 0 or more"
    return value, None


def _text(max_length: int):
    def check(value: object) -> tuple[object, str | None]:
        if value is None:
            return None, "may not be null"
        if not isinstance(value, str):
            return None, "must be a string"
        text = value.strip()  # as DRF's CharField (trim_whitespace)
        if not text:
            return None, "may not be blank"
        if len(text) > max_length:
            return None, f"at most {max_length} characters"
        if "\x00" in text:
            return None, "may not contain NUL characters"
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            return None, "may not contain surrogate characters"
        return text, None

    return check


def _end(value: object) -> tuple[object, str | None]:
    if value is None or (isinstance(value, str) and value in ENDS):
        return value, None
    return None, f'{_shown(value)} is not an end ("left" or "right")'


def _opener(value: object) -> tuple[object, str | None]:
    # DRF's IntegerField, which this field has always been: 2, "2" and 2.0 are seat 2.
    if value is None:
        return None, "may not be null"
    if isinstance(value, str) and len(value) > MAX_INTEGER_TEXT:
        return None, "a seat number 1-4"
    try:
        number = int(_WHOLE_NUMBER_TEXT.sub("", str(value)))
    except (TypeError, ValueError, OverflowError):
        return None, "a seat number 1-4"
    if not 1 <= number <= 4:
        return None, "a seat number 1-4"
    return number, None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


_CHECKS = (
    ("type", _type),
    ("expected_version", _version),
    ("tile", _text(5)),
    ("end", _end),
    ("opener", _opener),
    ("command_id", _text(80)),
)
FIELDS = frozenset(name for name, _ in _CHECKS)
_REQUIRED = frozenset(("type", "expected_version"))
