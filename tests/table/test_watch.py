"""Watching a live table of my clubs (issue 22's spectator API, issue 24's "watch" in the
lobby): the lobby lists each club's tables in play with Watch; Watch opens the table
read-only through ``watch.Watch`` (long-polls of ``GET /api/tables/{code}/spectate``).
The watcher's table draws no hand and no tile to pick, asks no decision (no accept or
opener screen), offers no button that acts for a seat, and says "Watching". Engine
folds stand in for the server's public answers."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import queue
import threading
import time

import pygame
import pytest

from clients.sdk import ApiError
from clients.table import draw as d
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import NewState, Ready, Refused
from clients.table.lobby_service import ClubDetails, League, LeagueDetails, LeagueInfo
from clients.table.render.bars import status_text
from clients.table.render.frame import WATCH_BUTTONS
from clients.table.shell import Shell
from clients.table.stats import count
from clients.table.ui import Accept, PickTile, Press, WatchTable
from clients.table.watch import VIEWPOINT, Watch, spectator_state
from engine.table_commands import seats_to_act
from tests.table.driver import ARTIFACTS, means
from tests.table.test_lobby_league import _arrive
from tests.table.test_table_offline import match_where


@pytest.fixture(autouse=True)
def _pygame():
    pygame.init()
    d.clear_caches()
    yield
    pygame.quit()


def public_answer(match, version: int) -> dict:
    """What a spectator is sent (``engine.spectator_view``): the public entries of a seat
    view — not the seat's identity, hand, legal events or undo stack."""
    view = {k: v for k, v in match.seat_view(1).items() if k not in PRIVATE}
    return {
        "version": version,
        "table": {
            "code": "LIVE01",
            "owner": "org",
            "rated": True,
            "version": version,
            "paused": False,
            "paused_by": [],
            "phase": view["phase"],
            "seats": {
                str(n): {"kind": "human", "player": f"p{n}", "is_bot": False} for n in (1, 2, 3, 4)
            },
        },
        "view": view,
        "seats_to_act": seats_to_act(match.seat_view(1)),
        "presence": {str(n): {"connected": True, "away_since": None} for n in (1, 2, 3, 4)},
    }


PRIVATE = ("seat", "team", "partner", "hand", "legal", "can_claim_redeal", "can_undo", "can_redo")
TEAMS = {1: "A", 2: "B", 3: "A", 4: "B"}  # as a match answer gives them (its seats' teams)


class SpectatorFeed:
    """A ``TableLink`` that hands the table spectator answers, as ``Watch`` does."""

    status = "online"
    code = "LIVE01"

    def __init__(self, match):
        self.match = match
        self.busy = threading.Event()
        self.sent: list = []
        self.updates: queue.Queue = queue.Queue()
        state = spectator_state(self.code, public_answer(match, 1), TEAMS)
        self.updates.put(Ready("", (), state.table, watching=True))
        self.updates.put(NewState(state))

    def poll(self):
        out = []
        while not self.updates.empty():
            out.append(self.updates.get())
        return out

    def act(self, seat, type_, version=None, **fields):
        self.sent.append((seat, type_))

    def hint(self, seat):
        self.sent.append((seat, "hint"))

    def fetch_events(self, seat):
        self.sent.append((seat, "events"))

    def close(self):
        pass


def watcher(match) -> tuple[TableApp, SpectatorFeed]:
    feed = SpectatorFeed(match)
    app = TableApp(feed, Settings(lang="en", speed="instant"), save_settings=False)
    app.open_window()
    app.tick([])
    return app, feed


def test_a_spectator_answer_is_the_view_of_a_seat_holding_nothing():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 1)
    state = spectator_state("LIVE01", public_answer(m, 4), TEAMS)
    assert state.seat == VIEWPOINT and state.version == 4
    assert (state.view["seat"], state.view["team"], state.view["partner"]) == (1, "A", 3)
    assert "team" not in spectator_state("LIVE01", public_answer(m, 4)).view, "teams unknown"
    assert state.view["hand"] == [] and state.view["legal"] == [] and state.allowed == []
    assert state.view["line"] == m.seat_view(1)["line"]
    assert state.table.rated and state.raw["presence"]["2"]["connected"]


