"""Credentials (issue 11.4): named per-device tokens, stored hashed, revocable, rotatable;
password change revokes the other tokens; owners rotate their bots' tokens."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection
from rest_framework.test import APIClient

from server.accounts.models import AccessToken, User
from server.accounts.services import key_hash
from tests.server.conftest import PASSWORD, client_for, new_member

pytestmark = pytest.mark.django_db


def with_token(token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api


def register(name: str, device: str | None = None) -> dict:
    body = {"username": name, "password": PASSWORD, **({"device": device} if device else {})}
    made = APIClient().post("/api/auth/register", body, format="json")
    assert made.status_code == 201, made.content
    return made.json()


def login(name: str, device: str | None = None, password: str = PASSWORD):
    body = {"username": name, "password": password, **({"device": device} if device else {})}
    return APIClient().post("/api/auth/token", body, format="json")


def test_tokens_are_stored_as_hashes_only():
    made = register("hashed_1")
    stored = AccessToken.objects.get(user__username="hashed_1")
    assert stored.key_hash == key_hash(made["token"]) and made["token"] not in stored.key_hash
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_accesstoken")
        assert made["token"] not in repr(cursor.fetchall())


def test_login_issues_a_new_token_per_device_and_replaces_that_device_s_old_one():
    registered = register("dev_1")
    laptop = login("dev_1", "laptop").json()["token"]
    phone = login("dev_1", "phone").json()["token"]
    assert len({registered["token"], laptop, phone}) == 3
    for token in (registered["token"], laptop, phone):
        assert with_token(token).get("/api/me").status_code == 200
    laptop_again = login("dev_1", "laptop").json()["token"]
    assert with_token(laptop).get("/api/me").status_code == 401
    assert with_token(laptop_again).get("/api/me").status_code == 200
    listed = with_token(phone).get("/api/auth/tokens").json()["tokens"]
    assert sorted(t["device"] for t in listed) == ["default", "laptop", "phone"]
    assert [t["current"] for t in listed if t["device"] == "phone"] == [True]
    assert all("token" not in t and "key_hash" not in t for t in listed)


def test_logout_revokes_the_token_it_is_sent_with_only():
    registered = register("out_1")
    other = login("out_1", "other").json()["token"]
    assert with_token(registered["token"]).post("/api/auth/logout").status_code == 204
    assert with_token(registered["token"]).get("/api/me").json()["code"] == "not_authenticated"
    assert with_token(other).get("/api/me").status_code == 200


def test_rotate_gives_a_new_key_for_the_same_device_and_kills_the_old():
    old = login_token = register("rot_1", "desk")["token"]
    rotated = with_token(login_token).post("/api/auth/rotate")
    assert rotated.status_code == 200 and rotated.json()["device"] == "desk"
    new = rotated.json()["token"]
    assert new != old
    assert with_token(old).get("/api/me").status_code == 401
    assert with_token(new).get("/api/me").json()["username"] == "rot_1"


def test_revoking_one_of_my_tokens_by_id_and_not_someone_else_s():
    mine = register("rev_1")["token"]
    spare = login("rev_1", "spare").json()["token"]
    theirs = register("rev_2")["token"]
    their_id = with_token(theirs).get("/api/auth/tokens").json()["tokens"][0]["id"]
    refused = with_token(mine).delete(f"/api/auth/tokens/{their_id}")
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert with_token(theirs).get("/api/me").status_code == 200
    spare_id = next(
        t["id"]
        for t in with_token(mine).get("/api/auth/tokens").json()["tokens"]
        if t["device"] == "spare"
    )
    assert with_token(mine).delete(f"/api/auth/tokens/{spare_id}").status_code == 204
    assert with_token(spare).get("/api/me").status_code == 401


def test_password_change_revokes_every_other_token_and_checks_the_old_password():
    kept = register("pw_1", "desk")["token"]
    other = login("pw_1", "phone").json()["token"]
    wrong = with_token(kept).post(
        "/api/auth/password",
        {"password": "not it at all", "new_password": "another long one 77"},
        format="json",
    )
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password"
    weak = with_token(kept).post(
        "/api/auth/password", {"password": PASSWORD, "new_password": "abc"}, format="json"
    )
    assert weak.status_code == 400 and weak.json()["code"] == "validation_error"
    assert with_token(other).get("/api/me").status_code == 200  # nothing changed yet
    changed = with_token(kept).post(
        "/api/auth/password",
        {"password": PASSWORD, "new_password": "another long one 77"},
        format="json",
    )
    assert changed.status_code == 200 and changed.json() == {"revoked": 1}
    assert with_token(other).get("/api/me").status_code == 401
    assert with_token(kept).get("/api/me").status_code == 200
    assert login("pw_1").status_code == 401
    assert login("pw_1", password="another long one 77").status_code == 200


def test_an_owner_rotates_their_bot_s_token_and_nobody_else_can():
    ann = register("own_1")["token"]
    bot = with_token(ann).post("/api/bots", {"name": "own-bot"}, format="json").json()
    assert with_token(bot["token"]).get("/api/me").json()["is_bot"]
    bob = register("own_2")["token"]
    refused = with_token(bob).post("/api/bots/own-bot/token")
    assert refused.status_code == 404
    assert with_token(bot["token"]).get("/api/me").status_code == 200
    rotated = with_token(ann).post("/api/bots/own-bot/token")
    assert rotated.status_code == 200 and rotated.json()["username"] == "own-bot"
    assert with_token(bot["token"]).get("/api/me").status_code == 401
    assert with_token(rotated.json()["token"]).get("/api/me").json()["username"] == "own-bot"


def test_createbot_and_playertoken_replace_only_their_own_device_token():
    out = io.StringIO()
    call_command("createbot", "runnerbot", stdout=out)
    first = out.getvalue().strip()
    elsewhere = io.StringIO()
    call_command("createbot", "runnerbot", "--device", "laptop", stdout=elsewhere)
    call_command("createbot", "runnerbot", stdout=io.StringIO())
    assert with_token(first).get("/api/me").status_code == 401
    assert with_token(elsewhere.getvalue().strip()).get("/api/me").status_code == 200
    player = io.StringIO()
    call_command("playertoken", "localplayer", stdout=player)
    assert with_token(player.getvalue().strip()).get("/api/me").json()["username"] == "localplayer"


def test_the_migration_keeps_pre_hash_tokens_working_and_drops_the_plain_text():
    import importlib

    migration = importlib.import_module(
        "server.accounts.migrations.0002_tokens_hashed_names_unique_ignoring_case"
    )
    user = new_member()
    old_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE IF NOT EXISTS authtoken_token (key varchar(40) PRIMARY KEY, "
            "created timestamp, user_id bigint)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [old_key, "2026-01-01 00:00:00", user.pk],
        )

    class Editor:
        pass

    editor = Editor()
    editor.connection = connection
    from django.apps import apps

    migration.copy_plain_tokens(apps, editor)
    assert with_token(old_key).get("/api/me").json()["username"] == user.username
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM authtoken_token")
        assert cursor.fetchone()[0] == 0
        cursor.execute("DROP TABLE authtoken_token")


def test_a_revoked_token_no_longer_opens_a_websocket():
    from asgiref.sync import async_to_sync
    from channels.testing import WebsocketCommunicator

    from server.asgi import application

    made = register("ws_1")
    api = with_token(made["token"])
    code = api.post(
        "/api/tables",
        {"seats": {"1": "human", "2": "human", "3": "human", "4": "human"}, "join": [1, 2, 3, 4]},
        format="json",
    ).json()["code"]
    api.post("/api/auth/logout")

    async def scenario():
        socket = WebsocketCommunicator(
            application,
            f"/ws/tables/{code}",
            headers=[(b"authorization", f"Token {made['token']}".encode())],
        )
        connected, _ = await socket.connect()
        message = await socket.receive_output(5)
        return connected, message

    connected, message = async_to_sync(scenario)()
    assert connected and message == {"type": "websocket.close", "code": 4401}


@pytest.mark.backend
def test_user_model_keeps_usernames_unique_ignoring_case_in_the_database():
    from django.db import IntegrityError, transaction

    User.objects.create_user(username="CaseName", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="casename", password=PASSWORD)
    taken = APIClient().post(
        "/api/auth/register", {"username": "CASENAME", "password": PASSWORD}, format="json"
    )
    assert taken.status_code == 409 and taken.json()["code"] == "username_taken"


def test_me_and_tables_still_work_with_a_conftest_token():
    user = new_member()
    assert client_for(user).get("/api/me").json()["username"] == user.username


@pytest.mark.backend
@pytest.mark.django_db(transaction=True)
def test_concurrent_registrations_differing_only_in_case_make_one_account():
    import threading

    from django.db import connections

    for attempt in range(3):
        names = [f"Race{attempt}Name", f"race{attempt}name"]
        answers = {}
        gate = threading.Barrier(2)

        def register_one(name):
            try:
                gate.wait(10)
                answers[name] = (
                    APIClient()
                    .post(
                        "/api/auth/register",
                        {"username": name, "password": PASSWORD},
                        format="json",
                    )
                    .status_code
                )
            finally:
                connections.close_all()

        threads = [threading.Thread(target=register_one, args=(n,)) for n in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert sorted(answers.values()) == [201, 409], answers
        assert User.objects.filter(username__iexact=names[0]).count() == 1
