"""The organizer's pages (issue #21) in-process: each page and form through the league's
services, and the authorization matrix: anonymous, outsider, member, another club's
organizer, the organizer and a bot token, where every refusal changes nothing."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.test import Client
from django.utils import translation

from server.accounts import services as accounts
from server.accounts.models import AccessToken, User
from server.league.action_log import VERBS
from server.league.actions.clubs import do_create_club, do_post_announcement
from server.league.actions.members import do_create_invite, do_join_club, do_remove_member
from server.league.actions.rounds import do_create_round
from server.league.actions.seasons import do_close_season, do_create_season
from server.league.models import (
    Announcement,
    Availability,
    CheckIn,
    Club,
    ClubAction,
    Invite,
    LeagueMatch,
    Membership,
    Pair,
    Round,
    Season,
    StandingRow,
)
from server.league.selectors import invite_used_by
from server.web.selectors.action_log import VERB_TEXT
from tests.web.conftest import tiles_in
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


def body(response) -> str:
    return response.content.decode()


# -- clubs --------------------------------------------------------------------------------------
def test_create_a_club_with_a_derived_slug_then_edit_it():
    accounts.do_register(username="nora", password=PASSWORD)
    c = client("nora")
    assert c.get("/clubs/new").status_code == 200
    made = c.post(
        "/clubs/new",
        {"name": "Tuesday Dominoes!", "slug": "", "description": "x", "visibility": "members"},
    )
    assert made.status_code == 302 and made["Location"] == "/clubs/tuesday-dominoes/organize"
    club = Club.objects.get(slug="tuesday-dominoes")
    assert club.visibility == "members"
    assert Membership.objects.get(club=club).role == "organizer"
    again = c.post(
        "/clubs/new", {"name": "Other", "slug": "tuesday-dominoes", "visibility": "public"}
    )
    assert again.status_code == 400 and "This address is taken" in body(again)
    edit = c.post(
        "/clubs/tuesday-dominoes/edit",
        {"name": "Tuesdays", "description": "New", "visibility": "public"},
    )
    assert edit.status_code == 302
    club.refresh_from_db()
    assert (club.name, club.description, club.visibility) == ("Tuesdays", "New", "public")
    assert ClubAction.objects.filter(club=club, verb="club.edit").count() == 1


def test_the_signed_in_home_page_links_to_create_a_club(lg):
    assert 'href="/clubs/new"' in body(client("ana").get("/"))
    assert 'href="/clubs/new"' not in body(client(None).get("/"))


# -- members and invites ---------------------------------------------------------------------------
def test_members_page_promotes_demotes_and_removes_after_a_confirmation(lg):
    org = client(lg["organizer"])
    page = org.get("/clubs/riverside/members")
    assert page.status_code == 200
    assert 'data-member="house-1"' in body(page) and "house bot" in body(page)
    assert "revoke_invite" not in body(page)  # no box ticked by default any more
    assert org.post("/clubs/riverside/members/ben/role", {"role": "organizer"}).status_code == 302
    assert Membership.objects.get(club__slug="riverside", user__username="ben").role == "organizer"
    assert org.post("/clubs/riverside/members/ben/role", {"role": "member"}).status_code == 302
    club = Club.objects.get(slug="riverside")
    code = invite_used_by(club, "ben")
    assert code
    actions = ClubAction.objects.count()
    # The first click only asks, naming what happens; nothing changes.
    ask = org.post("/clubs/riverside/members/ben/remove", {})
    assert ask.status_code == 200 and "Remove ben from" in body(ask)
    assert "The invite codes others use stay valid." in body(ask)
    assert 'name="confirm" value="yes"' in body(ask)
    assert Membership.objects.get(club=club, user__username="ben").active
    assert ClubAction.objects.count() == actions
    done = org.post("/clubs/riverside/members/ben/remove", {"confirm": "yes"})
    assert done.status_code == 302
    assert not Membership.objects.get(club=club, user__username="ben").active
    # The shared code ben used stays valid for everyone else ...
    assert Invite.objects.get(code=code).revoked_at is None
    # ... but lets ben back no more: a clear refusal, not a 404 (API and page alike).
    rejoin = client("ben").post("/join", {"club": "riverside", "code": code})
    assert rejoin.status_code == 400 and "An organizer removed you" in body(rejoin)
    link = client("ben").get(f"/join/riverside/{code}")
    assert link.status_code == 403 and "An organizer removed you" in body(link)
    assert not Membership.objects.get(club=club, user__username="ben").active
    # The members page lists him as removed; allowed back, he joins again.
    assert 'class="inline allow-back"' in body(org.get("/clubs/riverside/members"))
    assert org.post("/clubs/riverside/members/ben/allow-back").status_code == 302
    assert client("ben").post("/join", {"club": "riverside", "code": code}).status_code == 302
    assert Membership.objects.get(club=club, user__username="ben").active
    # A member re-opening the link reads that they are a member.
    again = client("ben").get(f"/join/riverside/{code}")
    assert again.status_code == 200 and "You are a member of" in body(again)
    # The last organizer stays.
    last = org.post("/clubs/riverside/members/olga/role", {"role": "member"})
    assert last.status_code == 400


def test_removing_a_member_offers_to_revoke_only_their_own_single_use_code(lg):
    olga = User.objects.get(username="olga")
    club = Club.objects.get(slug="riverside")
    own = do_create_invite(user=olga, club=club, single_use=True)
    accounts.do_register(username="sami", password=PASSWORD)
    assert client("sami").post("/join", {"club": "riverside", "code": own.code}).status_code == 302
    org = client("olga")
    ask = body(org.post("/clubs/riverside/members/sami/remove", {}))
    assert f"Also revoke the single-use code they joined with ({own.code})" in ask
    assert "revoke_invite" not in body(org.post("/clubs/riverside/members/ben/remove", {}))
    org.post("/clubs/riverside/members/sami/remove", {"confirm": "yes", "revoke_invite": "on"})
    assert Invite.objects.get(pk=own.pk).revoked_at is not None
    # ben's code is shared: asking to revoke it with his removal changes nothing.
    shared = invite_used_by(club, "ben")
    org.post("/clubs/riverside/members/ben/remove", {"confirm": "yes", "revoke_invite": "on"})
    assert Invite.objects.get(code=shared).revoked_at is None


def test_invites_list_create_revoke_and_the_shareable_link(lg):
    org = client(lg["organizer"])
    assert org.post("/clubs/riverside/invites/new", {"single_use": "on"}).status_code == 302
    invite = Invite.objects.filter(club__slug="riverside").order_by("-id").first()
    page = body(org.get("/clubs/riverside/invites"))
    assert f"http://testserver/join/riverside/{invite.code}" in page
    # Anyone with the link registers and joins in one step.
    link = f"/join/riverside/{invite.code}"
    assert "Register and join" in body(client(None).get(link))
    done = client(None).post(
        link, {"action": "register", "username": "newbie", "password": PASSWORD}
    )
    assert done.status_code == 302 and done["Location"] == "/clubs/riverside/"
    assert Membership.objects.filter(club__slug="riverside", user__username="newbie").exists()
    # Single use: the code is spent, and the link says so and who to ask; an unknown
    # code or club is a 404 page saying there is no such invite.
    spent = client(None).get(link)
    unknown = client(None).get("/join/riverside/NOSUCHCODE")
    nowhere = client(None).get(f"/join/no-such-club/{invite.code}")
    assert spent.status_code == 410 and "no longer valid" in body(spent)
    assert "Ask olga, who made it" in body(spent)
    assert unknown.status_code == nowhere.status_code == 404
    assert "No such invite" in body(unknown) and "Riverside" not in body(nowhere)
    # An existing account signs in and joins.
    other = do_create_invite(user=User.objects.get(username="olga"), club=invite.club)
    joined = client(None).post(
        f"/join/riverside/{other.code}",
        {"action": "signin", "username": "zed", "password": PASSWORD},
    )
    assert joined.status_code == 302
    assert Membership.objects.filter(club__slug="riverside", user__username="zed").exists()
    # Revoked after a confirmation: the list says so and the link says it is no longer valid.
    ask = org.post(f"/clubs/riverside/invites/{other.code}/revoke")
    assert ask.status_code == 200 and "stops working" in body(ask)
    assert Invite.objects.get(pk=other.pk).revoked_at is None
    done = org.post(f"/clubs/riverside/invites/{other.code}/revoke", {"confirm": "yes"})
    assert done.status_code == 302
    assert Invite.objects.get(pk=other.pk).revoked_at is not None
    assert client(None).get(f"/join/riverside/{other.code}").status_code == 410
    assert "revoked" in body(org.get("/clubs/riverside/invites"))


def test_a_members_club_link_answers_as_an_unknown_club(lg):
    cellar = Club.objects.get(slug="cellar")
    code = do_create_invite(user=User.objects.get(username="olga"), club=cellar).code
    assert client(None).get(f"/join/cellar/{code}").status_code == 200
    wrong = client(None).get("/join/cellar/WRONGCODE")
    unknown = client(None).get("/join/nowhere/WRONGCODE")
    assert wrong.status_code == unknown.status_code == 404
    assert "The Cellar" not in body(wrong)


# -- computer players ---------------------------------------------------------------------------
def test_a_member_registers_a_bot_sees_its_token_once_rotates_revokes_and_enters_it(lg):
    ana = client("ana")
    made = ana.post("/bots/", {"name": "ana-bot"})
    assert made.status_code == 200
    key = re.search(r'class="token" readonly value="([^"]+)"', body(made)).group(1)
    bot = User.objects.get(username="ana-bot")
    assert bot.bot_owner.username == "ana" and accounts.token_owner(key)[0] == bot
    assert key not in body(ana.get("/bots/"))  # shown this once
    rotated = ana.post("/bots/ana-bot/token", {"action": "rotate"})
    new_key = re.search(r'class="token" readonly value="([^"]+)"', body(rotated)).group(1)
    assert accounts.token_owner(key) is None and accounts.token_owner(new_key)[0] == bot
    assert ana.post("/bots/ana-bot/token", {"action": "revoke"}).status_code == 302
    assert not AccessToken.objects.filter(user=bot).exists()
    assert ana.post("/bots/ana-bot/enter", {"club": "riverside"}).status_code == 302
    assert Membership.objects.get(club__slug="riverside", user=bot).active
    # Another member's bot is not theirs to touch.
    assert client("ben").post("/bots/ana-bot/token", {"action": "rotate"}).status_code == 404


def test_the_organizer_adds_a_hosted_player_at_a_level(lg):
    org = client(lg["organizer"])
    assert org.post("/clubs/riverside/organize/hosted", {"level": "expert"}).status_code == 302
    hosted = Membership.objects.get(club__slug="riverside", user__hosted_level="expert").user
    assert hosted.username == "riverside-expert-1"
    assert "riverside-expert-1" in body(org.get("/clubs/riverside/organize"))
    assert org.post("/clubs/riverside/organize/hosted", {"level": "godlike"}).status_code == 400


# -- seasons, availability, rounds ------------------------------------------------------------------
def test_seasons_edit_pairs_and_close(lg):
    org = client(lg["organizer"])
    olga = User.objects.get(username="olga")
    club = Club.objects.get(slug="riverside")
    pairs = do_create_season(user=olga, club=club, name="Duo", format="pairs")
    url = f"/clubs/riverside/seasons/{pairs.pk}/"
    assert org.get(url).status_code == 200
    assert (
        org.post(url, {"name": "Duo cup", "starts_on": "2026-01-01", "ends_on": "2026-03-01"})
    ).status_code == 302
    pairs.refresh_from_db()
    assert pairs.name == "Duo cup" and str(pairs.ends_on) == "2026-03-01"
    bad = org.post(url, {"name": "X", "starts_on": "2026-03-01", "ends_on": "2026-01-01"})
    assert bad.status_code == 400
    assert (
        org.post(url + "pairs", {"name": "", "player_1": "ana", "player_2": "ben"}).status_code
        == 302
    )
    again = org.post(url + "pairs", {"name": "", "player_1": "ana", "player_2": "carl"})
    assert again.status_code == 400 and "in a pair of this season already" in body(again)
    assert Pair.objects.filter(season=pairs).count() == 1
    opened = do_create_round(user=User.objects.get(username="olga"), season=pairs)
    ask = org.post(url + "close")
    assert ask.status_code == 200 and "Close the season Duo cup?" in body(ask)
    assert f"Round {opened.number}, open and never started, is deleted." in body(ask)
    pairs.refresh_from_db()
    assert pairs.closed_at is None
    assert org.post(url + "close", {"confirm": "yes"}).status_code == 302
    pairs.refresh_from_db()
    assert pairs.closed_at is not None
    # A closed season shows no open round, and no Start.
    assert not Round.objects.filter(season=pairs).exists()
    assert "new-round" not in body(org.get(url))
    # Closed: browsable, and refuses a new round.
    assert client("ana").get(f"/clubs/riverside/standings?season={pairs.pk}").status_code == 200
    closed = org.post(f"/clubs/riverside/seasons/{pairs.pk}/rounds")
    assert closed.status_code == 400 and "This season is closed." in body(closed)
    assert Round.objects.filter(season=pairs).count() == 0
    # A season with a round being played is not closed.
    live = Season.objects.get(pk=lg["season"])
    refused = org.post(f"/clubs/riverside/seasons/{live.pk}/close", {"confirm": "yes"})
    assert refused.status_code == 400
    live.refresh_from_db()
    assert live.closed_at is None


def test_the_club_page_shows_the_open_season(lg):
    olga = User.objects.get(username="olga")
    club = Club.objects.get(slug="riverside")
    newer = do_create_season(user=olga, club=club, name="Winter", format="individual")
    do_close_season(user=olga, season=newer)
    page = body(client("ana").get("/clubs/riverside/"))
    assert (
        "Autumn" in page and "Winter" not in page.split("Current season")[1].split("</section>")[0]
    )


def test_members_mark_themselves_available_and_the_organizer_checks_them_in(lg):
    olga = User.objects.get(username="olga")
    club = Club.objects.get(slug="riverside")
    season = do_create_season(user=olga, club=club, name="Spring", format="individual")
    form = body(client("ana").get("/clubs/riverside/"))
    assert f"/clubs/riverside/seasons/{season.pk}/availability" in form
    for name in ("ana", "ben", "carl"):
        assert (
            client(name)
            .post(f"/clubs/riverside/seasons/{season.pk}/availability", {"available": "yes"})
            .status_code
            == 302
        )
    client("carl").post(f"/clubs/riverside/seasons/{season.pk}/availability", {"available": "no"})
    assert 'data-available="no"' in body(client("carl").get("/clubs/riverside/"))
    # A member cannot mark another; the organizer can (an override, in the log).
    denied = client("ana").post(
        f"/clubs/riverside/seasons/{season.pk}/availability", {"available": "no", "player": "ben"}
    )
    assert denied.status_code == 403
    assert Availability.objects.get(season=season, player__username="ben").available
    org = client(lg["organizer"])
    for name in ("olga", "house-1"):
        org.post(
            f"/clubs/riverside/seasons/{season.pk}/availability",
            {"available": "yes", "player": name},
        )
    assert ClubAction.objects.filter(club=club, verb="availability.override").count() == 1
    round_ = do_create_round(user=olga, season=season)
    page = f"/clubs/riverside/seasons/{season.pk}/rounds/{round_.number}"
    shown = body(org.get(page))
    assert 'data-member="carl" data-available="no"' in shown and "everyone available (4)" in shown
    assert org.post(page + "/checkin-available").status_code == 302
    present = set(CheckIn.objects.filter(round=round_).values_list("player__username", flat=True))
    assert present == {"ana", "ben", "olga", "house-1"}
    ask = org.post(page, {"action": "start"})
    assert ask.status_code == 200 and "4 players are checked in." in body(ask)
    assert Round.objects.get(pk=round_.pk).status == "open"
    assert org.post(page, {"action": "start", "confirm": "yes"}).status_code == 302
    assert Round.objects.get(pk=round_.pk).status == "started"
    # The started round's organizer part links each table to the annul confirmation.
    started = body(org.get(page))
    match = LeagueMatch.objects.get(round=round_)
    assert f'href="/matches/{match.pk}/annul"' in started


def test_annulling_asks_for_a_confirmation_with_the_reason(lg):
    org = client(lg["organizer"])
    match = lg["playing"][0]
    confirm = org.get(f"/matches/{match}/annul")
    assert confirm.status_code == 200 and 'name="reason"' in body(confirm)
    assert not tiles_in(body(confirm))
    assert LeagueMatch.objects.get(pk=match).status == "playing"
    assert client("ana").get(f"/matches/{match}/annul").status_code == 403
    # The confirmation page's own form carries the confirmation.
    assert 'name="confirm" value="yes"' in body(confirm)
    # Posted without it (the match page's form), the reason comes back to be confirmed.
    ask = org.post(f"/matches/{match}/annul", {"reason": "power cut"})
    assert ask.status_code == 200 and "power cut" in body(ask)
    assert LeagueMatch.objects.get(pk=match).status == "playing"
    done = org.post(f"/matches/{match}/annul", {"reason": "power cut", "confirm": "yes"})
    assert done.status_code == 302
    assert LeagueMatch.objects.get(pk=match).annul_reason == "power cut"


def test_a_finished_round_has_no_stuck_tables_card(lg):
    org = client(lg["organizer"])
    r = f"/clubs/riverside/seasons/{lg['season']}/rounds"
    assert Round.objects.get(season_id=lg["season"], number=1).status == "finished"
    assert "Stuck tables" not in body(org.get(f"{r}/1"))
    live = body(org.get(f"{r}/{lg['live_round']}"))
    assert "Stuck tables" in live and f"/matches/{lg['playing'][0]}/annul" in live


def test_a_refused_check_in_of_everyone_is_the_round_page_with_its_sentence(lg):
    """A stale tab's "Check in everyone available" after the round started: not a bare
    403 page, the round page again with why; nothing checked in."""
    org = client(lg["organizer"])
    page = f"/clubs/riverside/seasons/{lg['season']}/rounds/{lg['live_round']}"
    checkins = CheckIn.objects.count()
    refused = org.post(page + "/checkin-available")
    html = body(refused)
    assert refused.status_code in (400, 409) and 'role="alert"' in html
    assert 'class="card round-organizer"' in html and "Stuck tables" in html
    assert CheckIn.objects.count() == checkins


def test_the_season_page_says_how_the_season_is_played(lg):
    org = client(lg["organizer"])
    plain = body(org.get(f"/clubs/riverside/seasons/{lg['season']}/"))
    assert "Individual (partners rotate)" in plain
    assert "Not duplicate: each table plays its own deals" in plain
    assert "Off: substitutes are chosen by hand" in plain
    club = Club.objects.get(slug="riverside")
    olga = User.objects.get(username="olga")
    duo = do_create_season(
        user=olga, club=club, name="Duo", format="pairs", duplicate=True, auto_substitute_after=10
    )
    html = body(org.get(f"/clubs/riverside/seasons/{duo.pk}/"))
    assert "Fixed pairs" in html
    assert "Duplicate rounds: every table of a round plays the same deals" in html
    assert "a seat away 10 minutes goes to a computer player" in html


def test_announcements_on_the_club_page(lg):
    org = client(lg["organizer"])
    assert (
        org.post(
            "/clubs/riverside/organize/announcements", {"text": "<b>Pizza</b> at 8"}
        ).status_code
        == 302
    )
    page = body(client(None).get("/clubs/riverside/"))
    assert "&lt;b&gt;Pizza&lt;/b&gt; at 8" in page and "<b>Pizza" not in page
    note = Announcement.objects.get()
    remove = f"/clubs/riverside/organize/announcements/{note.pk}/remove"
    assert remove in body(org.get("/clubs/riverside/organize"))
    # The first click only asks, quoting the announcement; nothing changes.
    actions = ClubAction.objects.count()
    ask = org.post(remove)
    assert ask.status_code == 200 and "Remove this announcement?" in body(ask)
    assert "&lt;b&gt;Pizza&lt;/b&gt; at 8" in body(ask)
    assert 'name="confirm" value="yes"' in body(ask)
    assert Announcement.objects.get().removed_at is None
    assert ClubAction.objects.count() == actions
    assert "Pizza" in body(client(None).get("/clubs/riverside/"))
    assert org.post(remove, {"confirm": "yes"}).status_code == 302
    assert "Pizza" not in body(client(None).get("/clubs/riverside/"))
    # Removed, it is asked about no more: the 404 of an unknown announcement.
    assert org.post(remove).status_code == 404


def _member_row(html: str, name: str) -> str:
    found = re.search(rf'<tr data-member="{name}">.*?</tr>', html, re.S)
    assert found is not None, name
    return found.group(0)


def test_the_members_page_does_not_offer_to_demote_the_only_organizer(lg):
    """The server always refuses to leave a club without an organizer: the page asks the
    same rule (selectors.sole_organizer) and offers no "Make member" to the only one."""
    org = client(lg["organizer"])
    page = body(org.get("/clubs/riverside/members"))
    olga = _member_row(page, "olga")
    assert "/members/olga/role" not in olga and "Make me a member" not in olga
    assert "only organizer" in olga
    assert "/members/ben/role" in _member_row(page, "ben")  # "Make organizer" for the others
    # The rule itself stays the server's: posted anyway, it is refused.
    assert org.post("/clubs/riverside/members/olga/role", {"role": "member"}).status_code == 400
    # With a second organizer, each may be made a member again.
    org.post("/clubs/riverside/members/ben/role", {"role": "organizer"})
    page = body(org.get("/clubs/riverside/members"))
    assert "/members/olga/role" in _member_row(page, "olga")
    assert "/members/ben/role" in _member_row(page, "ben")
    assert "only organizer" not in page


def test_an_organizer_making_themself_a_member_is_asked_first(lg):
    org = client(lg["organizer"])
    org.post("/clubs/riverside/members/ben/role", {"role": "organizer"})
    page = body(org.get("/clubs/riverside/members"))
    assert "Make me a member…" in page
    ask = org.post("/clubs/riverside/members/olga/role", {"role": "member"})
    assert ask.status_code == 200 and "Stop organizing" in body(ask)
    assert 'name="confirm" value="yes"' in body(ask) and 'value="member"' in body(ask)
    assert Membership.objects.get(club__slug="riverside", user__username="olga").role == "organizer"
    done = org.post("/clubs/riverside/members/olga/role", {"role": "member", "confirm": "yes"})
    assert done.status_code == 302
    assert Membership.objects.get(club__slug="riverside", user__username="olga").role == "member"
    # Demoting another organizer is undone by promoting them again: no question.
    back = client("ben").post("/clubs/riverside/members/olga/role", {"role": "organizer"})
    assert back.status_code == 302
    assert (
        client("ben").post("/clubs/riverside/members/olga/role", {"role": "member"}).status_code
        == 302
    )


# -- the log and the exports ------------------------------------------------------------------------
def test_every_verb_has_a_translated_sentence_on_the_log_page(lg):
    assert set(VERB_TEXT) == set(VERBS)
    for language in ("es", "ru", "ms"):
        for verb, text in VERB_TEXT.items():
            with translation.override("en"):
                english = str(text)
            with translation.override(language):
                assert str(text) != english, (language, verb)
    olga, club = User.objects.get(username="olga"), Club.objects.get(slug="riverside")
    for n in range(40):
        do_post_announcement(user=olga, club=club, text=f"note {n}")
    org = client(lg["organizer"])
    page = org.get("/clubs/riverside/log")
    assert page.status_code == 200
    assert 'data-verb="announcement.post"' in body(page) and "posted an announcement" in body(page)
    older = body(org.get("/clubs/riverside/log?page=2"))
    assert 'data-verb="club.create"' in older and "created the club" in older
    with translation.override("es"):
        spanish = body(org.get("/clubs/riverside/log?page=2", HTTP_ACCEPT_LANGUAGE="es"))
    assert "creó el club" in spanish
    count = ClubAction.objects.filter(club__slug="riverside").count()
    assert count > 50  # two pages
    assert 'href="?page=2"' in body(page)
    assert org.get("/clubs/riverside/log?page=2").status_code == 200


def _page_rows(html: str) -> list[list[str]]:
    table = html[html.index('class="data standings"') : html.index("</table>")]
    rows = []
    for tr in re.findall(r"<tr data-entrant=.*?</tr>", table, re.S):
        cells = [
            re.sub(r"<[^>]+>|\s+", " ", td).strip() for td in re.findall(r"<td.*?</td>", tr, re.S)
        ]
        rows.append(cells)
    return rows


# The standings CSV's first columns: the standings page's (Duplicate aside), by position.
PAGE_COLUMNS = [
    "position",
    "name",
    "played",
    "wins",
    "byes",
    "hands_won",
    "hands_lost",
    "points",
    "dekabes",
    "ties",
    "forfeits",
]


def test_the_standings_csv_rows_equal_the_standings_page(lg):
    season = lg["season"]
    page = body(client(None).get(f"/clubs/riverside/standings?season={season}"))
    response = client(None).get(f"/clubs/riverside/standings.csv?season={season}")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    header, data = rows[0], rows[1:]
    assert header[:2] == ["position", "name"]
    shown = _page_rows(page)
    assert len(shown) == len(data) > 0
    # The page's columns by position, then bot, the players, and the duplicate score last
    # (added last: a sheet reading the columns by position keeps working).
    assert header == [*PAGE_COLUMNS, "bot", "player_1", "player_2", "duplicate"]
    for cells, row in zip(shown, data, strict=True):
        name = cells[1].replace(" bot", "").strip()
        assert [cells[0], name, *cells[2:]] == row[: len(PAGE_COLUMNS)]
        assert row[-4] == ("yes" if "bot" in cells[1] else "no")
        assert row[-3] == name and row[-2] == ""  # an individual season: the player alone
        assert row[-1] == ""  # not a duplicate season: no duplicate score
    # A members club's export is the 404 of an unknown club.
    assert client(None).get("/clubs/cellar/standings.csv").status_code == 404
    ratings = client(None).get("/clubs/riverside/ratings.csv").content.decode().splitlines()
    assert ratings[0] == "rank,name,bot,ordinal,mu,sigma,matches" and len(ratings) > 1


def test_a_duplicate_season_s_standings_csv_ends_with_the_page_s_duplicate_column(lg):
    club = Club.objects.get(slug="riverside")
    olga = User.objects.get(username="olga")
    season = do_create_season(
        user=olga, club=club, name="Same deals", format="individual", duplicate=True
    )
    for position, (name, score) in enumerate(
        [("ana", 12.345), ("ben", None), ("carl", -12.345)], start=1
    ):
        StandingRow.objects.create(
            season=season,
            position=position,
            player=User.objects.get(username=name),
            duplicate=score,
        )
    page = body(client(None).get(f"/clubs/riverside/standings?season={season.pk}"))
    text = client(None).get(f"/clubs/riverside/standings.csv?season={season.pk}").content.decode()
    header, *data = list(csv.reader(io.StringIO(text)))
    assert header[: len(PAGE_COLUMNS)] == PAGE_COLUMNS and header[-1] == "duplicate"
    shown = _page_rows(page)
    assert (
        [cells[-1] for cells in shown] == [row[-1] for row in data] == ["12.35", "0.00", "-12.35"]
    )
    for cells, row in zip(shown, data, strict=True):  # the page's other columns, in place
        assert cells[2:-1] == row[2 : len(PAGE_COLUMNS)]


def test_the_season_records_download_has_the_finished_matches_only(lg):
    response = client(None).get(f"/clubs/riverside/seasons/{lg['season']}/records.ndjson")
    text = b"".join(response.streaming_content).decode()
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["match"] for line in lines] == sorted(lg["finished"])
    assert not set(lg["playing"]) & {line["match"] for line in lines}
    first = LeagueMatch.objects.get(pk=lines[0]["match"])
    expected = client(None).get(f"/matches/{first.pk}/record").content.decode()
    assert lines[0]["events"] == [json.loads(x) for x in expected.splitlines() if x.strip()]


# -- the authorization matrix --------------------------------------------------------------------
def _snapshot():
    """Everything an organizer form could change."""
    return (
        list(Club.objects.order_by("id").values_list("slug", "name", "visibility")),
        list(Membership.objects.order_by("id").values_list("role", "active", "barred")),
        list(Invite.objects.order_by("id").values_list("code", "revoked_at", "uses")),
        list(Season.objects.order_by("id").values_list("name", "closed_at", "ends_on")),
        list(Round.objects.order_by("id").values_list("status")),
        list(CheckIn.objects.order_by("id").values_list("round_id", "player_id")),
        list(Pair.objects.order_by("id").values_list("name")),
        list(Availability.objects.order_by("id").values_list("player_id", "available")),
        list(Announcement.objects.order_by("id").values_list("text", "removed_at")),
        list(LeagueMatch.objects.order_by("id").values_list("status")),
        ClubAction.objects.count(),
        User.objects.count(),
        AccessToken.objects.count(),
    )


def test_every_organizer_page_and_form_refuses_everyone_but_the_organizer(lg):
    olga = User.objects.get(username="olga")
    club = Club.objects.get(slug="riverside")
    # Another club's organizer, and a bot with a token.
    accounts.do_register(username="otto", password=PASSWORD)
    do_create_club(user=User.objects.get(username="otto"), slug="elsewhere", name="E")
    bot_key = accounts.do_register_bot(owner=User.objects.get(username="ana"), name="ana-b").key
    pairs = do_create_season(user=olga, club=club, name="Duo", format="pairs")
    open_round = do_create_round(user=olga, season=pairs)
    code = do_create_invite(user=olga, club=club).code
    note = do_post_announcement(user=olga, club=club, text="hello")
    accounts.do_register(username="gone", password=PASSWORD)
    do_join_club(user=User.objects.get(username="gone"), club=club, code=code)
    do_remove_member(user=olga, club=club, username="gone")  # on the removed list
    season = lg["season"]
    playing = lg["playing"][0]
    r = "/clubs/riverside"
    pages = [
        f"{r}/edit",
        f"{r}/members",
        f"{r}/invites",
        f"{r}/log",
        f"{r}/organize",
        f"{r}/seasons/{pairs.pk}/",
        f"/matches/{playing}/annul",
    ]
    # The round page is the club's to read (public club): its organizer controls are not.
    round_page = f"{r}/seasons/{pairs.pk}/rounds/{open_round.number}"
    forms = [
        (f"{r}/edit", {"name": "Hacked", "visibility": "members"}),
        (f"{r}/members/ben/role", {"role": "organizer"}),
        (f"{r}/members/ben/remove", {"revoke_invite": "on"}),
        (f"{r}/members/ben/remove", {"revoke_invite": "on", "confirm": "yes"}),
        (f"{r}/members/gone/allow-back", {}),
        (f"{r}/invites/new", {"single_use": "on"}),
        (f"{r}/invites/{code}/revoke", {}),
        (f"{r}/invites/{code}/revoke", {"confirm": "yes"}),
        (f"{r}/organize/hosted", {"level": "random"}),
        (f"{r}/organize/announcements", {"text": "spam"}),
        (f"{r}/organize/announcements/{note.pk}/remove", {}),
        (f"{r}/organize/announcements/{note.pk}/remove", {"confirm": "yes"}),
        (f"{r}/members/olga/role", {"role": "member"}),
        (f"{r}/members/olga/role", {"role": "member", "confirm": "yes"}),
        (f"{r}/seasons/{pairs.pk}/", {"name": "Hacked"}),
        (f"{r}/seasons/{pairs.pk}/pairs", {"player_1": "ana", "player_2": "ben"}),
        (f"{r}/seasons/{pairs.pk}/close", {}),
        (f"{r}/seasons/{season}/rounds", {}),
        (f"{r}/seasons/{pairs.pk}/rounds/{open_round.number}/checkin-available", {}),
        (f"{r}/seasons/{pairs.pk}/rounds/{open_round.number}", {"action": "start"}),
        (f"{r}/seasons/{pairs.pk}/availability", {"available": "no", "player": "ben"}),
        (f"/matches/{playing}/annul", {"reason": "because"}),
        # The second steps (issue #33): each refused alike, with or without the confirmation.
        (f"/matches/{playing}/annul", {"reason": "because", "confirm": "yes"}),
        (f"{r}/seasons/{pairs.pk}/close", {"confirm": "yes"}),
        (
            f"{r}/seasons/{pairs.pk}/rounds/{open_round.number}",
            {"action": "start", "confirm": "yes"},
        ),
        (f"{r}/seasons/{pairs.pk}/rounds/{open_round.number}/delete", {}),
        (f"{r}/seasons/{pairs.pk}/rounds/{open_round.number}/delete", {"confirm": "yes"}),
        (f"/matches/{playing}/forfeit", {"seat": 1, "reason": "gone"}),
        (f"/matches/{playing}/forfeit", {"seat": 1, "reason": "gone", "confirm": "yes"}),
    ]

    def bot_client():
        c = Client(HTTP_AUTHORIZATION=f"Token {bot_key}")
        return c

    callers = {
        "anonymous": (client(None), (302,)),
        "outsider": (client("zed"), (403, 404)),
        "member": (client("carl"), (403,)),
        "another club's organizer": (client("otto"), (403, 404)),
        "bot token": (bot_client(), (302,)),
    }
    before = _snapshot()
    for who, (c, _statuses) in callers.items():
        page = c.get(round_page)
        assert page.status_code == 200, (who, round_page)
        assert b"round-organizer" not in page.content, (who, "organizer controls shown")
    assert b"round-organizer" in client("olga").get(round_page).content
    for who, (c, statuses) in callers.items():
        for path in pages:
            got = c.get(path).status_code
            assert got in statuses, (who, "GET", path, got)
        for path, data in forms:
            got = c.post(path, data).status_code
            assert got in statuses, (who, "POST", path, got)
            assert _snapshot() == before, (who, path)
    # The members club: outsiders get the 404 of an unknown club on every organizer page.
    for path in ("/clubs/cellar/members", "/clubs/cellar/invites", "/clubs/cellar/log"):
        assert client("zed").get(path).status_code == 404
        assert client("zed").get(path.replace("cellar", "nowhere")).status_code == 404
    # The organizer may do each (pages answer, forms redirect or re-render).
    org = client(lg["organizer"])
    for path in pages:
        assert org.get(path).status_code == 200, path
    # The bots page is for people: a member's only, never another's.
    assert client(None).get("/bots/").status_code == 302
    assert client("zed").get("/bots/").status_code == 200
