"""A member's data and closing an account (issue #36): the download holds what the rules
let the member see; closing asks for the phrase and the password, refuses while a match
of theirs goes on, and then the name is a pseudonym everywhere (no row of the database
holds the old name), tokens, sessions and email are gone, the league is unchanged and
``rebuild_league`` gives the same rows. SQLite, and PostgreSQL in the backend run."""

from __future__ import annotations

import json
import random
import secrets

import pytest
from django.apps import apps
from django.contrib.sessions.models import Session
from django.db import connection, models
from django.test import Client

from engine import Match
from engine.record import load_record
from server.accounts.models import AccessToken, User
from server.league.models import ClubAction, LeagueMatch, Membership, Rating
from server.league.projections import rebuild
from server.tables.models import Event, Table
from tests.league.conftest import PASSWORD, client_for, play_out
from tests.league.eventful import FOUR_HUMANS, eventful_club, ok
from tests.league.test_league_api import error
from tests.league.test_substitutes import full_snapshot

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def rows_naming(text: str) -> list[str]:
    """Every text column of every row of the database that contains ``text``."""
    found = []
    kinds = (models.CharField, models.TextField, models.JSONField)
    for model in apps.get_models():
        columns = [f.column for f in model._meta.concrete_fields if isinstance(f, kinds)]
        table = model._meta.db_table
        for column in columns:
            with connection.cursor() as cursor:
                cursor.execute(
                    f'SELECT COUNT(*) FROM "{table}" WHERE CAST("{column}" AS TEXT) LIKE %s',
                    [f"%{text}%"],
                )
                if cursor.fetchone()[0]:
                    found.append(f"{table}.{column}")
    return found


