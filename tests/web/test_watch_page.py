"""The spectator page ``/tables/<code>/watch``: who may open it, what it shows (public
facts only: no tile of a hand in play), its live script, in every language."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from server.league.models import Club
from server.tables import projection
from tests.server.conftest import Players, new_member
from tests.web.conftest import signed_in


def hands_in_play(p: Players) -> set[str]:
    m = projection.project(p.table).match
    if m.phase not in ("accept", "choose_opener", "play"):
        return set()
    return {t for tiles in m.summary()["hands_left"].values() for t in tiles}


@pytest.mark.django_db
def test_a_casual_table_is_watched_once_its_owner_allows_it():
    p = Players(kinds=("human", "bot", "bot", "bot"))
    stranger = signed_in(new_member("zed"))
    url = f"/tables/{p.code}/watch"
    assert stranger.get(url).status_code == 404
    p.owner_api.post(f"/api/tables/{p.code}/watchable", {"watchable": True}, format="json")
    page = stranger.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'src="/static/web/watch.js"' in html and "<script>" not in html
    assert Client().get(url).status_code == 404  # invitees sign in


@pytest.mark.django_db
def test_a_public_club_table_shows_no_hidden_tile_to_anyone_in_every_language():
    p = Players(kinds=("human", "bot", "bot", "bot"), rated=True)
    club = Club.objects.create(slug="watchers", name="W", visibility="public", created_by=p.owner)
    p.club_match(club)
    rng = random.Random(3)
    anyone = Client()
    for _ in range(60):
        hidden = hands_in_play(p)
        html = anyone.get(f"/tables/{p.code}/watch").content.decode()
        board = html.split('class="watch-hands"', 1)[0]  # the last hand is public
        shown = {
            normal(t) for t in re.findall(r'<span class="tile-text">([0-6]-[0-6])</span>', board)
        }
        assert shown == line_tiles(p) and not shown & hidden
        # the news line (read out by the page's live region) names the last move, and no
        # tile but those on the line
        news = re.search(r'<p class="watch-news" id="watch-news" role="status">([^<]*)</p>', html)
        named = {normal(t) for t in re.findall(r"[0-6]-[0-6]", news.group(1))}
        assert named <= shown, news.group(1)
        turns = projection.project(p.table).match.seat_view(1)["turns"]
        if turns and turns[-1]["type"] == "play":
            assert named == {normal(turns[-1]["tile"])}, news.group(1)
            assert f"Seat {turns[-1]['seat']} plays" in news.group(1)
        if p.step(rng) is None:
            break
    english = None
    for language in ("en", "es", "ru", "ms"):
        page = anyone.get(f"/tables/{p.code}/watch", HTTP_ACCEPT_LANGUAGE=language)
        assert page.status_code == 200
        # the news line in the reader's language
        news = re.search(r'id="watch-news" role="status">([^<]+)</p>', page.content.decode())
        english = english or news.group(1)
        assert language == "en" or news.group(1) != english, (language, news.group(1))


def line_tiles(p: Players) -> set[str]:
    view = projection.project(p.table).match.seat_view(1)
    return {normal(entry["tile"]) for entry in view["line"]}


def normal(tile: str) -> str:
    a, b = sorted(int(n) for n in tile.split("-"))
    return f"{a}-{b}"
