"""Accounts, bot accounts, createbot, and the OpenAPI schema."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from server.accounts.models import User
from tests.server.conftest import PASSWORD, client_for, new_member

pytestmark = pytest.mark.django_db


def test_register_login_me_and_bots():
    api = APIClient()
    made = api.post(
        "/api/auth/register", {"username": "zoe_1", "password": PASSWORD}, format="json"
    )
    assert made.status_code == 201 and made.json()["token"] and not made.json()["is_bot"]
    again = api.post(
        "/api/auth/token",
        {"username": "zoe_1", "password": PASSWORD, "device": "laptop"},
        format="json",
    )
    # Login issues a token of its own (for its device), never the registration one.
    assert again.status_code == 200 and again.json()["token"] != made.json()["token"]
    assert again.json()["device"] == "laptop"
    wrong = api.post(
        "/api/auth/token", {"username": "zoe_1", "password": "nope nope nope"}, format="json"
    )
    assert wrong.status_code == 401 and wrong.json()["code"] == "not_authenticated"
    taken = api.post(
        "/api/auth/register", {"username": "ZOE_1", "password": PASSWORD}, format="json"
    )
    assert taken.status_code == 409 and taken.json()["code"] == "username_taken"
    short = api.post("/api/auth/register", {"username": "amy", "password": "abc"}, format="json")
    assert short.json()["code"] == "validation_error"
    extra = api.post(
        "/api/auth/register",
        {"username": "amy", "password": PASSWORD, "admin": True},
        format="json",
    )
    assert extra.json()["code"] == "validation_error"
    api.credentials(HTTP_AUTHORIZATION=f"Token {made.json()['token']}")
    assert api.get("/api/me").json()["username"] == "zoe_1"
    bot = api.post("/api/bots", {"name": "zoe-bot"}, format="json").json()
    assert bot["is_bot"] and bot["owner"] == "zoe_1" and bot["token"] != made.json()["token"]
    assert [b["username"] for b in api.get("/api/bots").json()["bots"]] == ["zoe-bot"]
    assert "token" not in api.get("/api/bots").json()["bots"][0]
    bot_api = APIClient()
    bot_api.credentials(HTTP_AUTHORIZATION=f"Token {bot['token']}")
    assert bot_api.get("/api/me").json()["is_bot"] is True
    assert (
        bot_api.post("/api/bots", {"name": "sub-bot"}, format="json").json()["code"]
        == "permission_denied"
    )


def test_createbot_prints_a_token_and_is_idempotent_on_the_account():
    out = io.StringIO()
    call_command("createbot", "housebot", stdout=out)
    token = out.getvalue().strip()
    assert len(token) == 40 and User.objects.get(username="housebot").is_bot
    again = io.StringIO()
    call_command("createbot", "housebot", stdout=again)
    # One account; tokens are stored hashed, so a run issues a new one for its device
    # and the previous one of that device stops working.
    assert User.objects.filter(username="housebot").count() == 1
    new = again.getvalue().strip()
    assert new != token
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert api.get("/api/me").json()["username"] == "housebot"
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/me").status_code == 401


def test_a_member_can_seat_house_bots_but_not_another_member_s_bot():
    ann, bob = new_member(), new_member()
    call_command("createbot", "house-1", stdout=io.StringIO())
    ann_api = client_for(ann)
    bob_bot = (
        client_for(bob).post("/api/bots", {"name": "bobs-bot"}, format="json").json()["username"]
    )
    seats = {"1": "human", "2": "bot", "3": "bot", "4": "bot"}
    ok = ann_api.post(
        "/api/tables", {"seats": seats, "join": [1], "bots": {"2": "house-1"}}, format="json"
    )
    assert ok.status_code == 201 and ok.json()["seats"]["2"]["player"] == "house-1"
    refused = ann_api.post("/api/tables", {"seats": seats, "bots": {"2": bob_bot}}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    bad = ann_api.post("/api/tables", {"seats": {"1": "human"}}, format="json")
    assert bad.json()["code"] == "validation_error"
    wrong_join = ann_api.post("/api/tables", {"seats": seats, "join": [2]}, format="json")
    assert wrong_join.json()["code"] == "validation_error"


def test_openapi_schema_describes_every_endpoint_and_error_bodies():
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    for path in (
        "/api/auth/register",
        "/api/auth/token",
        "/api/me",
        "/api/bots",
        "/api/tables",
        "/api/tables/{code}",
        "/api/tables/{code}/join",
        "/api/tables/{code}/record",
        "/api/tables/{code}/seats/{seat}",
        "/api/tables/{code}/seats/{seat}/actions",
        "/api/tables/{code}/seats/{seat}/hint",
        "/api/tables/{code}/seats/{seat}/events",
    ):
        assert path in paths, path
    action = paths["/api/tables/{code}/seats/{seat}/actions"]["post"]
    for status in ("200", "400", "401", "403", "404", "409", "422"):
        assert status in action["responses"], status
    assert "Error" in str(action["responses"]["400"])
    docs = APIClient().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
    # served by the server itself, works offline: every script, style and icon it loads
    # is a path here (not "cdn" anywhere: the page's random CSRF token may spell it)
    loaded = re.findall(rb'(?:src|href)="([^"]*)"', docs.content)
    assert loaded and all(url.startswith(b"/static/") for url in loaded), loaded
    assert b"//cdn" not in docs.content.lower() and b"https://" not in docs.content
