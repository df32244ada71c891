"""The round page's organizer tools (issue #22): deadline, substitute, forfeit, each a
form with a required confirmation, posted without JavaScript."""

from __future__ import annotations

import re

import pytest

from server.league.models import ClubAction, LeagueMatch, Season
from server.tables.models import Event, Seat
from tests.web.league_seed import seed_league
from tests.web.test_league_pages import client

pytestmark = pytest.mark.django_db


def test_the_organizer_sets_a_deadline_substitutes_and_forfeits_from_the_round_page():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    page = org.get(page_url).content.decode()
    assert 'id="round-actions"' in page and f"/matches/{match.pk}/substitute" in page
    assert f"/matches/{match.pk}/forfeit" not in page  # no deadline yet

    # a member is refused; a form without its confirmation changes nothing
    refused = client("ana").post(
        f"/matches/{match.pk}/substitute", {"seat": 1, "by": "level:strong", "confirm": "yes"}
    )
    assert refused.status_code == 403
    unconfirmed = org.post(f"/matches/{match.pk}/substitute", {"seat": 1, "by": "level:strong"})
    assert unconfirmed.status_code == 400
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()

    done = org.post(
        f"/matches/{match.pk}/substitute",
        {"seat": 1, "by": "level:strong", "reason": "late", "confirm": "yes"},
    )
    assert done.status_code == 302 and done["Location"].endswith(page_url)
    assert Seat.objects.get(table=match.table, number=1).player.is_hosted

    early = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "x", "confirm": "yes"})
    assert early.status_code == 409 and "deadline" in early.content.decode()
    # A deadline typed in the past is refused; "End the wait now" ends it at once.
    past = org.post(page_url + "/deadline", {"action": "set", "deadline": "2020-01-01T20:00"})
    assert past.status_code == 400 and "in the past" in past.content.decode()
    assert org.post(page_url + "/deadline", {"action": "now"}).status_code == 302
    page = org.get(page_url).content.decode()
    assert f"/matches/{match.pk}/forfeit" in page and 'class="club-time"' in page
    done = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "gone", "confirm": "yes"})
    assert done.status_code == 302
    match.refresh_from_db()
    assert match.status == "finished" and match.forfeited_by == "B" and match.winner == "A"
    verbs = set(ClubAction.objects.values_list("verb", flat=True))
    assert {"round.deadline", "match.substitute", "match.forfeit"} <= verbs


def test_a_forfeited_match_page_and_record_still_answer():
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    org.post(page_url + "/deadline", {"action": "now"})
    assert (
        org.post(
            f"/matches/{match.pk}/forfeit", {"seat": 1, "reason": "gone", "confirm": "yes"}
        ).status_code
        == 302
    )
    for path in (f"/matches/{match.pk}", f"/matches/{match.pk}/record", f"/clubs/{lg['club']}/"):
        assert client("ana").get(path).status_code == 200, path


def _card(html: str, match_id: int | None = None) -> str:
    """The part of the round page's card a refusal lands on: the deadline form, or one
    table's substitute and forfeit forms."""
    if match_id is None:
        return html.split('class="stack deadline"', 1)[1].split("</form>", 1)[0]
    return html.split(f'id="match-actions-{match_id}"', 1)[1].split("</details>", 1)[0]


def test_a_refusal_of_the_card_is_the_round_page_again_with_what_was_typed():
    """In the middle of an evening a refused deadline, substitute or forfeit says why
    beside its form on the round page, keeps what was typed and changes nothing: never a
    bare error page whose only way on is the home page."""
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    before = org.get(page_url).content.decode()
    assert f'action="{page_url}/deadline#round-actions"' in before
    assert f'action="/matches/{match.pk}/substitute#match-actions-{match.pk}"' in before

    past = org.post(page_url + "/deadline", {"action": "set", "deadline": "2020-01-01T20:00"})
    html = past.content.decode()
    assert past.status_code == 400 and "Back to the home page" not in html
    assert 'id="round-actions"' in html and "<h1>" in html and lg["club"] in html
    deadline_form = _card(html)
    assert 'role="alert"' in deadline_form and "in the past" in deadline_form
    assert 'value="2020-01-01T20:00"' in deadline_form
    empty = org.post(page_url + "/deadline", {"action": "set", "deadline": ""})
    assert empty.status_code == 400
    assert "Type the date and time of the deadline." in _card(empty.content.decode())

    typed = {"seat": "3", "by": "level:expert", "reason": "Farid's train is late"}
    unticked = org.post(f"/matches/{match.pk}/substitute", typed)
    html = unticked.content.decode()
    assert unticked.status_code == 400 and "Back to the home page" not in html
    card = _card(html, match.pk)
    assert "Tick the confirmation box to hand the seat over." in card
    assert 'value="Farid&#x27;s train is late"' in card
    assert (
        '<option value="3" selected>' in card and '<option value="level:expert" selected>' in card
    )
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()

    early = org.post(
        f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "never came", "confirm": "yes"}
    )
    html = early.content.decode()
    assert early.status_code == 409 and "Back to the home page" not in html
    assert "The round&#x27;s deadline has not passed yet." in html
    assert 'id="round-actions"' in html
    match.refresh_from_db()
    assert match.status == "playing"
    assert not ClubAction.objects.filter(verb__in=("match.substitute", "match.forfeit")).exists()
    assert not ClubAction.objects.filter(verb="round.deadline").exists()


