"""Members hear about their round (issue #33, point 9): mail queued in the transaction of
its event, sent by the queue to a real SMTP server (aiosmtpd in this process), in the
member's language, with links that work, an unsubscribe that works and changes the
preference, and requests that never wait for the mail server nor fail with it."""

from __future__ import annotations

import datetime as dt
import json
import logging
import random
import re
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import resolve
from django.utils import timezone
from rest_framework.test import APIClient

from server.accounts import services as accounts
from server.accounts.models import User
from server.errors import OrganizerOnly
from server.league.actions import clubs
from server.league.models import Announcement, LeagueMatch, Season
from server.league.tick import tick
from server.mail import queue
from server.mail.compose import compose
from server.mail.kinds import ANNOUNCEMENT, DEADLINE, INVITE, SEAT_CHANGES, TABLE_READY
from server.mail.models import InviteOptOut, MailPreference, OutboxMail
from server.mail.receivers import HANDLERS
from server.mail.selectors import preference_of
from server.tables import projection
from server.tables.models import Seat
from tests.conftest import free_port
from tests.league.conftest import play_out
from tests.league.test_league_api import League
from tests.mail.conftest import body_of
from tests.server.conftest import PASSWORD, client_for, new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]

SITE = "http://club.example"
TILE = re.compile(r"\b\d[-|]\d\b")  # a domino as the records and the views write it


def address(user) -> str:
    return f"{user.username}@example.org"


def body_of_message(message) -> str:
    return message.body


def with_addresses(users, languages=()) -> None:
    """Give each user an address (and the n-th the n-th language)."""
    for number, user in enumerate(users):
        user.email = address(user)
        user.save(update_fields=["email"])
        if number < len(languages):
            MailPreference.objects.update_or_create(
                user=user, defaults={"language": languages[number]}
            )


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def path_of(url: str) -> str:
    assert url.startswith(SITE + "/"), url
    return urlsplit(url).path


def unsubscribe_of(message) -> str:
    """The URL of the List-Unsubscribe header (a long one is folded over two lines)."""
    found = re.search(r"<([^>]+)>", str(message["List-Unsubscribe"]))
    assert found, message["List-Unsubscribe"]
    return found.group(1)


def links_in(text: str) -> list[str]:
    return re.findall(r"https?://\S+", text)


def announce(user, club, text: str) -> None:
    clubs.do_post_announcement(user=user, club=club, text=text)


def the_match(league, number=1) -> LeagueMatch:
    return LeagueMatch.objects.filter(season_id=league.season, round__number=number).get()


# -- your table is ready ------------------------------------------------------------------------
def test_table_ready_in_each_members_language_with_links_that_work(smtp):
    league = League(members=4)
    with_addresses(league.members, languages=("es", "ru", "ms"))  # the fourth: English
    league.start_round()
    match = the_match(league)
    assert OutboxMail.objects.filter(kind=TABLE_READY, status="pending").count() == 4
    assert smtp.inbox.messages == []  # nothing went out inside the request

    done = queue.drain()
    assert (done.sent, done.failed) == (4, 0)
    smtp.inbox.wait_for(4)
    expected_subjects = {
        "es": "tu mesa está lista",
        "ru": "ваш стол готов",
        "ms": "meja anda sudah sedia",
        "en": "your table is ready",
    }
    seats = {s.player_id: s.number for s in Seat.objects.filter(table=match.table)}
    state = projection.project(match.table)
    for user, language in zip(league.members, ("es", "ru", "ms", "en"), strict=True):
        [message] = smtp.inbox.to(address(user))
        assert expected_subjects[language] in message["Subject"]
        assert message["Content-Language"] == language
        text = body_of(message)
        assert league.club.name in message["Subject"] and user.username in text
        # the player's own seat and table, and never a tile of any hand
        assert f"{seats[user.pk]}" in text
        assert not TILE.search(text), text
        for seat in (1, 2, 3, 4):
            for tile in state.match.hand_of(seat) or ():
                assert str(tile) not in text.split("http")[0]
        # the Play link is the browser table of this very table
        urls = links_in(text)
        play = next(u for u in urls if match.table.code in u)
        assert resolve(path_of(play)).url_name == "table_play"
        assert signed_in(user).get(path_of(play)).status_code == 200  # the seat holder's
        # the round page opens for the member
        round_url = next(u for u in urls if "/rounds/" in u)
        assert signed_in(user).get(path_of(round_url)).status_code == 200
        # one-click unsubscribe (RFC 8058) headers name the link of the text
        unsubscribe = unsubscribe_of(message)
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert unsubscribe in urls
    assert set(OutboxMail.objects.values_list("status", flat=True)) == {"sent"}
    assert queue.drain().sent == 0  # sent once


