"""Abuse limits and bad input (issue 11.1, 11.3, 11.5, 11.7, 11.8): throttles with 429 +
Retry-After, long-poll and socket caps, quotas, and 4xx JSON (never 500) on odd input."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from server import limits
from server.accounts.models import User
from server.errors import QuotaExceeded, TooManyLongPolls
from tests.server.conftest import PASSWORD, Players, client_for, new_bot, new_member, token_for

pytestmark = pytest.mark.django_db


def rates(**changed):
    return override_settings(
        REST_FRAMEWORK={
            **_rest(),
            "DEFAULT_THROTTLE_RATES": {**api_settings.DEFAULT_THROTTLE_RATES, **changed},
        }
    )


def _rest():
    from django.conf import settings

    return dict(settings.REST_FRAMEWORK)


def login_from(address: str, name: str, password: str = "wrong wrong wrong", **extra):
    return APIClient().post(
        "/api/auth/token",
        {"username": name, "password": password},
        format="json",
        REMOTE_ADDR=address,
        **extra,
    )


@pytest.mark.backend
def test_login_attempts_on_one_name_are_throttled_from_any_address():
    User.objects.create_user(username="victim_1", password=PASSWORD)
    with rates(login_name="3/minute", login_address="100/minute"):
        answers = [login_from(f"10.0.0.{i}", "victim_1") for i in range(5)]
    assert [a.status_code for a in answers] == [401, 401, 401, 429, 429]
    refused = answers[-1]
    assert refused.json()["code"] == "throttled" and int(refused["Retry-After"]) >= 1


def test_login_attempts_from_one_address_are_throttled_across_names():
    with rates(login_name="100/minute", login_address="4/minute"):
        answers = [login_from("10.0.1.1", f"name_{i}") for i in range(6)]
        other = login_from("10.0.1.2", "name_x")
    assert [a.status_code for a in answers] == [401] * 4 + [429] * 2
    assert other.status_code == 401
    assert answers[-1].json()["code"] == "throttled" and "Retry-After" in answers[-1]


def test_a_forged_x_forwarded_for_does_not_escape_the_address_throttle():
    with rates(login_name="100/minute", login_address="2/minute"):
        answers = [
            login_from("10.0.2.1", f"n_{i}", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}") for i in range(4)
        ]
    assert [a.status_code for a in answers] == [401, 401, 429, 429]


def test_registration_is_throttled_per_address():
    with rates(register_address="2/hour"):
        answers = [
            APIClient().post(
                "/api/auth/register",
                {"username": f"reg_{i}", "password": PASSWORD},
                format="json",
                REMOTE_ADDR="10.0.3.1",
            )
            for i in range(3)
        ]
    assert [a.status_code for a in answers] == [201, 201, 429]
    assert not User.objects.filter(username="reg_2").exists()


def test_hints_are_throttled_per_account():
    p = Players()
    with rates(hint="2/minute"):
        answers = [p.owner_api.get(f"/api/tables/{p.code}/seats/1/hint") for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]


def test_an_account_s_long_polls_are_capped_with_a_code_of_their_own():
    p = Players()
    version = p.seat(1)["version"]
    with override_settings(DEKABES_MAX_LONG_POLLS=2):
        assert limits.long_polls.take(p.owner.pk, 2) and limits.long_polls.take(p.owner.pk, 2)
        try:
            refused = p.owner_api.get(f"/api/tables/{p.code}/seats/1?wait=5&after={version}")
            assert refused.status_code == 429 and refused.json()["code"] == "too_many_long_polls"
            assert refused["Retry-After"] == "1"
            # A plain read is not a long-poll; another account is not affected.
            assert p.owner_api.get(f"/api/tables/{p.code}/seats/1").status_code == 200
            assert (
                p.bot_api.get(f"/api/tables/{p.code}/seats/2?wait=0.2&after={version}").status_code
                == 200
            )
            with override_settings(DEKABES_MAX_LONG_POLLS_BOT=0):  # bots have a cap of their own
                bot = p.bot_api.get(f"/api/tables/{p.code}/seats/2?wait=0.2&after={version}")
                assert bot.status_code == 429 and bot.json()["code"] == "too_many_long_polls"
        finally:
            limits.long_polls.give_back(p.owner.pk)
            limits.long_polls.give_back(p.owner.pk)
    assert limits.long_polls.held(p.owner.pk) == 0


def test_the_lobby_long_poll_counts_against_the_same_cap():
    member = new_member()
    api = client_for(member)
    with override_settings(DEKABES_MAX_LONG_POLLS=1):
        assert limits.long_polls.take(member.pk, 1)
        try:
            refused = api.get("/api/me/league-tables?wait=5&after=0")
            assert refused.status_code == 429 and refused.json()["code"] == "too_many_long_polls"
            assert api.get("/api/me/league-tables").status_code == 200  # a plain read
        finally:
            limits.long_polls.give_back(member.pk)
        assert api.get("/api/me/league-tables?wait=0.2&after=99").status_code == 200
    assert limits.long_polls.held(member.pk) == 0


@pytest.mark.django_db(transaction=True)
def test_lobby_and_table_websockets_share_the_account_s_cap():
    from server.asgi import application

    p = Players()
    headers = [(b"authorization", f"Token {token_for(p.owner)}".encode())]

    async def scenario():
        table = WebsocketCommunicator(application, f"/ws/tables/{p.code}", headers=headers)
        assert (await table.connect())[0]
        lobby = WebsocketCommunicator(application, "/ws/me", headers=headers)
        assert (await lobby.connect())[0]
        refused = await lobby.receive_output(5)
        await table.disconnect()
        again = WebsocketCommunicator(application, "/ws/me", headers=headers)
        ok = (await again.connect())[0]
        first = await again.receive_json_from(5)
        await again.disconnect()
        return refused, ok, first

    with override_settings(DEKABES_MAX_SOCKETS=1):
        refused, ok, first = async_to_sync(scenario)()
    assert refused == {"type": "websocket.close", "code": 4429}
    assert ok and first["type"] == "league_tables"
    assert limits.sockets.held(p.owner.pk) == 0


@pytest.mark.django_db(transaction=True)
def test_an_account_s_websockets_are_capped_and_the_slot_comes_back_on_close():
    from server.asgi import application

    p = Players()
    token = token_for(p.owner)
    headers = [(b"authorization", f"Token {token}".encode())]

    async def scenario():
        first = WebsocketCommunicator(application, f"/ws/tables/{p.code}", headers=headers)
        assert (await first.connect())[0]
        second = WebsocketCommunicator(application, f"/ws/tables/{p.code}", headers=headers)
        assert (await second.connect())[0]
        refused = await second.receive_output(5)
        await first.disconnect()
        third = WebsocketCommunicator(application, f"/ws/tables/{p.code}", headers=headers)
        ok = (await third.connect())[0]
        await third.disconnect()
        return refused, ok

    with override_settings(DEKABES_MAX_SOCKETS=1):
        refused, ok = async_to_sync(scenario)()
    assert refused == {"type": "websocket.close", "code": 4429} and ok
    assert limits.sockets.held(p.owner.pk) == 0


@pytest.mark.django_db(transaction=True)
def test_a_browser_page_from_another_origin_cannot_open_a_websocket():
    from server.asgi import application

    p = Players()
    token = token_for(p.owner)

    async def connect(origin):
        headers = [(b"authorization", f"Token {token}".encode())]
        if origin:
            headers.append((b"origin", origin))
        socket = WebsocketCommunicator(application, f"/ws/tables/{p.code}", headers=headers)
        connected, _ = await socket.connect()
        assert connected
        await socket.send_json_to({"type": "ping"})
        answer = await socket.receive_output(5)
        if answer["type"] == "websocket.close":
            return answer
        await socket.disconnect()
        return (
            "open" if answer == {"type": "websocket.send", "text": '{"type": "pong"}'} else answer
        )

    assert async_to_sync(connect)(b"https://evil.example") == {
        "type": "websocket.close",
        "code": 4403,
    }
    assert async_to_sync(connect)(b"http://127.0.0.1:8000") == "open"
    assert async_to_sync(connect)(None) == "open"  # desktop clients and bots send none


def test_bots_per_member_are_limited():
    owner = client_for(new_member())
    with override_settings(DEKABES_MAX_BOTS=2):
        answers = [
            owner.post("/api/bots", {"name": f"qbot{i}x{owner.user.pk}"}, format="json")
            for i in range(3)
        ]
    assert [a.status_code for a in answers] == [201, 201, 403]
    assert answers[-1].json()["code"] == "quota_exceeded"


def test_tables_in_play_per_member_are_limited():
    owner = client_for(new_member())
    body = {"seats": {"1": "human", "2": "human", "3": "human", "4": "human"}, "join": [1, 2, 3, 4]}
    with override_settings(DEKABES_MAX_TABLES=2):
        answers = [owner.post("/api/tables", body, format="json") for _ in range(3)]
    assert [a.status_code for a in answers] == [201, 201, 403]
    assert answers[-1].json()["code"] == "quota_exceeded"


DEEP = "[" * 30_000 + "]" * 30_000  # under the 64 KB body limit, past Python's recursion limit


def test_a_body_past_the_limit_is_a_413_in_process_too():
    answer = APIClient().post(
        "/api/auth/token", '{"username": "' + "a" * 70_000 + '"}', content_type="application/json"
    )
    assert answer.status_code == 413 and answer.json()["code"] == "body_too_large"


@pytest.mark.parametrize("path", ["/api/auth/register", "/api/auth/token"])
def test_deeply_nested_json_is_a_400_not_a_500(path):
    answer = APIClient().post(path, DEEP, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"


def test_deeply_nested_json_on_an_action_is_a_400_with_a_token_and_401_without(players):
    path = f"/api/tables/{players.code}/seats/1/actions"
    before = players.log()
    answer = players.owner_api.post(path, DEEP, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    anonymous = APIClient().post(path, DEEP, content_type="application/json")
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "not_authenticated"
    assert players.log() == before


@pytest.mark.parametrize("seat", ["²", "١", "１", "01", " 1", "1 "])
def test_a_seat_is_an_ascii_digit_1_to_4(players, seat):
    from urllib.parse import quote

    before = players.log()
    for suffix in ("", "/events", "/hint"):
        answer = players.owner_api.get(f"/api/tables/{players.code}/seats/{quote(seat)}{suffix}")
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    acted = players.owner_api.post(
        f"/api/tables/{players.code}/seats/{quote(seat)}/actions",
        {"type": "pass", "expected_version": 1},
        format="json",
    )
    assert acted.status_code == 404 and players.log() == before


@pytest.mark.backend
def test_a_nul_byte_in_a_table_code_or_a_name_is_a_clean_refusal(players):
    # PostgreSQL refuses NUL in text (DataError): it must never reach a query.
    for path in (
        "/api/tables/AB%00CD",
        "/api/tables/AB%00CD/seats/1",
        "/api/tables/AB%00CD/record",
    ):
        answer = players.owner_api.get(path)
        assert answer.status_code == 404 and answer.json()["code"] == "not_found"
    for path in ("/api/auth/token", "/api/auth/register"):
        answer = APIClient().post(
            path, {"username": "ab\x00c", "password": PASSWORD}, format="json"
        )
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    join = players.owner_api.post("/api/tables/AB%00CD/join", {"seat": 1}, format="json")
    assert join.status_code == 404


def test_a_version_sent_as_a_string_is_refused(players):
    state = players.seat(1)
    before = players.log()
    event = state["view"]["legal"][0] if state["view"]["legal"] else {"type": "pause"}
    body = {k: v for k, v in event.items() if k != "seat"}
    body["expected_version"] = str(state["version"])
    answer = players.act(1, body)
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    assert players.log() == before


def test_an_unknown_host_gets_a_json_400():
    answer = APIClient().get("/api/me", HTTP_HOST="evil.example")
    assert answer.status_code == 400 and answer.json()["code"] == "bad_request"


def test_registration_can_be_closed_or_by_invite():
    import io

    from django.core.management import call_command

    body = {"username": "newcomer_1", "password": PASSWORD}
    with override_settings(DEKABES_REGISTRATION="closed"):
        closed = APIClient().post("/api/auth/register", body, format="json")
    assert closed.status_code == 403 and closed.json()["code"] == "registration_closed"
    out = io.StringIO()
    call_command("invite", stdout=out)
    code = out.getvalue().strip()
    with override_settings(DEKABES_REGISTRATION="invite"):
        none = APIClient().post("/api/auth/register", body, format="json")
        bad = APIClient().post("/api/auth/register", {**body, "invite": "nope"}, format="json")
        ok = APIClient().post("/api/auth/register", {**body, "invite": code}, format="json")
        again = APIClient().post(
            "/api/auth/register",
            {"username": "newcomer_2", "password": PASSWORD, "invite": code},
            format="json",
        )
    assert none.json()["code"] == "registration_closed" and bad.json()["code"] == "bad_invite"
    assert ok.status_code == 201 and again.json()["code"] == "bad_invite"
    assert not User.objects.filter(username__in=["newcomer_2"]).exists()


def test_the_schema_states_what_the_server_enforces():
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    components = schema["components"]["schemas"]
    assert components["RegisterRequest"]["additionalProperties"] is False
    assert components["ActionRequest"]["additionalProperties"] is False
    assert (
        components["RegisterRequest"]["properties"]["username"]["pattern"]
        == "^[A-Za-z0-9_.-]{3,40}$"
    )
    assert components["CreateTableRequest"]["properties"]["seats"]["propertyNames"] == {
        "pattern": "^[1-4]$"
    }
    wait = next(
        p
        for p in schema["paths"]["/api/tables/{code}/seats/{seat}"]["get"]["parameters"]
        if p["name"] == "wait"
    )
    assert wait["schema"]["minimum"] == 0
    bots = schema["paths"]["/api/bots"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]
    assert "$ref" in bots and components[bots["$ref"].rsplit("/", 1)[1]]["type"] == "object"
    for path in (
        "/api/auth/logout",
        "/api/auth/rotate",
        "/api/auth/tokens",
        "/api/auth/tokens/{token_id}",
        "/api/auth/password",
        "/api/bots/{name}/token",
    ):
        assert path in schema["paths"], path


def test_an_owner_s_bots_share_one_long_poll_count_with_their_owner():
    """Ten bots of one member do not get ten times the cap (issue 20): their long-polls
    and their owner's are counted together; a house bot keeps a count of its own."""
    owner = new_member()
    bots = [new_bot(owner) for _ in range(3)]
    house = new_bot(None)
    with override_settings(DEKABES_MAX_LONG_POLLS_BOT=3, DEKABES_MAX_LONG_POLLS=2):
        held = [limits.take_long_poll_slot(bots[0]), limits.take_long_poll_slot(bots[1])]
        held.append(limits.take_long_poll_slot(owner))  # the owner's own: the third
        try:
            for who in (bots[2], bots[0], owner):
                with pytest.raises(TooManyLongPolls):
                    limits.take_long_poll_slot(who)
            api = client_for(bots[2])
            refused = api.get("/api/me/league-tables?wait=5&after=0")
            assert refused.status_code == 429 and refused.json()["code"] == "too_many_long_polls"
            held.append(limits.take_long_poll_slot(house))  # not the member's count
        finally:
            for give_back in held:
                give_back()
    assert limits.long_polls.held(("owner", owner.pk)) == 0
    assert limits.long_polls.held(owner.pk) == limits.long_polls.held(house.pk) == 0


