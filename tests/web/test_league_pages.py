"""The league pages in-process: visibility, organizer refusals, the chart, the records."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from engine import Match as EngineMatch
from engine import load_record
from server.league import selectors as league
from server.league.models import LeagueMatch, LeagueMatchSeat, Season
from server.web.selectors.league import CHART_HEIGHT, CHART_PAD, rating_chart
from tests.web.conftest import tiles_in
from tests.web.league_seed import PASSWORD, seed_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_league():
    return seed_league(members=("ana", "ben", "carl"), rounds=1)


def client(name: str | None) -> Client:
    c = Client()
    if name:
        assert c.login(username=name, password=PASSWORD)
    return c


def test_a_members_club_is_invisible_to_visitors_and_strangers(small_league):
    lg = small_league
    for c in (client(None), client(lg["stranger"])):
        home = c.get("/").content.decode()
        assert f"/clubs/{lg['club']}/" in home and f"/clubs/{lg['members_club']}/" not in home
        for path in (f"/clubs/{lg['members_club']}/", f"/clubs/{lg['members_club']}/standings"):
            page = c.get(path)
            # The page a club that does not exist gets: an outsider cannot tell.
            unknown = c.get(path.replace(lg["members_club"], "no-such-club"))
            assert page.status_code == unknown.status_code == 404
            assert without_token(page, path) == without_token(unknown, path)
            assert "The Cellar" not in page.content.decode()
    member = client("ana").get(f"/clubs/{lg['members_club']}/")
    assert member.status_code == 200 and "The Cellar" in member.content.decode()


def without_token(page, path: str) -> str:
    """The page's HTML without its CSRF token, the path it was asked for made ``path``."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page.content.decode())
    return html.replace(page.wsgi_request.path, path)


@pytest.mark.parametrize(
    "path",
    [
        "/clubs/nowhere/",
        "/clubs/nowhere/standings",
        "/players/nobody",
        "/matches/987654",
        "/matches/987654/record",
        "/clubs/riverside/standings?season=987654",
        "/clubs/riverside/standings?season=x",
    ],
)
def test_unknown_things_are_404_pages(small_league, path):
    page = client(None).get(path)
    assert page.status_code == 404 and "Page not found" in page.content.decode()


def test_organizer_forms_refuse_a_member_and_change_nothing(small_league):
    lg = small_league
    member = client("ben")
    seasons = Season.objects.count()
    assert member.get(f"/clubs/{lg['club']}/organize").status_code == 403
    assert (
        member.post(
            f"/clubs/{lg['club']}/organize/season", {"name": "X", "format": "individual"}
        ).status_code
        == 403
    )
    assert member.post(f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds").status_code == 403
    assert member.post(f"/matches/{lg['playing'][0]}/annul", {"reason": "x"}).status_code == 403
    assert Season.objects.count() == seasons
    assert LeagueMatch.objects.get(pk=lg["playing"][0]).status == "playing"
    # Visitors are sent to sign in first.
    assert client(None).get(f"/clubs/{lg['club']}/organize").status_code == 302


def test_organizer_refusals_from_the_services_are_form_errors(small_league):
    lg = small_league
    organizer = client(lg["organizer"])
    live_round = f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}"
    page = organizer.post(live_round, {"action": "start"})
    assert page.status_code == 400 and "This round has started already." in page.content.decode()
    annul = organizer.post(f"/matches/{lg['playing'][0]}/annul", {"reason": "   "})
    assert annul.status_code == 400
    assert LeagueMatch.objects.get(pk=lg["playing"][0]).status == "playing"


def test_the_club_page_shows_a_live_round_with_scores_and_no_tile(small_league):
    lg = small_league
    page = client("ana").get(f"/clubs/{lg['club']}/")
    body = page.content.decode()
    assert "Round 2 in progress" in body
    live = LeagueMatch.objects.get(pk=lg["playing"][0])
    assert f'data-match="{live.pk}"' in body
    start = body.index("live-round")
    assert not tiles_in(body[start : body.index("</section>", start)])
    match_page = client("ana").get(f"/matches/{live.pk}").content.decode()
    assert not tiles_in(match_page) and "replay-frames" not in match_page


def test_an_annulled_match_shows_its_reason_and_no_replay(small_league):
    lg = small_league
    organizer = client(lg["organizer"])
    response = organizer.post(
        f"/matches/{lg['playing'][0]}/annul", {"reason": "the power went out", "confirm": "yes"}
    )
    assert response.status_code == 302
    page = client("ana").get(f"/matches/{lg['playing'][0]}").content.decode()
    assert "the power went out" in page and "replay-frames" not in page
    listing = client("ana").get(f"/matches/?club={lg['club']}").content.decode()
    assert "annulled" in listing