def test_a_member_downloads_their_data_and_closes_the_account():
    club = eventful_club(seed=4)
    match = club.substituted
    handover = Event.objects.get(table=match.table, type="seat_handover")
    ann = User.objects.get(username=handover.payload["from"])  # her seat went to a substitute
    old_name = f"annclose{secrets.token_hex(4)}"
    # a distinctive name, so that a leftover anywhere is found
    renamed_from = ann.username
    ann.username, ann.email = old_name, "ann@example.org"
    ann.save()
    Event.objects.filter(pk=handover.pk).update(payload={**handover.payload, "from": old_name})
    for entry in ClubAction.objects.all():
        text = json.dumps(entry.details).replace(f'"{renamed_from}"', f'"{old_name}"')
        ClubAction.objects.filter(pk=entry.pk).update(details=json.loads(text))
    api = client_for(ann)
    bot = ok(api.post("/api/bots", {"name": f"{old_name}-bot"}, "json"), 201)
    browser = Client()
    browser.force_login(ann)
    assert browser.get("/").status_code == 200

    # -- the download -----------------------------------------------------------------
    answer = api.get("/api/me/data")
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == f'attachment; filename="dekabes-{old_name}-data.json"'
    data = json.loads(answer.content)
    assert data["format"] == "dekabes-member-data/1"
    assert data["account"]["username"] == old_name
    assert data["account"]["email"] == "ann@example.org"
    assert [b["username"] for b in data["bots"]] == [bot["username"]]
    assert {m["club"] for m in data["memberships"]} == {club.league.club.slug}
    listed = ok(api.get(f"/api/matches?player={old_name}&page_size=100"))
    assert sorted(m["id"] for m in data["matches"]) == sorted(m["id"] for m in listed["results"])
    assert match.pk in {m["id"] for m in data["matches"]}
    records = {r["match"]: r["record"] for r in data["records"]}
    for m in data["matches"]:
        if m["status"] != "playing":
            served = api.get(f"/api/matches/{m['id']}/record").content.decode()
            assert records[m["id"]] == served  # as the API serves it to her
            Match.from_events(load_record(served))  # and it replays
    # her seat went to a substitute early on: a match rates a seat for whoever played at
    # least half of its hands (docs/league.md, "Who really played"), so her ratings are
    # those her other matches gave her, if any, under her name
    rated = Rating.objects.filter(player=ann).count()
    assert [r["player"] for r in data["ratings"]] == [old_name] * rated
    verbs = {e["verb"] for e in data["club_log"]}
    assert {"member.join", "match.substitute"} <= verbs
    text = answer.content.decode()
    for secret in ("key_hash", "secret_seed", "deal_seed", "pbkdf2", "md5$", "password"):
        assert secret not in text
    assert club.casual_live.code not in text  # not her table

    # -- closing: confirmation, password, nothing in play -----------------------------
    error(
        api.post("/api/me/close", {"password": PASSWORD, "confirm": "yes"}, "json"),
        400,
        "confirmation_required",
    )
    error(
        api.post("/api/me/close", {"password": "wrong", "confirm": "close my account"}, "json"),
        403,
        "wrong_password",
    )
    table = Table.objects.get(code=ok(api.post("/api/tables", FOUR_HUMANS, "json"), 201)["code"])
    play_out(table, random.Random(1), stop_after=5)
    close = {"password": PASSWORD, "confirm": "Close my account"}
    error(api.post("/api/me/close", close, "json"), 409, "account_in_play")
    assert User.objects.get(pk=ann.pk).username == old_name  # refused: nothing changed
    play_out(table, random.Random(1))

    league = club.league
    standings = ok(league.org_api.get(league.season_url("/standings")))
    before = full_snapshot()
    closed = ok(api.post("/api/me/close", close, "json"))
    pseudonym = closed["pseudonym"]
    assert pseudonym.startswith("ghost-") and closed["bots"] == 1 and closed["sessions"] == 1

    # -- gone: tokens, sessions, password, email; the bot closed with her -------------
    error(api.get("/api/me"), 401, "not_authenticated")
    assert not AccessToken.objects.filter(user__in=[ann.pk]).exists()
    assert not AccessToken.objects.filter(user__bot_owner=ann.pk).exists()
    assert not [
        s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(ann.pk)
    ]
    ann.refresh_from_db()
    assert ann.username == pseudonym and ann.email == "" and not ann.has_usable_password()
    assert not ann.is_active
    assert not Membership.objects.filter(user=ann, active=True).exists()
    assert ClubAction.objects.filter(verb="member.close", details__username=pseudonym).exists()

    # -- the old name is nowhere: not in a row, not in an answer or a page ------------
    leftover = [
        (e.type, e.payload) for e in Event.objects.all() if old_name in json.dumps(e.payload)
    ] + [(a.verb, a.details) for a in ClubAction.objects.all() if old_name in json.dumps(a.details)]
    assert rows_naming(old_name) == [], leftover
    reader = client_for(league.organizer)
    after_standings = ok(reader.get(league.season_url("/standings")))
    assert json.dumps(after_standings) == json.dumps(standings).replace(old_name, pseudonym)
    assert pseudonym in json.dumps(ok(reader.get(f"/api/matches/{match.pk}")))
    view = ok(reader.get(f"/api/tables/{match.table.code}"))
    assert view["handovers"][0]["from"] == pseudonym
    log = json.dumps(ok(reader.get(league.url("/log?page_size=200"))))
    assert pseudonym in log and old_name not in log
    error(reader.get(f"/api/players/{old_name}"), 404, "not_found")
    assert ok(reader.get(f"/api/players/{pseudonym}"))["username"] == pseudonym
    for page in (
        f"/clubs/{league.club.slug}/standings",
        f"/matches/{match.pk}",
        f"/players/{pseudonym}",
    ):
        html = Client().get(page).content.decode()
        assert pseudonym in html and old_name not in html, page
    assert Client().get(f"/players/{old_name}").status_code == 404

    # -- the league unchanged, and rebuild_league agrees ------------------------------
    assert full_snapshot() == before
    rebuild()
    assert full_snapshot() == before
    # her matches stay hers (under the pseudonym): those downloaded and the one played since
    assert (
        LeagueMatch.objects.filter(seats__player=ann).distinct().count() == len(data["matches"]) + 1
    )
