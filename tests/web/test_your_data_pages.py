"""The "Your data" page and the operators' status page (issue #36), in-process: the
download is the API's file, closing asks for the tick and the password and refuses
while a match of yours goes on, signs you out and shows the pseudonym; the status page
is for staff only and holds /healthz's facts, the release and the day's errors."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.test import Client, override_settings
from django.utils import translation

from server.accounts.models import User
from server.league.models import ClubAction
from server.ops import health
from server.ops.version import server_version
from server.web.selectors.action_log import VERB_TEXT
from tests.web.league_seed import PASSWORD, seed_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def lg():
    return seed_league(members=("ana", "ben", "carl"), rounds=1)


def client(name: str | None) -> Client:
    c = Client()
    if name:
        assert c.login(username=name, password=PASSWORD)
    return c


def test_your_data_page_downloads_and_closes_the_account(lg):
    assert Client().get("/me/data").status_code == 302  # sign in first
    ana = client("ana")
    page = ana.get("/me/data").content.decode()
    assert 'href="/me/data.json"' in page and 'action="/me/close"' in page
    assert '<a class="who" href="/me/data"' in ana.get("/").content.decode()
    download = ana.get("/me/data.json")
    assert download["Content-Disposition"] == 'attachment; filename="dekabes-ana-data.json"'
    data = json.loads(download.content)
    assert data["account"]["username"] == "ana" and data["matches"]
    assert {m["status"] for m in data["matches"]} >= {"finished", "playing"}
    assert len(data["records"]) == sum(m["status"] != "playing" for m in data["matches"])

    # ana sits in the live round: refused, with the reason, and nothing changes
    answer = ana.post("/me/close", {"understood": "on", "password": PASSWORD})
    assert answer.status_code == 409
    assert "hold a seat in a match that is going on" in answer.content.decode()
    assert User.objects.get(username="ana").is_active
    # zed plays nowhere: no tick, or a wrong password, is refused
    zed = client("zed")
    assert zed.post("/me/close", {"password": PASSWORD}).status_code == 400
    wrong = zed.post("/me/close", {"understood": "on", "password": "not it"})
    assert wrong.status_code == 403 and "Wrong password." in wrong.content.decode()
    closed = zed.post("/me/close", {"understood": "on", "password": PASSWORD})
    text = closed.content.decode()
    assert closed.status_code == 200 and "Your account is closed" in text
    pseudonym = User.objects.get(username__startswith="ghost-").username
    assert pseudonym in text
    assert zed.get("/me/data").status_code == 302  # signed out
    assert not Client().login(username="zed", password=PASSWORD)
    assert not Client().login(username=pseudonym, password=PASSWORD)


def test_the_log_names_a_closing_in_every_language(lg):
    assert "member.close" in VERB_TEXT
    with translation.override("es"):
        assert str(VERB_TEXT["member.close"]) == "cerró la cuenta de un miembro, a petición suya"
    assert not ClubAction.objects.filter(verb="member.close").exists()


def test_the_status_page_is_for_operators_only(lg, tmp_path):
    assert Client().get("/status").status_code == 404
    assert client("ana").get("/status").status_code == 404
    User.objects.filter(username="ben").update(is_staff=True)
    log = tmp_path / "errors.log"
    now = dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S,000")
    log.write_text(f"{now} ERROR django.request Internal Server Error: /x\n")
    with override_settings(ERRORS_LOG=log, VAR_DIR=tmp_path, DEKABES_BACKUP_DIR=tmp_path / "b"):
        health._kept = None
        page = client("ben").get("/status")
    text = page.content.decode()
    assert page.status_code == 200
    for check in ("database", "channel_layer", "computer_players", "mail_queue", "last_backup"):
        assert f'data-check="{check}"' in text
    assert "1 error logged" in text and "django.request" in text
    assert f"Dékabès {server_version()}" in text
    assert '<a href="/status">' in client("ben").get("/").content.decode()
    assert '<a href="/status">' not in client("ana").get("/").content.decode()