def test_members_without_an_address_or_bots_are_never_queued_and_the_organizer_sees_them():
    league = League(members=4)
    with_addresses(league.members[:2])
    league.start_round()
    queued = set(OutboxMail.objects.values_list("user_id", flat=True))
    assert queued == {u.pk for u in league.members[:2]}
    page = signed_in(league.organizer).get(f"/clubs/{league.club.slug}/members")
    assert page.status_code == 200
    section = page.content.decode().split('class="card no-address"')[1]
    for user in league.members[2:]:
        assert user.username in section
    for user in league.members[:2]:
        assert user.username not in section


# -- unsubscribe ---------------------------------------------------------------------------------
def test_unsubscribe_link_one_click_changes_the_preference_and_stops_that_kind(smtp):
    league = League(members=4)
    with_addresses(league.members)
    reader = league.members[0]
    league.start_round()
    queue.drain()
    smtp.inbox.wait_for(4)
    [message] = smtp.inbox.to(address(reader))
    link = path_of(unsubscribe_of(message))

    browser = Client(enforce_csrf_checks=True)  # a mail program: no cookie, no CSRF token
    page = browser.get(link)
    assert page.status_code == 200 and reader.username in page.content.decode()
    assert preference_of(reader).table_ready  # a GET changes nothing
    answer = browser.post(
        link, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 200
    preference = MailPreference.objects.get(user=reader)
    assert not preference.table_ready
    assert preference.announcement and preference.deadline and preference.seat_changes

    # the next round queues nothing of that kind for them, the others still get theirs
    league.play_round(1)
    OutboxMail.objects.all().delete()
    league.start_round()
    assert not OutboxMail.objects.filter(user=reader).exists()
    assert OutboxMail.objects.filter(kind=TABLE_READY).count() == 3
    # the announcement kind is still on
    announce(league.organizer, league.club, "Bring snacks")
    assert OutboxMail.objects.filter(user=reader, kind=ANNOUNCEMENT).exists()

    # undo, from the same page
    assert browser.post(link, {"subscribe": "1"}).status_code == 200
    assert MailPreference.objects.get(user=reader).table_ready
    # a forged or altered token is nobody's
    assert browser.get(link[:-3] + "abc").status_code == 404
    assert browser.post(link[:-3] + "abc").status_code == 404


def test_a_kind_turned_off_after_queueing_is_dropped_not_sent(smtp):
    league = League(members=4)
    with_addresses(league.members)
    league.start_round()
    late = league.members[1]
    MailPreference.objects.update_or_create(user=late, defaults={"table_ready": False})
    done = queue.drain()
    assert (done.sent, done.dropped) == (3, 1)
    smtp.inbox.wait_for(3)
    assert smtp.inbox.to(address(late)) == []


# -- substitutes and forfeits -------------------------------------------------------------------
def test_substituted_and_forfeited_members_hear_it_and_the_substitute_hears_their_table(smtp):
    league = League(members=5)  # four seated, one bye
    with_addresses(league.members)
    league.start_round()
    match = the_match(league)
    seated = {s.player_id: s.number for s in Seat.objects.filter(table=match.table)}
    bye = next(u for u in league.members if u.pk not in seated)
    replaced = next(u for u in league.members if seated.get(u.pk) == 2)
    queue.drain()
    smtp.inbox.wait_for(4)
    answer = league.org_api.post(
        f"/api/matches/{match.pk}/substitute",
        {"seat": 2, "by": {"username": bye.username}, "reason": "stuck on a train"},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    assert queue.drain().sent == 2
    smtp.inbox.wait_for(6)
    [gone] = [m for m in smtp.inbox.to(address(replaced)) if "handed over" in m["Subject"]]
    text = body_of(gone)
    assert bye.username in text
    assert "stuck on a train" in text
    assert match.table.code not in text  # no link to a table they no longer hold
    [seated_now] = smtp.inbox.to(address(bye))
    assert "substitute" in seated_now["Subject"]
    assert match.table.code in body_of(seated_now)

    past = (timezone.now() - dt.timedelta(minutes=1)).isoformat()
    league.org_api.patch(league.season_url("/rounds/1"), {"deadline": past}, format="json")
    answer = league.org_api.post(
        f"/api/matches/{match.pk}/forfeit", {"seat": 1, "reason": "never came"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    # the four drawn players and the substitute now holding seat 2
    assert OutboxMail.objects.filter(kind=SEAT_CHANGES, data__what="forfeited").count() == 5
    queue.drain()
    smtp.inbox.wait_for(11)
    losing = {u for u in league.members if seated.get(u.pk) in (1, 3)}
    for user in league.members:
        forfeits = [m for m in smtp.inbox.to(address(user)) if "forfeited" in m["Subject"]]
        assert len(forfeits) == 1, user.username
        text = body_of(forfeits[0])
        assert "never came" in text
        assert ("against your team" in text) == (user in losing)


# -- time passing: the deadline reminder ----------------------------------------------------------
def test_deadline_reminder_comes_from_the_tick_once_never_from_a_read(smtp, settings):
    settings.DEKABES_MAIL_DEADLINE_HOURS = 24
    league = League(members=4)
    with_addresses(league.members, languages=("ru",))
    league.start_round()
    queue.drain()
    smtp.inbox.wait_for(4)
    deadline = timezone.now() + dt.timedelta(hours=30)
    league.org_api.patch(
        league.season_url("/rounds/1"), {"deadline": deadline.isoformat()}, format="json"
    )
    tick(timezone.now())
    assert not OutboxMail.objects.filter(kind=DEADLINE).exists()  # 30 h away: not yet
    # reading the round page (a GET) queues nothing, even when the reminder is due
    later = deadline - dt.timedelta(hours=5)
    member = signed_in(league.members[0])
    assert (
        member.get(f"/clubs/{league.club.slug}/seasons/{league.season}/rounds/1").status_code == 200
    )
    assert not OutboxMail.objects.filter(kind=DEADLINE).exists()
    done = tick(later)
    assert any("deadline reminder" in line for line in done.lines())
    assert OutboxMail.objects.filter(kind=DEADLINE).count() == 4
    tick(later + dt.timedelta(minutes=1))  # the next tick: no second reminder
    assert OutboxMail.objects.filter(kind=DEADLINE).count() == 4
    assert queue.drain(now=later).sent == 4
    smtp.inbox.wait_for(8)
    [reminder] = [
        m for m in smtp.inbox.to(address(league.members[0])) if "заканчивается" in m["Subject"]
    ]
    text = body_of(reminder)
    assert "5 часов" in text  # Russian plural of 5 hours
    assert "UTC" in text
    # a finished match gets no reminder: play it out, move the deadline, tick again
    play_out(the_match(league).table, random.Random(3))
    moved = deadline + dt.timedelta(hours=2)
    league.org_api.patch(
        league.season_url("/rounds/1"), {"deadline": moved.isoformat()}, format="json"
    )
    tick(moved - dt.timedelta(hours=3))
    assert OutboxMail.objects.filter(kind=DEADLINE).count() == 4


# -- announcements, through the organizer's web page ---------------------------------------------
def test_announcement_from_the_web_page_reaches_the_members_with_the_club_link(smtp):
    league = League(members=3)
    with_addresses([league.organizer, *league.members], languages=("en", "es"))
    organizer = signed_in(league.organizer)
    answer = organizer.post(
        f"/clubs/{league.club.slug}/organize/announcements", {"text": "Round 2 on Friday at 8"}
    )
    assert answer.status_code == 302
    note = Announcement.objects.get(club=league.club)
    assert OutboxMail.objects.filter(kind=ANNOUNCEMENT).count() == 3  # not the author
    queue.drain()
    smtp.inbox.wait_for(3)
    assert smtp.inbox.to(address(league.organizer)) == []
    [spanish] = smtp.inbox.to(address(league.members[0]))
    assert "un anuncio nuevo" in spanish["Subject"]
    text = body_of(spanish)
    assert note.text in text and league.organizer.username in text
    club_url = next(u for u in links_in(text) if u.rstrip("/").endswith(league.club.slug))
    assert signed_in(league.members[0]).get(path_of(club_url)).status_code == 200


def test_a_failing_receiver_never_fails_the_action(monkeypatch):
    league = League(members=2)
    with_addresses(league.members)

    def broken(action):
        raise RuntimeError("boom")

    monkeypatch.setitem(HANDLERS, "announcement.post", broken)
    announce(league.organizer, league.club, "Hello")
    assert Announcement.objects.filter(club=league.club).exists()
    assert not OutboxMail.objects.exists()


def test_a_refused_action_queues_nothing():
    league = League(members=2)
    with_addresses(league.members)
    with pytest.raises(OrganizerOnly):
        announce(league.members[0], league.club, "Hi")
    assert not OutboxMail.objects.exists()


# -- the invite itself ------------------------------------------------------------------------------
def test_invite_sent_to_an_address_in_the_organizers_language_joins_and_unsubscribes(smtp):
    league = League(members=1)
    organizer = signed_in(league.organizer)
    invites = organizer.get(f"/clubs/{league.club.slug}/invites")
    assert invites.status_code == 200 and "send-invite" in invites.content.decode()
    answer = organizer.post(
        f"/clubs/{league.club.slug}/invites/send",
        {"address": "newcomer@example.org"},
        HTTP_ACCEPT_LANGUAGE="ms",
    )
    assert answer.status_code == 302
    row = OutboxMail.objects.get(kind=INVITE)
    assert row.address == "newcomer@example.org" and row.data["language"] == "ms"
    queue.drain()
    smtp.inbox.wait_for(1)
    [invite] = smtp.inbox.to("newcomer@example.org")
    assert "menjemput anda" in invite["Subject"]
    text = body_of(invite)
    join = next(u for u in links_in(text) if "/join/" in u)
    page = Client().get(path_of(join))
    assert page.status_code == 200  # the join page: register or sign in, and join
    # a single-use code, valid for a while
    code = path_of(join).rstrip("/").split("/")[-1]
    made = league.club.invites.get(code=code)
    assert made.single_use and made.expires_at > timezone.now() + dt.timedelta(days=13)

    # the unsubscribe link: no more invites to this address
    link = path_of(unsubscribe_of(invite))
    assert (
        Client()
        .post(link, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
        .status_code
        == 200
    )
    assert InviteOptOut.objects.count() == 1
    assert "newcomer" not in InviteOptOut.objects.get().address_hash  # a hash, not the address
    codes = league.club.invites.count()
    again = organizer.post(
        f"/clubs/{league.club.slug}/invites/send", {"address": "NewComer@example.org"}
    )
    assert again.status_code == 400
    assert OutboxMail.objects.filter(kind=INVITE).count() == 1
    assert league.club.invites.count() == codes  # no second code either


def test_only_organizers_send_invites():
    league = League(members=1)
    member = signed_in(league.members[0])
    answer = member.post(
        f"/clubs/{league.club.slug}/invites/send", {"address": "someone@example.org"}
    )
    assert answer.status_code == 403
    assert not OutboxMail.objects.exists()
    assert not league.club.invites.filter(created_by=league.members[0]).exists()


# -- preferences and language ---------------------------------------------------------------------
def test_preferences_page_sets_the_address_language_and_kinds():
    member = new_member("pref")
    client = signed_in(member)
    page = client.get("/me/mail")
    assert page.status_code == 200
    answer = client.post(
        "/me/mail",
        {"email": "me@example.org", "language": "ru", "table_ready": "on", "announcement": "on"},
    )
    assert answer.status_code == 302
    member.refresh_from_db()
    preference = MailPreference.objects.get(user=member)
    assert member.email == "me@example.org" and preference.language == "ru"
    assert preference.table_ready and preference.announcement
    assert not preference.deadline and not preference.seat_changes
    bad = client.post("/me/mail", {"email": "not an address", "language": "ru"})
    assert bad.status_code == 400
    member.refresh_from_db()
    assert member.email == "me@example.org"
    assert Client().get("/me/mail").status_code == 302  # sign in first


def test_the_site_language_a_member_chooses_is_their_mails():
    member = new_member("lang")
    client = signed_in(member)
    client.post("/language", {"language": "ms", "next": "/"})
    assert MailPreference.objects.get(user=member).language == "ms"
    # signing in with another language active stores that one
    fresh = Client(HTTP_ACCEPT_LANGUAGE="es")
    answer = fresh.post(
        "/signin", {"username": member.username, "password": "a long enough password 42"}
    )
    assert answer.status_code == 302
    assert MailPreference.objects.get(user=member).language == "es"


# -- the mail server is down ------------------------------------------------------------------------
def test_a_request_never_fails_when_the_mail_server_is_down_and_the_queue_retries(settings, caplog):
    closed = free_port()  # nothing listens there
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", closed, 5
    settings.DEKABES_SITE_URL = SITE
    league = League(members=4)
    with_addresses(league.members)
    organizer = signed_in(league.organizer)
    answer = organizer.post(
        f"/clubs/{league.club.slug}/organize/announcements", {"text": "Tonight at 8"}
    )
    assert answer.status_code == 302
    assert OutboxMail.objects.filter(kind=ANNOUNCEMENT, status="pending").count() == 4

    caplog.set_level(logging.INFO, logger="server.mail")
    now = timezone.now()
    done = queue.drain(now=now)
    # the first row was tried and failed; the batch stopped there (unreachable)
    assert (done.sent, done.retried) == (0, 1)
    tried = OutboxMail.objects.get(attempts=1)
    assert tried.status == "pending" and tried.next_attempt_at > now
    assert tried.last_error and "@" not in tried.last_error
    assert OutboxMail.objects.filter(attempts=0, claimed_until__isnull=True).count() == 3
    logged = caplog.text
    assert "@" not in logged and "Tonight" not in logged
    for user in league.members:
        assert user.username not in logged

    # backoff grows, then the mail server is back and everything goes
    assert queue.retry_after(1) < queue.retry_after(2) < queue.retry_after(3)
    assert queue.retry_after(50) == queue.LONGEST_RETRY
    from tests.mail.conftest import SmtpServer

    server = SmtpServer(port=closed).start()
    try:
        done = queue.drain(now=now + dt.timedelta(seconds=queue.retry_after(1) + 1))
        assert done.sent == 4
        server.inbox.wait_for(4)
    finally:
        server.stop()


def test_a_refused_recipient_fails_for_good_without_the_address_in_the_record(smtp):
    class Refusing:
        async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: N802
            return "550 no such user here"

    from aiosmtpd.controller import Controller

    port = free_port()
    refusing = Controller(Refusing(), hostname="127.0.0.1", port=port)
    refusing.start()
    try:
        from django.conf import settings

        settings.EMAIL_PORT = port
        league = League(members=1)
        with_addresses(league.members)
        announce(league.organizer, league.club, "Hi")
        done = queue.drain()
        assert done.failed == 1
        row = OutboxMail.objects.get()
        assert row.status == "failed" and "550" in row.last_error and "@" not in row.last_error
    finally:
        refusing.stop()


# -- privacy: a duplicate round, and the pages' markup ----------------------------------------------
def test_a_duplicate_rounds_mail_names_only_the_readers_own_table():
    league = League(members=8)  # two tables
    Season.objects.filter(pk=league.season).update(duplicate=True)
    with_addresses(league.members)
    league.start_round()
    matches = list(LeagueMatch.objects.filter(season_id=league.season).select_related("table"))
    assert len(matches) == 2
    holders = {
        s.player_id: s.table_id for s in Seat.objects.filter(table__in=[m.table for m in matches])
    }
    for row in OutboxMail.objects.filter(kind=TABLE_READY).select_related("user"):
        message = compose(row, address(row.user))
        text = body_of_message(message)
        for match in matches:
            own = holders[row.user_id] == match.table_id
            assert (match.table.code in text) == own
            assert (match.table.code in message.subject) is False
        assert not TILE.search(text)


def test_the_mail_pages_have_a_strict_policy_and_nothing_inline(smtp):
    league = League(members=2)
    with_addresses(league.members)
    announce(league.organizer, league.club, "Hello")
    queue.drain()
    smtp.inbox.wait_for(2)
    [message] = smtp.inbox.to(address(league.members[0]))
    paths = [
        (league.members[0], "/me/mail"),
        (None, path_of(unsubscribe_of(message))),
        (league.organizer, f"/clubs/{league.club.slug}/members"),
        (league.organizer, f"/clubs/{league.club.slug}/invites"),
    ]
    for user, path in paths:
        page = (signed_in(user) if user else Client()).get(path)
        assert page.status_code == 200, path
        assert "unsafe-inline" not in page["Content-Security-Policy"]
        body = page.content.decode()
        assert not re.search(r"\sstyle=", body), path
        assert not re.search(r"\son[a-z]+=", body), path
        assert "<script>" not in body, path


def test_who_may_open_the_mail_pages_each_refusal_changes_nothing():
    """The authorization matrix of the mail's pages and form: anonymous, an outsider, a
    member, another club's organizer and a bot's token may not send the club's invites
    nor see who has no address; nobody but the member reads or sets their choices."""
    league = League(members=1)
    slug = league.club.slug
    other = new_member("otto")
    clubs.do_create_club(user=other, slug=f"elsewhere-{other.pk}", name="Elsewhere")
    bot_key = accounts.do_register_bot(owner=league.members[0], name=f"bot-of-{other.pk}").key

    def snapshot():
        return (
            list(OutboxMail.objects.values_list("kind", "address", "user_id")),
            list(MailPreference.objects.values_list("user_id", "language", "table_ready")),
            list(User.objects.order_by("id").values_list("email", flat=True)),
            league.club.invites.count(),
            InviteOptOut.objects.count(),
        )

    callers = {
        "anonymous": (Client(), (302,)),
        "outsider": (signed_in(new_member("out")), (403, 404)),
        "member": (signed_in(league.members[0]), (403,)),
        "another club's organizer": (signed_in(other), (403, 404)),
        "bot token": (Client(HTTP_AUTHORIZATION=f"Token {bot_key}"), (302,)),
    }
    before = snapshot()
    for who, (client, statuses) in callers.items():
        for path in (f"/clubs/{slug}/members", f"/clubs/{slug}/invites"):
            assert client.get(path).status_code in statuses, (who, path)
        answer = client.post(f"/clubs/{slug}/invites/send", {"address": "a@example.org"})
        assert answer.status_code in statuses, (who, answer.status_code)
        assert snapshot() == before, who
    # signed out (or a bot's token, which signs in no page): sign in first, nothing written
    for client in (Client(), callers["bot token"][0]):
        assert client.get("/me/mail").status_code == 302
        assert (
            client.post("/me/mail", {"email": "x@example.org", "language": "en"}).status_code == 302
        )
    # an unsubscribe link that is not this server's: the 404 page, nothing changed
    assert Client().post("/mail/unsubscribe/not-a-token").status_code == 404
    assert snapshot() == before
    # the organizer may
    organizer = signed_in(league.organizer)
    assert organizer.get(f"/clubs/{slug}/members").status_code == 200
    assert (
        organizer.post(f"/clubs/{slug}/invites/send", {"address": "a@example.org"}).status_code
        == 302
    )
    assert OutboxMail.objects.filter(kind=INVITE).count() == 1


def test_closing_an_account_removes_its_choices_and_waiting_mail_and_old_rows_are_pruned():
    league = League(members=4)
    with_addresses(league.members, languages=("es",))
    league.start_round()
    leaving = league.members[0]
    assert OutboxMail.objects.filter(user=leaving).exists()
    league.play_round(1)
    answer = client_for(leaving).post(
        "/api/me/close", {"password": PASSWORD, "confirm": "close my account"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert not OutboxMail.objects.filter(user=leaving).exists()
    assert not MailPreference.objects.filter(user=leaving).exists()
    assert OutboxMail.objects.filter(kind=TABLE_READY).count() == 3  # the others' stay

    # rows done with for KEEP_DAYS are deleted; waiting ones never
    OutboxMail.objects.filter(user=league.members[1]).update(status="sent")
    OutboxMail.objects.update(created_at=timezone.now() - dt.timedelta(days=queue.KEEP_DAYS + 1))
    assert queue.prune() == 1
    assert OutboxMail.objects.count() == 2 and not OutboxMail.objects.filter(status="sent")


def test_the_members_data_download_holds_their_mail_choices():
    member = new_member("data")
    signed_in(member).post(
        "/me/mail", {"email": "d@example.org", "language": "ms", "deadline": "on"}
    )
    data = client_for(member).get("/api/me/data")
    assert data.status_code == 200
    mail = json.loads(data.content)["mail"]
    assert mail == {
        "language": "ms",
        "table_ready": False,
        "deadline": True,
        "seat_changes": False,
        "announcement": False,
    }
    untouched = new_member("none")
    mail = json.loads(client_for(untouched).get("/api/me/data").content)["mail"]
    assert mail["language"] == "" and all(v for k, v in mail.items() if k != "language")


def test_a_mail_server_refusing_the_sender_stops_the_batch_and_gives_nothing_up(smtp, settings):
    """A setting to fix (the sender, the sign-in) is no reason to give a mail up."""

    class RefusingTheSender:
        async def handle_MAIL(self, server, session, envelope, address, options):  # noqa: N802
            return "553 this sender is not allowed here"

    from aiosmtpd.controller import Controller

    port = free_port()
    refusing = Controller(RefusingTheSender(), hostname="127.0.0.1", port=port)
    refusing.start()
    try:
        settings.EMAIL_PORT = port
        league = League(members=3)
        with_addresses(league.members)
        announce(league.organizer, league.club, "Hi")
        done = queue.drain()
        assert (done.sent, done.failed, done.retried) == (0, 0, 1)
        tried = OutboxMail.objects.get(attempts=1)
        assert tried.status == "pending" and "553" in tried.last_error
        assert OutboxMail.objects.filter(attempts=0, status="pending").count() == 2
    finally:
        refusing.stop()


def test_the_api_reads_and_changes_a_members_mail_choices():
    member = new_member("api")
    api = client_for(member)
    answer = api.get("/api/me/mail")
    assert answer.status_code == 200
    assert answer.json() == {
        "email": "",
        "language": "en",
        "table_ready": True,
        "deadline": True,
        "seat_changes": True,
        "announcement": True,
    }
    answer = api.patch(
        "/api/me/mail",
        {"email": "me@example.org", "language": "ru", "deadline": False},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["email"] == "me@example.org" and answer.json()["language"] == "ru"
    assert answer.json()["deadline"] is False and answer.json()["table_ready"] is True
    member.refresh_from_db()
    assert member.email == "me@example.org"
    # the same choices on the web page
    page = signed_in(member).get("/me/mail").content.decode()
    assert 'value="me@example.org"' in page
    # refusals change nothing
    before = (api.get("/api/me/mail").json(), MailPreference.objects.count())
    for body, code in (
        ({"email": "not an address"}, "validation_error"),
        ({"language": "fr"}, "validation_error"),
        ({"mails": True}, "validation_error"),
    ):
        answer = api.patch("/api/me/mail", body, format="json")
        assert answer.status_code == 400 and answer.json()["code"] == code, answer.content
    assert (api.get("/api/me/mail").json(), MailPreference.objects.count()) == before
    bot = client_for(new_bot(member))
    assert bot.get("/api/me/mail").status_code == 403
    assert bot.patch("/api/me/mail", {"deadline": False}, format="json").status_code == 403
    assert APIClient().get("/api/me/mail").status_code == 401