def test_the_substitute_list_offers_only_whom_the_server_accepts():
    """In a duplicate round the organizer oversees every table: the server refuses them
    as a substitute, so the round page does not offer them; a refusal all the same (an
    old page) is the round page with the reason typed kept."""
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    option = f'<option value="user:{lg["organizer"]}"'
    assert option in _card(org.get(page_url).content.decode(), match.pk)
    Season.objects.filter(pk=lg["season"]).update(duplicate=True)
    assert option not in _card(org.get(page_url).content.decode(), match.pk)
    refused = org.post(
        f"/matches/{match.pk}/substitute",
        {"seat": 1, "by": f"user:{lg['organizer']}", "reason": "I will sit in", "confirm": "yes"},
    )
    html = refused.content.decode()
    assert refused.status_code == 409 and "Back to the home page" not in html
    card = _card(html, match.pk)
    assert "cannot take the seat" in card and 'value="I will sit in"' in card
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()


def test_a_forfeit_reads_as_a_forfeit_on_the_match_and_standings_pages():
    """A forfeited match is over: its page says who was absent, which team lost and why
    (never "still being played"), the standings count it in a Forfeits column, and the
    question before it does not promise a rating it will not get."""
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    org.post(page_url + "/deadline", {"action": "now"})
    absent = Seat.objects.get(table=match.table, number=2).player.username
    ask = org.post(f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "never came"})
    assert "not in the ratings" in ask.content.decode()
    done = org.post(
        f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "never came", "confirm": "yes"}
    )
    assert done.status_code == 302
    for reader in (client("ana"), client(None)):
        html = reader.get(f"/matches/{match.pk}").content.decode()
        assert "still being played" not in html
        assert (
            f"This match ended by forfeit: seat 2 ({absent}) was absent, so team B lost it." in html
        )
        assert "<q>never came</q>" in html and f"/matches/{match.pk}/record" in html
    standings = client(None).get(f"/clubs/{lg['club']}/standings?season={lg['season']}")
    html = standings.content.decode()
    assert ">Forfeits</th>" in html
    forfeits = dict(
        (row.split('data-entrant="', 1)[1].split('"', 1)[0], row.split('"num forfeits">')[1][0])
        for row in html.split("<tr ")[1:]
        if '"num forfeits">' in row
    )
    losers = set(match.seats.filter(team="B").values_list("player__username", flat=True))
    assert forfeits and all((n == "1") == (name in losers) for name, n in forfeits.items())


def test_a_forfeit_reads_as_a_forfeit_in_the_cross_table_and_the_match_lists():
    """Not "W 0–0" / "L 0–0" in the cross-table, not "Replay" in the lists of matches
    (all matches, the club page's results, a player's page): "forfeit", as on its page."""
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    match = LeagueMatch.objects.get(pk=lg["playing"][0])
    org = client(lg["organizer"])
    org.post(
        f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}/deadline",
        {"action": "now"},
    )
    done = org.post(
        f"/matches/{match.pk}/forfeit", {"seat": 2, "reason": "never came", "confirm": "yes"}
    )
    assert done.status_code == 302
    cross = client(None).get(f"/clubs/{lg['club']}/seasons/{lg['season']}/crosstable")
    cells = re.findall(rf'<a href="/matches/{match.pk}">(.*?)</a>', cross.content.decode())
    players = [s for s in match.seats.all() if not s.filler]
    assert sorted(cells) == sorted(
        (
            'W <span class="forfeit">forfeit</span>'
            if s.team == "A"
            else 'L <span class="forfeit">forfeit</span>'
        )
        for s in players
    )
    # A finished match in the same lists still offers its replay.
    replayable = lg["finished"][0]
    someone = players[0].player.username
    for url in ("/matches/", f"/clubs/{lg['club']}/", f"/players/{someone}"):
        html = client(None).get(url).content.decode()
        row = re.search(rf'<tr data-match="{match.pk}".*?</tr>', html, re.S)
        assert row is not None, url
        assert "Replay" not in row.group(0) and 'class="tag forfeit">forfeit<' in row.group(0), url
        if url == "/matches/":
            other = re.search(rf'<tr data-match="{replayable}".*?</tr>', html, re.S)
            assert other is not None and "Replay" in other.group(0)


def test_ending_the_wait_asks_first_when_seats_would_go_to_computers():
    """ "End the wait now" in a season with automatic substitutes hands away seats at once,
    which cannot be undone: it asks first. Without them it acts at once (a deadline can be
    moved again)."""
    lg = seed_league(members=("ana", "ben", "carl"), rounds=1)
    Season.objects.filter(pk=lg["season"]).update(auto_substitute_after=5)
    page_url = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    org = client(lg["organizer"])
    ask = org.post(page_url + "/deadline", {"action": "now"})
    html = ask.content.decode()
    assert ask.status_code == 200 and "End the wait for round" in html
    assert "Every seat away 5 minutes or more goes to a computer player at once." in html
    assert 'name="confirm" value="yes"' in html and 'name="action" value="now"' in html
    live = LeagueMatch.objects.get(pk=lg["playing"][0]).round
    assert live.deadline is None
    assert not ClubAction.objects.filter(verb="round.deadline").exists()
    done = org.post(page_url + "/deadline", {"action": "now", "confirm": "yes"})
    assert done.status_code == 302
    live.refresh_from_db()
    assert live.deadline is not None
    # Without automatic substitutes, no question.
    Season.objects.filter(pk=lg["season"]).update(auto_substitute_after=None)
    org.post(page_url + "/deadline", {"action": "clear"})
    assert org.post(page_url + "/deadline", {"action": "now"}).status_code == 302
