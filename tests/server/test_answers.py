"""``server.api_schema.Answer`` renders exactly what DRF's own loop renders: the quick
reads must never change an answer, only its cost."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from rest_framework import serializers

from server.api_schema import Answer, Instant


def pair(base: type[serializers.Serializer]):
    """The same declaration on two bases: DRF's ``Serializer`` and ``Answer``."""

    class Ref(base):  # type: ignore[valid-type, misc]
        id = serializers.IntegerField()
        name = serializers.CharField()

    class Row(base):  # type: ignore[valid-type, misc]
        id = serializers.IntegerField()
        name = serializers.CharField(source="owner.name")
        optional = serializers.CharField(source="owner.nick", required=False)
        nullable = serializers.CharField(source="owner.nick", allow_null=True)
        flag = serializers.BooleanField()
        text_flag = serializers.BooleanField(source="text")
        ratio = serializers.FloatField()
        kind = serializers.ChoiceField(choices=("a", "b"))
        at = Instant(allow_null=True)
        ref = Ref(allow_null=True)
        refs = Ref(many=True)
        computed = serializers.SerializerMethodField()
        called = serializers.IntegerField(source="count")

        def get_computed(self, obj) -> int:
            return 7

    return Row


def rows():
    owner = SimpleNamespace(name="ann", nick=None)
    ref = SimpleNamespace(id=3, name="riverside")
    when = dt.datetime(2026, 12, 2, 23, 27, tzinfo=dt.UTC)
    yield SimpleNamespace(
        id=1,
        owner=owner,
        flag=True,
        text="false",
        ratio=2,
        kind="a",
        at=when,
        ref=ref,
        refs=[ref, {"id": 4, "name": "dict"}],
        count=lambda: 5,
    )
    # a mapping, a missing middle step, nulls
    yield {
        "id": "2",
        "owner": None,
        "flag": 0,
        "text": "true",
        "ratio": 1.5,
        "kind": "b",
        "at": None,
        "ref": None,
        "refs": [],
        "count": 9,
    }


@pytest.mark.parametrize("row", list(rows()))
def test_an_answer_renders_what_drf_renders(row):
    drf, answer = pair(serializers.Serializer), pair(Answer)
    try:
        expected = drf(row).data
    except (AttributeError, KeyError) as error:  # DRF refuses a required field it cannot read
        with pytest.raises(type(error)):
            answer(row).data  # noqa: B018 -- rendering is the point
        return
    got = answer(row).data
    assert got == expected
    assert list(got) == list(expected)  # the same order of keys


def test_a_list_of_answers_renders_what_drf_renders():
    drf, answer = pair(serializers.Serializer), pair(Answer)
    first = next(rows())
    assert answer([first, first], many=True).data == drf([first, first], many=True).data


def test_an_optional_field_behind_a_missing_step_is_left_out_as_drf_does():
    class Drf(serializers.Serializer):
        nick = serializers.CharField(source="owner.nick", required=False)

    class Quick(Answer):
        nick = serializers.CharField(source="owner.nick", required=False)

    row = SimpleNamespace(owner=None)
    assert Quick(row).data == Drf(row).data == {}


def test_a_method_field_reads_its_own_serializers_context():
    # Instances without a context share one plan per class; one with a context has its
    # own, so a method field reading the context sees the right one.
    class Quick(Answer):
        mine = serializers.SerializerMethodField()

        def get_mine(self, obj) -> bool:
            return self.context.get("current") == obj.id

    class Outer(Answer):
        rows = Quick(many=True)

    row = SimpleNamespace(id=4)
    assert Quick(row).data == {"mine": False}
    assert Quick(row, context={"current": 4}).data == {"mine": True}
    assert Outer({"rows": [row]}, context={"current": 4}).data == {"rows": [{"mine": True}]}
    assert Outer({"rows": [row]}).data == {"rows": [{"mine": False}]}


@pytest.mark.django_db
def test_a_related_manager_renders_as_drf_renders_it():
    from server.accounts.models import User

    def declare(base: type[serializers.Serializer]):
        class Token(base):  # type: ignore[valid-type, misc]
            name = serializers.CharField()

        class Owner(base):  # type: ignore[valid-type, misc]
            username = serializers.CharField()
            tokens = Token(many=True, source="access_tokens")

        return Owner

    user = User.objects.create(username="ann-manager")
    user.access_tokens.create(name="phone", key_hash="a" * 64)
    drf, answer = declare(serializers.Serializer), declare(Answer)
    assert (
        answer(user).data
        == drf(user).data
        == {
            "username": "ann-manager",
            "tokens": [{"name": "phone"}],
        }
    )
