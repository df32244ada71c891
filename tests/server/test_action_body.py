"""The hot path's action check agrees with the published ``ActionSerializer``."""

from __future__ import annotations

import itertools
import random
from types import SimpleNamespace

import pytest

from server.api_schema import strict
from server.errors import ApiError
from server.tables.action_body import parse_action_body
from server.tables.views import ActionSerializer

# The first two values of each field are valid ones.
VALUES = {
    "type": ["play", "pass", "undo", "pause", "", "PLAY", " play", 1, None, ["play"], True],
    "expected_version": [0, 7, 10**30, -1, "7", 7.0, 7.5, True, False, None, [7]],
    "tile": ["3-5", " 3-5 ", "6-6", "", "   ", "123456", "a\x00b", "\ud800", 35, None, True],
    "end": ["left", "right", None, "LEFT", "", 0, ["left"], True],
    "opener": [1, 4, 0, 5, "2", " 3 ", "2.0", 2.0, 2.5, "x", True, None, "9" * 1001, [1]],
    "command_id": ["abc", "k" * 80, "k" * 81, " abc ", "", 12, None, "\x00"],
}


def outcome(check, body):
    try:
        return "ok", dict(check(body))
    except ApiError as err:
        assert err.code == "validation_error"
        return "refused", None


def both(body):
    request = SimpleNamespace(data=body)  # what strict() reads from a DRF request
    drf = outcome(lambda b: strict(ActionSerializer, request), body)
    plain = outcome(parse_action_body, body)
    return drf, plain


@pytest.mark.parametrize(
    ("field", "value"),
    [(field, value) for field, values in VALUES.items() for value in values],
)
def test_each_field_value_is_read_as_the_serializer_reads_it(field, value):
    body = {"type": "play", "expected_version": 3, field: value}
    drf, plain = both(body)
    assert plain == drf, body


def test_random_bodies_agree_with_the_serializer():
    rng = random.Random(5)
    names = list(VALUES) + ["seat", "extra"]
    accepted = refused = 0
    for _ in range(3000):
        body = {}
        for name in names:
            present = rng.random() < (0.95 if name in ("type", "expected_version") else 0.4)
            if name in ("seat", "extra"):
                present = rng.random() < 0.05
            if present:
                values = VALUES.get(name, [1, "x"])
                body[name] = rng.choice(values[:2] if rng.random() < 0.8 else values)
        drf, plain = both(body)
        assert plain == drf, body
        accepted += drf[0] == "ok"
        refused += drf[0] == "refused"
    assert accepted > 100 and refused > 100  # both sides of the check were exercised


@pytest.mark.parametrize("body", [[], "play", 3, None, [{"type": "play"}]])
def test_a_body_that_is_not_an_object_is_refused(body):
    assert both(body) == (("refused", None), ("refused", None))


def test_missing_required_fields_are_named():
    with pytest.raises(ApiError) as caught:
        parse_action_body({"tile": "3-5"})
    assert "type" in caught.value.message and "expected_version" in caught.value.message


def test_serializer_and_check_know_the_same_fields():
    from server.tables import action_body

    assert set(ActionSerializer().fields) == action_body.FIELDS
    required = {name for name, f in ActionSerializer().fields.items() if f.required}
    assert required == set(action_body._REQUIRED)
    assert list(itertools.chain(ActionSerializer().fields)) == [n for n, _ in action_body._CHECKS]
