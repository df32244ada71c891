"""Presence that is true (issue 34, point 2): a computer's seat, a seat never taken and a
seat emptied by Leave show no "here" or "away" (there is no person to be either,
whatever the server's leases say), and a player who closed the client turns "away" on
the others' screens once the server says so, though nothing is pushed then (the lease
runs out; the client looks at its seat answers again)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import time
import uuid

import pygame
import pytest

from clients.sdk import DekabesClient
from clients.table import draw as d
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import Connection, NewState, Ready
from clients.table.render.seats import presence_text
from tests.conftest import LiveServer
from tests.table.answers import PRESENCE, SEATS, Answers, iso_minutes_ago
from tests.table.driver import PASSWORD


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


def test_computer_open_and_left_seats_are_neither_here_nor_away(monkeypatch):
    link = Answers()
    link.updates.put(Ready("ann", (1,), None))
    link.answer()
    pygame.init()
    app = TableApp(link, Settings(lang="en"), save_settings=False)
    app.open_window()
    drawn: list[str] = []
    real = d.text
    monkeypatch.setattr(
        d,
        "text",
        lambda surface, value, *a, **k: drawn.append(str(value)) or real(surface, value, *a, **k),
    )
    app.tick([])
    assert presence_text(app, 1) == "● here"
    for seat in (2, 3, 4):
        assert presence_text(app, seat) is None, (seat, presence_text(app, seat))
    # (Seat 1 is at the bottom, one's own hand: no box.) Nothing about seats 2-4.
    said = [t for t in drawn if t == "● here" or t.startswith("○ away")]
    assert said == [], f"presence of a seat with no person: {said}"


def _away(minutes: float, lang: str = "en") -> str | None:
    link = Answers()
    link.updates.put(Ready("ann", (1,), None))
    seats = {**SEATS, "3": {"kind": "human", "player": "bob", "is_bot": False}}
    away = {"connected": False, "away_since": iso_minutes_ago(minutes)}
    link.answer(seats, {**PRESENCE, "3": away})
    pygame.init()
    app = TableApp(link, Settings(lang=lang), save_settings=False)
    app.open_window()
    app.tick([])
    return presence_text(app, 3)


def test_a_person_s_seat_says_away_with_the_minutes_from_the_server():
    assert _away(3.5) == "○ away 3 min"


@pytest.mark.parametrize(
    "minutes, en, ru",
    [
        (0.2, "away just now", "только что отошёл(а)"),  # never "away 0 min"
        (-0.3, "away just now", "только что отошёл(а)"),  # this clock a little behind
        (1.5, "away 1 min", "нет на месте 1 мин"),
        (59.5, "away 59 min", "нет на месте 59 мин"),
        (61, "away 1 h", "нет на месте 1 ч"),  # not "away 61 min"
        (5 * 60 + 10, "away 5 h", "нет на месте 5 ч"),
        (24 * 60 + 3, "away 1 day", "нет на месте 1 день"),  # not "away 1443 min"
        (3 * 24 * 60 + 3, "away 3 days", "нет на месте 3 дня"),
        (5 * 24 * 60 + 3, "away 5 days", "нет на месте 5 дней"),
    ],
)
def test_how_long_a_person_is_away_is_said_as_a_person_would(minutes, en, ru):
    assert _away(minutes) == "○ " + en
    assert _away(minutes, "ru") == "○ " + ru


def _account(url: str, prefix: str) -> DekabesClient:
    client = DekabesClient(url)
    client.register(f"{prefix}{uuid.uuid4().hex[:10]}", PASSWORD)
    return client


# A request's lease on this test's server (DEKABES_PRESENCE_ACTIVITY_SECONDS; 60 by
# default): Bob renews it (a request a second) until Ann's client shows him here, so a
# loaded machine cannot let it run out first; then he goes, and it runs out this soon
# (it was 20 s, with his one request, and held a test process for that long).
ACTIVITY_SECONDS = 6


@pytest.fixture
def short_lease_server(tmp_path):
    server = LiveServer(
        tmp_path, env={"DEKABES_PRESENCE_ACTIVITY_SECONDS": str(ACTIVITY_SECONDS)}
    ).start()
    try:
        yield server.url
    finally:
        server.stop()


def test_a_player_who_closed_the_client_turns_away_without_a_push(short_lease_server):
    """Bob sits at seat 3 and goes (no socket, no more requests). Once his request's
    lease runs out (a minute by default, 6 s on this server) the server's answer says he
    is away; no presence frame is pushed then, yet Ann's table shows it within a few
    seconds. Before issue 34 it said "● here" for as long as the table did not move."""
    url = short_lease_server
    ann, bob = _account(url, "ann"), _account(url, "bob")
    code = ann.create_table({1: "human", 2: "human", 3: "human", 4: "human"}, join=[1]).code
    bob.join(code, 3)
    bob.seat_view(code, 3)  # here for ACTIVITY_SECONDS, renewed until Ann sees him
    pygame.init()
    connection = Connection(url, ann.token, code, seats=[1], presence_look=2.0).start()
    app = TableApp(connection, Settings(lang="en", speed="instant"), save_settings=False)
    app.open_window()
    try:
        deadline = time.monotonic() + 30
        renewed = time.monotonic()
        while app.presence(3)[0] != "here":
            assert time.monotonic() < deadline, "Bob never shown here"
            if time.monotonic() - renewed > 1:
                bob.seat_view(code, 3)
                renewed = time.monotonic()
            app.tick([])
            time.sleep(0.05)
        # Bob goes now: no socket, no more requests; his lease runs out.
        assert connection._sub is not None  # the pushes flow: this is not the REST fallback
        away_on_server = None
        deadline = time.monotonic() + 150
        while app.presence(3)[0] != "away":
            assert time.monotonic() < deadline, "Bob still shown here"
            if (
                away_on_server is None
                and not ann.seat_view(code, 1).raw["presence"]["3"]["connected"]
            ):
                away_on_server = time.monotonic()
            app.tick([])
            time.sleep(0.2)
        told = time.monotonic()
        assert presence_text(app, 3) is not None and presence_text(app, 3).startswith("○ ")
        if away_on_server is not None:
            assert told - away_on_server < 10, "the client learnt it late"
    finally:
        connection.close()


def test_the_link_looks_at_its_seat_answers_while_pushes_flow(live_server_url):
    """With pushes connected and nothing moving, the link still reads its seat answers
    every ``presence_look`` seconds (what the server does not push: a lease ending)."""
    ann = _account(live_server_url, "ann")
    code = ann.create_table({1: "human", 2: "human", 3: "human", 4: "human"}, join=[1]).code
    connection = Connection(live_server_url, ann.token, code, seats=[1], presence_look=0.5)
    connection.start()
    try:
        states: list = []
        deadline = time.monotonic() + 30
        while len(states) < 4:
            assert time.monotonic() < deadline, f"only {len(states)} answers read"
            states += [u for u in connection.poll() if isinstance(u, NewState)]
            time.sleep(0.1)
        assert connection._sub is not None and connection._sub.connected.is_set()
        assert len({s.state.version for s in states}) == 1, "the table did not move: no push"
    finally:
        connection.close()
