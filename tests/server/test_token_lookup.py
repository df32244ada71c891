"""Token -> account (server.accounts.services.token_owner): one plain-SQL statement per
request, building the same account and token the ORM gives, with nothing cached, so a
revoked, rotated or deactivated key fails on the very next request."""

from __future__ import annotations

import pytest

from server.accounts.models import AccessToken, User
from server.accounts.services import do_revoke, issue_token, token_owner
from tests.server.conftest import new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

FIELDS = [f.attname for f in User._meta.concrete_fields]


def test_the_account_and_token_are_those_the_orm_reads():
    owner = new_member()
    bot = new_bot(owner)
    for account in (owner, bot):
        key = issue_token(account, "phone")
        user, token = token_owner(key)
        orm_user = User.objects.get(pk=account.pk)
        assert [getattr(user, f) for f in FIELDS] == [getattr(orm_user, f) for f in FIELDS]
        assert isinstance(user.is_bot, bool) and isinstance(user.is_active, bool)
        orm_token = AccessToken.objects.get(user=account, name="phone")
        assert (token.pk, token.user_id, token.name, token.key_hash, token.created_at) == (
            orm_token.pk,
            orm_token.user_id,
            orm_token.name,
            orm_token.key_hash,
            orm_token.created_at,
        )
        assert token.user is user
        assert not user._state.adding and not token._state.adding  # saved rows, not new ones
    assert token_owner(key)[0].bot_owner_id == owner.pk


def test_a_revoked_or_rotated_key_fails_on_the_next_lookup():
    member = new_member()
    first = issue_token(member, "laptop")
    assert token_owner(first) is not None
    rotated = issue_token(member, "laptop")  # the device's new key: the old one goes
    assert token_owner(first) is None
    assert token_owner(rotated) is not None
    _, token = token_owner(rotated)
    do_revoke(user=member, token_id=token.pk)
    assert token_owner(rotated) is None


def test_a_key_revoked_by_another_process_fails_at_once():
    """Another process deletes the row: this process holds nothing that outlives it."""
    member = new_member()
    key = issue_token(member, "tablet")
    assert token_owner(key) is not None
    AccessToken.objects.filter(user=member).delete()  # as any other process would
    assert token_owner(key) is None


def test_a_deactivated_account_and_an_unknown_key_have_no_owner():
    member = new_member()
    key = issue_token(member, "desk")
    User.objects.filter(pk=member.pk).update(is_active=False)
    assert token_owner(key) is None
    assert token_owner("0" * 40) is None
    assert token_owner("") is None


def test_the_api_answers_401_after_logout():
    from rest_framework.test import APIClient

    member = new_member()
    key = issue_token(member, "web")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/me").status_code == 200
    assert api.post("/api/auth/logout").status_code in (200, 204)
    response = api.get("/api/me")
    assert response.status_code == 401 and response.json()["code"] == "not_authenticated"