def test_partner_and_opponent_records_follow_the_finished_records(small_league):
    body = client(None).get("/players/ana").content.decode()
    won = played = 0
    for m in LeagueMatch.objects.filter(status="finished", seats__player__username="ana"):
        team = m.seats.get(player__username="ana").team
        winner = EngineMatch.from_events(load_record(league.record_text(m))).summary()["winner"]
        played += 1
        won += winner == team
        partner = (
            LeagueMatchSeat.objects.filter(match=m, team=team).exclude(player__username="ana").get()
        )
        assert f'/players/{partner.player.username}"' in body
    assert played >= 1
    from server.web.selectors.league import partner_and_opponent_records

    partners, opponents = partner_and_opponent_records("ana", None)
    assert sum(r.played for r in partners) == played and sum(r.won for r in partners) == won
    assert (
        sum(r.played for r in opponents) == 2 * played and sum(r.won for r in opponents) == 2 * won
    )


def test_the_rating_chart_has_one_point_per_rated_match_scaled_into_the_box():
    history = [{"match": i, "ordinal": value} for i, value in enumerate([1.0, -2.0, 4.0, 3.0])]
    chart = rating_chart(history)
    assert [p.match for p in chart.points] == [0, 1, 2, 3]
    xs = [p.x for p in chart.points]
    assert xs == sorted(xs) and len(set(xs)) == 4
    top = min(chart.points, key=lambda p: p.y)
    bottom = max(chart.points, key=lambda p: p.y)
    assert top.ordinal == 4.0 and top.y == CHART_PAD
    assert bottom.ordinal == -2.0 and bottom.y == CHART_HEIGHT - CHART_PAD
    assert len(chart.polyline.split()) == 4
    assert rating_chart([]).points == [] and len(rating_chart(history[:1]).points) == 1


def test_no_page_but_a_finished_replay_shows_a_tile_while_a_round_is_live(small_league):
    lg = small_league
    paths = [
        "/",
        f"/clubs/{lg['club']}/",
        f"/clubs/{lg['club']}/standings",
        "/matches/",
        f"/matches/?club={lg['club']}",
        f"/clubs/{lg['club']}/organize",
        f"/clubs/{lg['club']}/seasons/{lg['season']}/rounds/{lg['live_round']}",
    ]
    paths += [f"/players/{name}" for name in lg["members"] + [lg["house_bot"], lg["organizer"]]]
    paths += [f"/matches/{m}" for m in lg["playing"]] + [
        f"/matches/{m}/record" for m in lg["playing"]
    ]
    for name in (None, lg["members"][0], lg["organizer"]):
        c = client(name)
        for path in paths:
            response = c.get(path)
            assert response.status_code in (200, 302, 403, 409), (name, path, response.status_code)
            assert not tiles_in(response.content.decode()), (name, path)


# League refusals no page form can receive, and why (every other one needs a sentence).
NO_FORM_RECEIVES = {
    "bad_page": "the pages paginate with Django's paginator, never the API's",
    "analysis_not_ready": "no form reads an analysis (the replay page says it is not ready)",
    "not_analysed": "no form reads an analysis",
}


def test_every_refusal_a_league_form_can_receive_has_a_translated_sentence():
    """The keys of the web's messages are the classes of server.errors: every league
    refusal, and the table and generic ones the league's services pass on, is either
    translated or listed as one no form can receive."""
    from django.utils import translation

    from server import errors
    from server.web.refusals import REFUSALS, refusal_text

    league = {c for c in errors.ERROR_CLASSES.values() if issubclass(c, errors.LeagueError)}
    passed_on = {
        errors.OneSeatPerPlayer,
        errors.MatchAnnulled,
        errors.MatchOver,
        errors.ValidationError,
        errors.PermissionDenied,
    }
    receivable = {c for c in league | passed_on if c.code not in NO_FORM_RECEIVES}
    assert receivable <= set(REFUSALS), sorted(c.code for c in receivable - set(REFUSALS))
    assert set(NO_FORM_RECEIVES) <= set(errors.ERROR_CLASSES)
    for language in ("es", "ru", "ms"):
        for cls in receivable:
            with translation.override("en"):
                english = str(REFUSALS[cls])
            with translation.override(language):
                assert str(REFUSALS[cls]) != english, (language, cls.code)
    with translation.override("es"):
        assert refusal_text(errors.InviteUsed()) == str(REFUSALS[errors.InviteUsed])
