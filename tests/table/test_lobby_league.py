"""The league in the lobby, without a server (issue 24): invite links and codes read off
what a player pastes, personal statistics from the server (counted from the match list
on a server without them), the
tables where it is my turn first, the league page's data taken in, league news passed
on to an open table. (The live path is in test_lobby_live.py.)"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.sdk import ApiError
from clients.table.config import Settings
from clients.table.lobby import Lobby, parse_invite
from clients.table.lobby_service import (
    ClubDetails,
    ClubJoined,
    League,
    LeagueDetails,
    LeagueInfo,
    LobbyService,
    TableEntry,
    Tables,
    _Session,
)
from clients.table.stats import CASUAL, count
from tests.table.test_text_fit import _bot_table, drawn  # noqa: F401 (a fixture)


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("http://192.168.1.20:8000/join/tuesday/K7Q2MXA9BC", ("tuesday", "K7Q2MXA9BC")),
        ("https://club.example.org/join/tue-sday_2/k7q2mxa9bc/", ("tue-sday_2", "K7Q2MXA9BC")),
        ("  /join/tuesday/K7Q2MXA9BC?utm=x ", ("tuesday", "K7Q2MXA9BC")),
        ("tuesday/K7Q2MXA9BC", ("tuesday", "K7Q2MXA9BC")),
        ("k7q2mxa9bc", (None, "K7Q2MXA9BC")),
        ("", None),
        ("not a code!", None),
        ("http://host/clubs/tuesday", None),
    ],
)
def test_an_invite_is_read_off_a_link_a_slug_and_code_or_a_bare_code(text, parsed):
    assert parse_invite(text) == parsed


def _match(club, winner, my_team="A", status="finished", seats=None, hands=5, won=3, dek=1):
    other = "B" if my_team == "A" else "A"
    return {
        "club": club,
        "status": status,
        "winner": winner,
        "hands": hands,
        "hands_won": {my_team: won, other: hands - won},
        "dekabes": {my_team: dek, other: 0},
        "seats": seats
        or [
            {"seat": 1 if my_team == "A" else 2, "team": my_team, "player": "ann"},
            {"seat": 2 if my_team == "A" else 1, "team": other, "player": "bob"},
        ],
    }


def test_statistics_by_club_and_overall_from_the_match_list():
    matches = [
        _match("tuesday", "A"),  # won, 3 hands, 1 Dékabès
        _match("tuesday", "A", my_team="B", won=2, dek=0),  # lost
        _match("friday", "B", my_team="B", won=4, dek=2),  # won
        _match(None, "A", won=1),  # casual, won
        _match("tuesday", None, status="annulled"),  # not counted
        _match("tuesday", None, status="playing"),  # not counted
        _match("tuesday", "A", seats=[{"seat": 1, "team": "A", "player": "carl"}]),  # not mine
    ]
    stats = count(matches, "ann")
    assert stats.counted == 4
    tuesday = stats.by_club["tuesday"]
    assert (tuesday.matches, tuesday.won, tuesday.hands_won, tuesday.dekabes) == (2, 1, 5, 1)
    friday = stats.by_club["friday"]
    assert (friday.matches, friday.won, friday.hands_won, friday.dekabes) == (1, 1, 4, 2)
    assert stats.by_club[CASUAL].won == 1
    overall = stats.overall
    assert (overall.matches, overall.won, overall.hands_won, overall.dekabes) == (4, 3, 10, 4)


def test_pass_and_play_against_oneself_counts_for_the_first_seat_held():
    seats = [
        {"seat": 1, "team": "A", "player": "ann"},
        {"seat": 2, "team": "B", "player": "ann"},
    ]
    stats = count([_match(None, "B", seats=seats)], "ann")
    assert stats.overall.matches == 1 and stats.overall.won == 0


STATS_ANSWER = {
    "username": "ann",
    "is_bot": False,
    "overall": {"club": None, "club_name": None, "matches": 3, "won": 2, "hands": 20,
                "hands_won": 11, "dekabes": 2},
    "clubs": [
        {"club": "tuesday", "club_name": "Tuesday club", "matches": 2, "won": 1, "hands": 14,
         "hands_won": 7, "dekabes": 2},
        {"club": None, "club_name": None, "matches": 1, "won": 1, "hands": 6,
         "hands_won": 4, "dekabes": 0},
    ],
}  # fmt: skip


class FakeServer:
    """The SDK calls the league page makes, answered from memory; ``stats`` False: a
    server without ``GET /api/players/{username}/stats``."""

    def __init__(self, stats: bool):
        self.stats = stats
        self.match_limits: list[int] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def clubs(self, mine=False):
        return [{"slug": "tuesday", "name": "Tuesday club", "your_role": "member"}]

    def seasons(self, slug):
        return []

    def ratings(self, slug, limit=200):
        return []

    def player_stats(self, username):
        if not self.stats:
            raise ApiError("not_found", "no such page", status=404)
        assert username == "ann"
        return STATS_ANSWER

    def matches(self, limit=200, **filters):
        if filters.get("status") == "playing":  # the club's live tables (to watch)
            assert filters == {"club": "tuesday", "status": "playing"}
            return [{"id": 7, "table": "LIVE01", "round": 2, "score": {"A": 1, "B": 0}}]
        self.match_limits.append(limit)
        assert filters == {"player": "ann", "status": "finished"}
        return [_match("tuesday", "A"), _match(None, "A", won=1)]


@pytest.mark.parametrize("has_stats", [True, False])
def test_statistics_come_from_the_server_or_are_counted_without_it(has_stats):
    server = FakeServer(has_stats)
    service = LobbyService(client_factory=lambda url, token: server)
    service._session = _Session("http://x", "token", "ann")
    service._load_league()
    (details,) = [u for u in service.poll() if isinstance(u, LeagueDetails)]
    stats = details.stats
    if has_stats:
        assert stats.source == "api" and server.match_limits == [100]
        assert (stats.overall.matches, stats.overall.won) == (3, 2)
        assert (stats.overall.hands_won, stats.overall.dekabes) == (11, 2)
        tuesday = stats.by_club["tuesday"]
        assert (tuesday.matches, tuesday.hands_won, tuesday.dekabes) == (2, 7, 2)
        assert stats.by_club[CASUAL].won == 1 and stats.names == {"tuesday": "Tuesday club"}
    else:
        assert stats.source == "counted" and server.match_limits == [1000]
        assert stats.overall.matches == 2 and set(stats.by_club) == {"tuesday", CASUAL}
    assert [m["club"] for m in details.matches] == ["tuesday"]


def test_the_league_page_draws_the_servers_statistics(lobby, drawn):  # noqa: F811
    server = FakeServer(True)
    service = LobbyService(client_factory=lambda url, token: server)
    service._session = _Session("http://x", "token", "ann")
    service._load_league()
    (details,) = [u for u in service.poll() if isinstance(u, LeagueDetails)]
    lobby.screen_surface = pygame.display.set_mode((1280, 800))
    _arrive(lobby, League(LeagueInfo(True, ("Tuesday club",), (), 1, ("tuesday",))))
    lobby.show_page("league")
    _arrive(lobby, details)
    drawn.clear()
    assert lobby.tick([]).kind == "league"
    texts = [value for value, *_ in drawn]
    assert "   3 matches, 2 won · 11 hands won · 2 Dékabès" in texts
    assert "   2 matches, 1 won · 7 hands won · 2 Dékabès" in texts
    assert "Casual tables" in texts


@pytest.fixture
def lobby():
    from clients.table import draw

    pygame.init()
    draw.clear_caches()  # fonts of an earlier test's pygame are gone
    made = Lobby(Settings(), lang="en", server="http://127.0.0.1:1", save_settings=False)
    made.username = "ann"
    yield made
    made.close()
    pygame.quit()


def _arrive(lobby, update):
    lobby.service._updates.put(update)
    lobby.pump()


def test_my_tables_where_it_is_my_turn_come_first(lobby, drawn):  # noqa: F811
    waiting, mine = _bot_table("AAAAAA"), _bot_table("BBBBBB")
    _arrive(lobby, Tables([TableEntry(waiting, (1,)), TableEntry(mine, (1,), my_turn=True)], []))
    assert [e.table.code for e in lobby.unfinished] == ["BBBBBB", "AAAAAA"]
    lobby.screen_surface = pygame.display.set_mode((1280, 800))
    drawn.clear()
    assert lobby.tick([]).kind == "lobby"
    titles = [value for value, *_ in drawn if "BBBBBB" in value or "AAAAAA" in value]
    assert titles[0].startswith("▶ Your turn · BBBBBB"), "marked by a sign and a word"
    assert not titles[1].startswith("▶"), titles


def test_the_league_page_takes_its_data_and_league_news_reaches_an_open_table(lobby):
    told: list[str] = []
    lobby.on_notice = told.append  # what the shell sets while a table is open
    _arrive(lobby, League(LeagueInfo(True, ("Tuesday club",), (), 1, ("tuesday",))))
    _arrive(
        lobby,
        League(
            LeagueInfo(
                True,
                ("Tuesday club",),
                ({"code": "LG1234", "club": "Tuesday club", "round": 1},),
                2,
                ("tuesday",),
            )
        ),
    )
    assert told == ["Your league table is ready: LG1234"]
    lobby.show_page("league")
    assert lobby.decide().kind == "league"
    details = LeagueDetails(
        (ClubDetails("tuesday", "Tuesday club", "Autumn", (), ()),), (), count([], "ann")
    )
    _arrive(lobby, details)
    assert lobby.details is details and lobby.club == "tuesday"
    lobby.fields["invite"].value = "http://x/join/friday/ABCDEFGHJK"
    _arrive(lobby, ClubJoined("friday", "Friday club"))
    assert lobby.fields["invite"].value == "" and lobby.club == "friday"
    assert told[-1] == "You joined Friday club."


def test_a_pasted_text_that_is_no_invite_is_said_so(lobby):
    lobby.page = "league"
    lobby.fields["invite"].value = "what?"
    lobby.join_club()
    assert not lobby.busy
    assert lobby.toasts[-1].text == "That is not an invite link or code."