@pytest.mark.parametrize("phase", ["play", "accept"])
def test_the_watched_table_is_read_only(phase):
    if phase == "play":  # seat 1 (the viewpoint) to play: still nothing to pick
        m = match_where(lambda m: m.phase == "play" and m.to_act == 1 and m.seat_view(1)["line"])
    else:
        m = match_where(lambda m: m.phase == "accept")
    app, feed = watcher(m)
    screen = app.tick([])
    assert screen.kind == "table" and screen.seat == VIEWPOINT
    actions = [h.action for h in app.hits]
    assert not any(means(a, PickTile) or means(a, Accept) for a in actions)
    assert [a.button for a in actions if isinstance(a, Press)] == list(WATCH_BUTTONS)
    assert status_text(app).startswith("Watching")
    drawn = []
    real = d.text
    d.text = lambda surface, value, *a, **k: (
        drawn.append(str(value)) or real(surface, value, *a, **k)
    )
    try:
        app.tick([])
    finally:
        d.text = real
    assert not any("(you)" in t or "partner" in t for t in drawn), "nobody is 'you' here"
    from clients.table.render.results import seat_team

    assert [seat_team(app.newest.view, n) for n in (1, 2, 3, 4)] == ["A", "B", "A", "B"]
    for key in ("confirm", "select_next", "undo", "hint", "accept"):
        app.command(key)
    assert feed.sent == [], "a spectator sends nothing"
    assert "Your turn" not in app._title
    # The table moves on: the watcher follows it.
    for _ in range(3):
        if m.phase not in ("play", "accept"):
            break
        seat = seats_to_act(m.seat_view(1))[0]
        m.apply(m.legal_events(seat)[0])
    feed.updates.put(NewState(spectator_state("LIVE01", public_answer(m, 2), TEAMS)))
    app.tick([])
    assert app.newest.version == 2 and app.newest.view["line"] == m.seat_view(1)["line"]
    app.tick([])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(app.window.surface, str(ARTIFACTS / f"watching-{phase}.png"))


class FakeClient:
    """``DekabesClient.spectate`` answered from a list (an ApiError is raised)."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.asked: list[tuple] = []
        self.closed = False

    def spectate(self, code, wait=None, after=None):
        self.asked.append((code, wait, after))
        if not self.answers:
            time.sleep(0.05)
            raise ApiError("not_found", "gone", status=404)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def close(self):
        self.closed = True


def _drain(link, until, timeout=5.0):
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen.extend(link.poll())
        if until(seen):
            return seen
        time.sleep(0.01)
    raise AssertionError(f"not seen in time: {seen}")


def test_the_watch_link_long_polls_the_spectator_endpoint_and_stops_when_refused():
    m = match_where(lambda m: m.phase == "play")
    client = FakeClient([public_answer(m, 3), public_answer(m, 5)])
    link = Watch("http://x", "token", "live01", {1: "A", 3: "A"}, client=client).start()
    try:
        seen = _drain(link, lambda s: any(isinstance(u, Refused) for u in s))
    finally:
        link.close()
    ready = [u for u in seen if isinstance(u, Ready)]
    states = [u.state.version for u in seen if isinstance(u, NewState)]
    assert len(ready) == 1 and ready[0].watching and ready[0].seats == ()
    assert states == [3, 5]
    assert client.asked[0] == ("LIVE01", None, None), "the first read answers at once"
    assert client.asked[1] == ("LIVE01", None, None), "plain reads (WAIT off: see watch.py)"
    refused = [u for u in seen if isinstance(u, Refused)]
    assert refused[-1].code == "not_found" and link.status == "offline"
    assert client.closed


def test_the_lobby_lists_live_tables_and_watch_opens_one_read_only():
    m = match_where(lambda m: m.phase == "play")
    opened: list = []

    def watch_factory(url, token, code, teams):
        opened.append((url, token, code, teams))
        return SpectatorFeed(m)

    shell = Shell(
        Settings(lang="en"), server="http://127.0.0.1:1", save_settings=False,
        watch_factory=watch_factory,
    )  # fmt: skip
    try:
        shell.open_window()
        lobby = shell.lobby
        lobby.username = "ann"
        lobby.settings.accounts[lobby.server] = {"username": "ann", "token": "tok"}
        _arrive(lobby, League(LeagueInfo(True, ("Tuesday club",), (), 1, ("tuesday",))))
        seats = [{"seat": n, "team": "AB"[(n + 1) % 2], "player": f"p{n}"} for n in (1, 2, 3, 4)]
        live = (
            {"id": 7, "table": "LIVE01", "round": 2, "score": {"A": 1, "B": 0}, "seats": seats},
        )
        club = ClubDetails("tuesday", "Tuesday club", "Autumn", (), (), live)
        lobby.show_page("league")
        _arrive(lobby, LeagueDetails((club,), (), count([], "ann")))
        shell.tick([])
        assert any(h.action == WatchTable("LIVE01") for h in lobby.hits)
        lobby.tap(WatchTable("LIVE01"))
        teams = {1: "A", 2: "B", 3: "A", 4: "B"}  # as the match answer gave them
        assert opened == [("http://127.0.0.1:1", "tok", "LIVE01", teams)]
        assert shell.table is not None
        screen = shell.tick([])
        assert shell.table.seating.watching and screen.kind == "table"
        assert any(h.action == Press("lobby") for h in shell.table.hits)
        shell.table.press("lobby")
        assert shell.table is None, "back in the lobby"
    finally:
        shell.close()
