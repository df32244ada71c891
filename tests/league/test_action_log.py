"""The organizer action log (docs/league.md, "Action log"): every organizer action writes
exactly one entry, in its own transaction, with its verb and what it was about; a
refused action writes none; only organizers read it (``GET /api/clubs/{slug}/log``)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from server.league.action_log import NOT_YET_WRITTEN, VERBS, record_action
from server.league.actions.clubs import do_post_announcement, do_remove_announcement
from server.league.actions.seasons import do_set_availability
from server.league.models import ClubAction, LeagueMatch, Season
from tests.league.conftest import add_member, client_for, new_bot, new_club, new_member, play_out

pytestmark = [pytest.mark.backend, pytest.mark.django_db]
ROOT = Path(__file__).resolve().parents[2]


class Log:
    """Reads a club's log as it grows: ``one(verb, actor, **details)`` asserts that
    exactly one entry was written since the last look, with that verb, actor and details."""

    def __init__(self, club):
        self.club = club
        self.seen = ClubAction.objects.filter(club=club).count()

    def new(self) -> list[ClubAction]:
        entries = list(ClubAction.objects.filter(club=self.club).order_by("id")[self.seen :])
        self.seen += len(entries)
        return entries

    def one(self, verb, actor, **details) -> ClubAction:
        entries = self.new()
        assert [e.verb for e in entries] == [verb]
        entry = entries[0]
        assert entry.actor == actor
        for name, value in details.items():
            assert entry.details[name] == value, (name, entry.details)
        return entry

    def none(self) -> None:
        assert self.new() == []


def ok(response, status=200):
    assert response.status_code == status, response.content
    return response.json() if response.content else None


def test_each_organizer_action_writes_exactly_one_entry_with_its_verb_and_details():
    organizer = new_member("org")
    club, api = new_club(organizer)
    log = Log(club)
    log.seen = 0
    log.one("club.create", organizer, slug=club.slug, visibility="public")
    url = f"/api/clubs/{club.slug}"

    ok(api.patch(url, {"name": "Riverside", "visibility": "members"}, format="json"))
    log.one(
        "club.edit",
        organizer,
        changes={"name": [club.name, "Riverside"], "visibility": ["public", "members"]},
    )

    code = ok(api.post(url + "/invites", {"single_use": True}, format="json"), 201)["code"]
    log.one("invite.create", organizer, code=code, single_use=True, expires_at=None)

    ann = new_member("ann")
    ok(client_for(ann).post(url + "/join", {"code": code}, format="json"), 201)
    log.one("member.join", ann, username=ann.username, invite=code, again=False)

    ok(api.patch(url + f"/members/{ann.username}", {"role": "organizer"}, format="json"))
    log.one("member.promote", organizer, username=ann.username)
    ok(api.patch(url + f"/members/{ann.username}", {"role": "member"}, format="json"))
    log.one("member.demote", organizer, username=ann.username)

    bot = new_bot(ann)
    ok(client_for(ann).post(url + "/members", {"bot": bot.username}, format="json"), 201)
    log.one("bot.enter", ann, bot=bot.username, owner=ann.username)

    hosted = ok(api.post(url + "/hosted-players", {"level": "random"}, format="json"), 201)
    log.one("bot.host", organizer, username=hosted["username"], level="random")

    ok(api.delete(url + f"/members/{bot.username}"))
    log.one("member.remove", organizer, username=bot.username, is_bot=True, level=None)

    others = [new_member("m") for _ in range(2)]
    for user in others:
        add_member(club, api, user)
        assert [e.verb for e in log.new()] == ["invite.create", "member.join"]

    season = ok(
        api.post(
            url + "/seasons", {"name": "Spring", "format": "individual", "seed": 3}, format="json"
        ),
        201,
    )["id"]
    log.one("season.create", organizer, season=season, name="Spring", format="individual")
    season_url = url + f"/seasons/{season}"
    ok(api.post(season_url + "/rounds"), 201)
    log.one("round.open", organizer, season=season, round=1)
    players = [organizer.username, ann.username, others[0].username, others[1].username]
    ok(api.post(season_url + "/rounds/1/checkin", {"players": players}, format="json"))
    log.one("round.checkin", organizer, season=season, round=1, players=players)
    ok(api.post(season_url + "/rounds/1/start"))
    match = LeagueMatch.objects.get(round__season_id=season)
    log.one("round.start", organizer, season=season, round=1, tables=[match.table.code], byes=[])

    play_out(match.table, random.Random(5), stop_after=12)
    ok(api.post(f"/api/matches/{match.pk}/annul", {"reason": " gone home "}, format="json"))
    log.one(
        "match.annul",
        organizer,
        match=match.pk,
        table=match.table.code,
        season=season,
        round=1,
        table_number=1,
        reason="gone home",
    )
    again = api.post(f"/api/matches/{match.pk}/annul", {"reason": "again"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "match_annulled"
    log.none()  # refused by the table service, inside the league's transaction

    ok(api.delete(url + f"/members/{ann.username}"))
    log.one("member.remove", organizer, username=ann.username, role="member", is_bot=False)

    pairs = ok(
        api.post(url + "/seasons", {"name": "Pairs", "format": "pairs"}, format="json"), 201
    )["id"]
    log.one("season.create", organizer, season=pairs, format="pairs")
    pair = ok(
        api.post(
            url + f"/seasons/{pairs}/pairs",
            {"name": "", "players": [others[0].username, others[1].username]},
            format="json",
        ),
        201,
    )
    log.one(
        "pair.register",
        organizer,
        season=pairs,
        pair=pair["id"],
        name=pair["name"],
        players=[others[0].username, others[1].username],
    )

    # The organizer pages' actions (issue #21).
    ok(api.delete(url + f"/invites/{code}"))
    log.one("invite.revoke", organizer, code=code)
    ok(api.patch(url + f"/seasons/{pairs}", {"name": "Pairs cup"}, format="json"))
    log.one("season.edit", organizer, season=pairs, changes={"name": ["Pairs", "Pairs cup"]})
    do_set_availability(
        user=organizer,
        season=Season.objects.get(pk=pairs),
        available=False,
        username=others[0].username,
    )
    log.one("availability.override", organizer, username=others[0].username, available=False)
    note = do_post_announcement(user=organizer, club=club, text=" Bring snacks ")
    log.one("announcement.post", organizer, id=note.pk, text="Bring snacks")
    do_remove_announcement(user=organizer, club=club, announcement_id=note.pk)
    log.one("announcement.remove", organizer, id=note.pk)
    ok(api.post(url + f"/seasons/{pairs}/close"))
    log.one("season.close", organizer, season=pairs, name="Pairs cup")

    # The API: newest first, paginated, every entry rendered.
    page = ok(api.get(url + "/log", {"page_size": 200}))
    stored = list(ClubAction.objects.filter(club=club).order_by("-at", "-id"))
    assert page["count"] == len(stored) == log.seen
    assert [e["id"] for e in page["results"]] == [e.pk for e in stored]
    assert page["results"][0]["verb"] == "season.close"
    assert page["results"][-1] == {
        "id": stored[-1].pk,
        "at": page["results"][-1]["at"],
        "actor": organizer.username,
        "verb": "club.create",
        "details": {"slug": club.slug, "name": club.name, "visibility": "public"},
    }
    members = ok(api.get(url + "/log", {"verb": "member"}))["results"]
    assert {e["verb"] for e in members} == {
        "member.join",
        "member.promote",
        "member.demote",
        "member.remove",
    }
    removals = ok(api.get(url + "/log", {"verb": "member.remove"}))["results"]
    assert [e["details"]["username"] for e in removals] == [ann.username, bot.username]
    for bad in ("member.", "nonsense", "member.eat"):
        answer = api.get(url + "/log", {"verb": bad})
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error", bad


def test_a_refused_action_writes_no_entry():
    organizer = new_member("org")
    club, api = new_club(organizer)
    member = new_member("m")
    add_member(club, api, member)
    log = Log(club)
    url = f"/api/clubs/{club.slug}"
    member_api = client_for(member)

    def refused(response, status, code):
        assert response.status_code == status, response.content
        assert response.json()["code"] == code
        log.none()

    refused(member_api.post(url + "/invites", {}, format="json"), 403, "organizer_only")
    refused(member_api.patch(url, {"name": "Mine"}, format="json"), 403, "organizer_only")
    refused(
        api.patch(url + f"/members/{organizer.username}", {"role": "member"}, format="json"),
        409,
        "last_organizer",
    )
    refused(api.delete(url + f"/members/{organizer.username}"), 409, "last_organizer")
    refused(member_api.post(url + "/join", {"code": "NOPE"}, format="json"), 404, "invite_invalid")
    refused(
        api.post("/api/clubs", {"slug": club.slug, "name": "Again"}, format="json"),
        409,
        "slug_taken",
    )
    refused(
        member_api.post(url + "/hosted-players", {"level": "strong"}, format="json"),
        403,
        "organizer_only",
    )
    with override_settings(DEKABES_MAX_HOSTED_PLAYERS=0):
        refused(
            api.post(url + "/hosted-players", {"level": "strong"}, format="json"),
            409,
            "too_many_hosted_players",
        )
    season = ok(
        api.post(url + "/seasons", {"name": "S", "format": "individual"}, format="json"), 201
    )
    assert [e.verb for e in log.new()] == ["season.create"]
    rounds = url + f"/seasons/{season['id']}/rounds"
    refused(member_api.post(rounds), 403, "organizer_only")
    ok(api.post(rounds), 201)
    assert [e.verb for e in log.new()] == ["round.open"]
    refused(
        api.post(
            rounds + "/1/checkin", {"players": [organizer.username, "stranger"]}, format="json"
        ),
        403,
        "not_a_member",
    )
    ok(api.post(rounds + "/1/checkin", {"players": [organizer.username]}, format="json"))
    assert [e.verb for e in log.new()] == ["round.checkin"]
    refused(api.post(rounds + "/1/start"), 409, "not_enough_players")


def test_only_organizers_read_the_log_and_others_get_the_invites_answers():
    """Whoever may not read the invite codes gets the very same answer for the log."""
    organizer, member, outsider = new_member("org"), new_member("m"), new_member("out")
    for visibility in ("public", "members"):
        club, api = new_club(organizer, visibility=visibility)
        add_member(club, api, member)
        readers = {
            "anonymous": APIClient(),
            "outsider": client_for(outsider),
            "member": client_for(member),
            "another club's organizer": new_club(outsider)[1],
            "a bot": client_for(new_bot(member)),
        }
        for who, reader in readers.items():
            log = reader.get(f"/api/clubs/{club.slug}/log")
            invites = reader.get(f"/api/clubs/{club.slug}/invites")
            assert log.status_code in (401, 403, 404), (visibility, who)
            assert (log.status_code, log.json()) == (invites.status_code, invites.json()), who
        assert api.get(f"/api/clubs/{club.slug}/log").status_code == 200


def test_record_action_takes_only_the_listed_verbs():
    organizer = new_member("org")
    club, _ = new_club(organizer)
    with pytest.raises(ValueError, match="not in action_log.VERBS"):
        record_action(club=club, actor=organizer, verb="club.explode")


def test_every_verb_is_documented_and_written_by_an_action_unless_reserved():
    docs = (ROOT / "docs" / "league.md").read_text(encoding="utf-8")
    source = "".join(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "server" / "league" / "actions").glob("*.py"))
    )
    # member.close: written when a member closes their account (server/member_data)
    source += (ROOT / "server" / "accounts" / "data" / "services.py").read_text(encoding="utf-8")
    written = set(re.findall(r'verb="([a-z]+\.[a-z]+)"', source))
    written |= set(re.findall(r'"(member\.(?:promote|demote))"', source))
    for verb in VERBS:
        assert f"`{verb}`" in docs, verb
    assert written == set(VERBS) - NOT_YET_WRITTEN