def test_the_table_quota_reads_the_kept_folds_instead_of_folding_every_table(monkeypatch):
    """A member's tables moved in the hour are counted from the folds this process keeps
    at their newest version; only tables it does not hold are folded (a bot with hundreds
    of finished matches in the hour once folded and copied every one per new table)."""
    from server.tables import projection, quota

    owner = client_for(new_member())
    body = {"seats": {"1": "human", "2": "human", "3": "human", "4": "human"}, "join": [1, 2, 3, 4]}
    for _ in range(3):
        assert owner.post("/api/tables", body, format="json").status_code == 201
    folds = []
    real_project = projection.project
    monkeypatch.setattr(
        projection, "project", lambda t, *a: folds.append(t.pk) or real_project(t, *a)
    )
    with override_settings(DEKABES_MAX_TABLES=3):
        with pytest.raises(QuotaExceeded):
            quota.check_table_quota(owner.user)
        assert folds == []  # all three read from the kept folds, still counted in play
        projection.forget()  # a process that holds none of them folds each, same answer
        with pytest.raises(QuotaExceeded):
            quota.check_table_quota(owner.user)
        assert len(folds) == 3
    with override_settings(DEKABES_MAX_TABLES=4):
        quota.check_table_quota(owner.user)  # room for a fourth
