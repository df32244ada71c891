"""A client written against last month's docs keeps working (docs/api.md, "Compatibility").

Each test plays an older client's sequence exactly as the docs of that time told it,
through the HTTP API in-process (every answer is also checked against the served schema).
"""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from server.accounts.models import User
from server.accounts.services import issue_token
from tests.records import replay_summary
from tests.server.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _with_token(token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api


def _name() -> str:
    return f"old{uuid.uuid4().hex[:8]}"


def test_a_bot_that_registers_logs_in_and_keeps_its_first_token_keeps_both():
    """Register, log in without a device, and use BOTH tokens: a login that names no
    device revokes nothing (both were issued to the unnamed device "default")."""
    anonymous, name = APIClient(), _name()
    made = anonymous.post(
        "/api/auth/register", {"username": name, "password": PASSWORD}, format="json"
    )
    assert made.status_code == 201 and made.json()["device"] == "default"
    again = anonymous.post(
        "/api/auth/token", {"username": name, "password": PASSWORD}, format="json"
    )
    assert again.status_code == 200 and again.json()["device"] == "default"
    first, second = made.json()["token"], again.json()["token"]
    assert first != second
    for token in (first, second):
        assert _with_token(token).get("/api/me").json()["username"] == name
    devices = [t["device"] for t in _with_token(first).get("/api/auth/tokens").json()["tokens"]]
    assert devices == ["default", "default"]
    # Rotating one unnamed token replaces that one only.
    rotated = _with_token(second).post("/api/auth/rotate").json()["token"]
    assert _with_token(second).get("/api/me").status_code == 401
    assert _with_token(first).get("/api/me").status_code == 200
    assert _with_token(rotated).get("/api/me").status_code == 200


def test_a_named_device_keeps_one_token_and_the_account_at_most_twenty():
    anonymous, name = APIClient(), _name()
    body = {"username": name, "password": PASSWORD}
    first = anonymous.post("/api/auth/register", body, format="json").json()["token"]
    laptop = {**body, "device": "table on ann-laptop"}
    old = anonymous.post("/api/auth/token", laptop, format="json").json()["token"]
    new = anonymous.post("/api/auth/token", laptop, format="json").json()["token"]
    assert _with_token(old).get("/api/me").status_code == 401  # that device's previous token
    assert _with_token(new).get("/api/me").status_code == 200
    assert _with_token(first).get("/api/me").status_code == 200  # another device's stays
    # 2 tokens now; 19 more unnamed ones make 21: the oldest (the registration's) goes.
    # (18 issued by the service itself: as many logins would meet the login throttle.)
    account = User.objects.get(username=name)
    later = [issue_token(account) for _ in range(18)]
    later.append(anonymous.post("/api/auth/token", body, format="json").json()["token"])
    assert _with_token(first).get("/api/me").status_code == 401
    assert all(_with_token(t).get("/api/me").status_code == 200 for t in [new, *later])
    assert len(_with_token(new).get("/api/auth/tokens").json()["tokens"]) == 20


def test_last_months_walk_through_create_act_with_a_key_long_poll_and_record(tmp_path):
    """docs/api.md as it was a month ago: register, create a table (pass-and-play: every
    seat yours), act with an Idempotency-Key and the version just seen, retry the same
    key, long-poll past a version, play a hand out from `legal`, download the record."""
    name = _name()
    made = APIClient().post(
        "/api/auth/register", {"username": name, "password": PASSWORD}, format="json"
    )
    api = _with_token(made.json()["token"])
    table = api.post(
        "/api/tables",
        {"seats": dict.fromkeys("1234", "human"), "join": [1, 2, 3, 4]},
        format="json",
    )
    assert table.status_code == 201
    code = table.json()["code"]
    assert (table.json()["version"], table.json()["phase"]) == (2, "accept")
    seat = api.get(f"/api/tables/{code}/seats/1").json()
    assert seat["version"] == 2 and len(seat["view"]["hand"]) == 7
    key = str(uuid.uuid4())
    body = {"type": "accept", "expected_version": 2}
    url = f"/api/tables/{code}/seats/1/actions"
    accepted = api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    retried = api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert accepted.status_code == retried.status_code == 200
    assert retried.json() == accepted.json()  # the stored first answer, nothing applied again
    version = accepted.json()["version"]
    assert version == 3
    stale = api.post(url, {"type": "accept", "expected_version": 2}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "stale_version"
    # A long-poll past an older version answers at once; past the current one, after `wait`.
    assert api.get(f"/api/tables/{code}/seats/1", {"wait": 25, "after": 2}).json()["version"] == 3
    waited = api.get(f"/api/tables/{code}/seats/1", {"wait": 0.2, "after": version})
    assert waited.status_code == 200 and waited.json()["version"] == version
    # Everyone plays from "legal", each decision with its own key, until the hand ends.
    while True:
        views = {n: api.get(f"/api/tables/{code}/seats/{n}").json() for n in (1, 2, 3, 4)}
        if views[1]["view"]["last_hand"] is not None:
            break
        number, answer = next((n, v) for n, v in views.items() if v["view"]["legal"])
        event = {k: v for k, v in answer["view"]["legal"][0].items() if k != "seat"}
        done = api.post(
            f"/api/tables/{code}/seats/{number}/actions",
            {**event, "expected_version": answer["version"]},
            format="json",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
        )
        assert done.status_code == 200, done.content
    record = api.get(f"/api/tables/{code}/record")
    assert record.status_code == 200 and record["Content-Type"].startswith("text/plain")
    summary = replay_summary(record.content.decode(), tmp_path)
    assert len(summary["results"]) == 1  # the finished hand, replayed by the engine
