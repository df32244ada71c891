"""The hand's end as the player sees it, on engine folds (``EngineTable`` from the offline
tests): the last tile lands on the finished board before the result, the next deal waits
for Continue, forced passes are told, a redeal is announced, the log is grouped by hand,
and an idle window draws nothing."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import random
import time

import pygame
import pytest

from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.render.panel import log_lines
from clients.table.render.results import why_line
from clients.table.screens import ends_before_last_tile, finished_view
from clients.table.ui import Accept, ClaimRedeal, Continue, HandOver, PickTile, PlaceAt, SkipLanding
from engine import Match, deal_event
from tests.engine.helpers import random_event, start
from tests.table.driver import ARTIFACTS, ivory_pixels
from tests.table.test_table_offline import ALL_HUMAN, EngineTable, app_for, match_where, tap


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


def _about_to_win(m: Match) -> bool:
    if m.phase != "play" or m.to_act != 1 or not m.seat_view(1)["line"]:
        return False
    view = m.seat_view(1)
    return len(view["hand"]) == 1 and any(e["type"] == "play" for e in view["legal"])


def _play_last_tile(app, conn):
    if app.tick([]).kind == "handoff":
        tap(app, HandOver(1))
    legal = app.legal_plays(1)
    tile = next(iter(legal))
    tap(app, PickTile(tile))
    if app.selection.end is None:
        tap(app, PlaceAt(legal[tile][0]))
    return tile


def test_the_last_tile_lands_on_the_finished_board_and_the_next_deal_waits_for_continue():
    m = match_where(_about_to_win)
    pygame.init()
    conn = EngineTable(m, [1])
    app = TableApp(conn, Settings(lang="en", speed="slow"), size=(1280, 800), save_settings=False)
    app.open_window()
    tile = _play_last_tile(app, conn)
    assert (
        conn.match.seat_view(1)["last_hand"] is not None
        and conn.match.seat_view(1)["last_hand"]["result"] == "domino"
    )
    # The server deals the next hand at once; the client must not show it yet.
    conn.match.apply(deal_event(random.Random(1)))
    conn.version += 1
    conn.push()
    screen = app.tick([])
    assert screen.kind == "landing"
    assert tile in app.effects.flights, "the last tile flies to its place"
    assert not any(isinstance(h.action, (PickTile, Accept)) for h in app.hits), "nothing private"
    board = finished_view(app.newest.view)
    assert [i["tile"] for i in board["line"]] == [
        i["tile"] for i in conn.match.seat_view(1)["last_hand"]["line"]
    ]
    time.sleep(0.35)
    app.tick([])
    assert app.decide().kind == "landing", "the finished board stays about a second"
    assert ivory_pixels(app.window.surface) > 0, "the finished line is drawn"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(app.window.surface, str(ARTIFACTS / "landing.png"))
    tap(app, SkipLanding())  # a tap skips the wait
    assert app.tick([]).kind == "reveal"
    assert not any(isinstance(h.action, Accept) for h in app.hits)
    tap(app, Continue())
    assert app.tick([]).kind == "accept", "the next deal only after Continue"


def test_the_landing_ends_by_itself_after_about_a_second():
    m = match_where(_about_to_win)
    app, conn = app_for(m, [1])  # speed "instant": no flight, the hold remains
    _play_last_tile(app, conn)
    assert app.tick([]).kind == "landing"
    assert app.progress.finale.hold == pytest.approx(1.0)
    time.sleep(1.05)
    assert app.tick([]).kind == "reveal"


def test_ends_before_the_last_tile_agree_with_the_engines_dekabes_verdict():
    seen = {True: 0, False: 0}
    for seed in range(60):
        rng = random.Random(seed)
        m = Match.from_events([start(ALL_HUMAN)])
        while m.phase != "match_over":
            m.apply(random_event(m, rng))
            last = m.seat_view(1)["last_hand"]
            if m.phase == "deal" or m.phase == "match_over":
                if last and last["result"] == "domino":
                    tile, left, right = ends_before_last_tile(last)
                    a, b = (int(x) for x in tile.split("-"))
                    # the test may state the rule: the client only reads the verdict
                    fits_both = a != b and {left, right} <= {a, b}
                    assert last["dekabes"] == fits_both, (tile, left, right)
                    seen[last["dekabes"]] += 1
                if m.phase == "deal":
                    m.apply(deal_event(rng))
    assert seen[True] and seen[False]


def test_the_why_line_names_the_ends_and_the_engines_verdict():
    app, conn = app_for(match_where(lambda m: m.phase == "accept"), [1])
    last = {
        "result": "domino",
        "dekabes": True,
        "line": [
            {"tile": "4-5", "a": 4, "b": 5, "seat": 1},
            {"tile": "5-6", "a": 5, "b": 6, "seat": 2},
        ],
        "turns": [
            {"seat": 1, "type": "play", "tile": "4-5", "end": None},
            {"seat": 2, "type": "play", "tile": "5-6", "end": "right"},
        ],
    }
    assert why_line(app.tr, last) == ("5-6 fitted both ends (4 and 5): Dékabès, double points.")
    assert "no Dékabès" in why_line(app.tr, dict(last, dekabes=False))
    assert why_line(app.tr, dict(last, result="block")) is None


def test_a_forced_pass_is_told_to_the_player_and_marked():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and [e["type"] for e in m.legal_events(1)] == ["pass"]
        )
    )
    app, conn = app_for(m, [1])
    assert app.tick([]).kind == "table"
    conn.act(1, "pass")  # what the server does for the seat
    app.tick([])
    assert any(t.text == "No tile fits: you pass." for t in app.effects.toasts)
    assert 1 in app.effects.pass_flash


def test_a_redeal_is_announced():
    doubles = ["0-0", "1-1", "2-2", "3-3", "4-4", "0-1", "0-2"]
    rest = [t for t in (f"{a}-{b}" for a in range(7) for b in range(a, 7)) if t not in doubles]
    m = Match.from_events(
        [
            start(ALL_HUMAN),
            {
                "type": "deal",
                "hands": {"1": doubles, "2": rest[0:7], "3": rest[7:14], "4": rest[14:21]},
            },
        ]
    )
    app, conn = app_for(m, [1])
    tap(app, ClaimRedeal(1))
    conn.match.apply(deal_event(random.Random(4)))
    conn.version += 1
    conn.push()
    app.tick([])
    assert any("redeal" in t.text for t in app.effects.toasts)


def test_an_illegal_tap_is_explained_once():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and any(
                t not in {e.get("tile") for e in m.legal_events(1)} for t in m.seat_view(1)["hand"]
            )
        )
    )
    app, conn = app_for(m, [1])
    legal = app.legal_plays(1)
    tile = next(t for t in app.view_of(1)["hand"] if t not in legal)
    tap(app, PickTile(tile))
    from clients.table.render.table import guidance

    assert guidance(app, app.view_of(1), 1) == f"{tile} does not fit an open end."
    assert not any(tile in t.text for t in app.effects.toasts), "said once, not twice"


def test_the_log_is_grouped_by_match_and_hand_with_each_result():
    rng = random.Random(8)
    m = Match.from_events([start(ALL_HUMAN)])
    events = [start(ALL_HUMAN)]
    while m.phase != "match_over":
        event = random_event(m, rng)
        m.apply(event)
        events.append(event)
    app, conn = app_for(m, [1])
    app.panel.log_events = [
        {"seq": i + 1, "type": e["type"], "seat": e.get("seat"), "event": e}
        for i, e in enumerate(events)
    ]
    lines = log_lines(app.tr, app.panel.log_events, app.newest.view)
    hands = [line for line in lines if line.startswith("§ Hand ")]
    results = [line for line in lines if line.startswith("§ Result: ")]
    assert lines[0] == "§ — Match 1 —"
    assert len(results) == len(m.results) == len(hands)
    for i, line in enumerate(lines):
        if line.startswith("§ Hand ") and line != "§ Hand 1":
            assert lines[i - 1].startswith("§ Result: "), "each hand closes with its result"


def test_log_opens_on_the_end_of_hand_screen():
    m = match_where(lambda m: m.phase == "deal" and m.results)
    app, conn = app_for(m, [1])
    app.progress.revealed_upto = len(m.results) - 1
    assert app.tick([]).kind == "reveal"
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_l, mod=0))
    app.tick()
    assert app.panel.name == "log"


def test_an_idle_window_draws_nothing_until_something_changes():
    app, conn = app_for(match_where(lambda m: m.phase == "accept"), [1])
    app.tick([])
    drawn = len(app.window.frame_ms)
    for _ in range(20):
        app.tick([], force=False)
    assert len(app.window.frame_ms) == drawn, "no frame while nothing changes"
    app.toast("hello")
    app.tick([], force=False)
    assert len(app.window.frame_ms) == drawn + 1, "a change is drawn"
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEMOTION, pos=(5, 5), rel=(1, 1), buttons=(0, 0, 0))
    )
    app.tick(force=False)
    assert len(app.window.frame_ms) == drawn + 2, "input is drawn"
