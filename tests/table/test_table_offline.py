"""The table client's screens and dispatch, driven by injected events, with the engine
standing in for the server's table (``EngineTable``): the states the client gets are
real seat views of a real fold, and every action it sends is applied by the engine.
(The live-server tests cover the network path; these cover moments a live game
reaches only by chance: choosing the opener, a redeal claim, the end of a match.)
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import queue
import random
import threading

import pygame
import pytest

from clients.sdk import SeatState
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import EventLog, HintAnswer, NewState, Ready, Refused
from clients.table.layout import MIN_TOUCH
from clients.table.ui import (
    Accept,
    Answer,
    ChangeSetting,
    ChooseOpener,
    ClaimRedeal,
    ClosePanel,
    Continue,
    HandOver,
    MatchSeen,
    NewMatch,
    PickTile,
    PlaceAt,
    Press,
)
from engine import Match
from engine.table_commands import seats_to_act
from tests.engine.helpers import random_event, start
from tests.table.driver import ivory_pixels, means

ALL_HUMAN = {"1": "human", "2": "human", "3": "human", "4": "human"}


class EngineTable:
    """A connection whose 'server' is the engine fold itself (same seat views)."""

    status = "online"
    code = "OFFLN1"

    def __init__(self, match: Match, seats: list[int]):
        self.match = match
        self.seats = seats
        self.version = 1
        self.busy = threading.Event()
        self.sent: list[dict] = []
        self.updates: queue.Queue = queue.Queue()
        self.updates.put(Ready("me", tuple(seats), None))
        self.push()

    def push(self) -> None:
        for seat in self.seats:
            allowed = [e["type"] for e in self.match.legal_events(seat)] + ["pause", "new_match"]
            self.updates.put(
                NewState(
                    SeatState.from_json(
                        {
                            "version": self.version,
                            "seat": seat,
                            "paused": False,
                            "allowed": allowed,
                            "view": self.match.seat_view(seat),
                            "seats_to_act": seats_to_act(self.match.seat_view(seat)),
                        },
                        code=self.code,
                        seat=seat,
                    ),
                )
            )

    def poll(self):
        out = []
        while not self.updates.empty():
            out.append(self.updates.get())
        return out

    def act(self, seat, type_, version=None, **fields):
        event = {"type": type_, "seat": seat, **fields}
        self.sent.append(event)
        if type_ in ("pause", "resume"):
            return
        try:
            self.match.apply(event)
        except Exception as problem:  # the engine's typed rejection
            self.updates.put(Refused(getattr(problem, "code", "bad_event"), str(problem)))
            return
        self.version += 1
        self.push()

    def hint(self, seat):
        self.updates.put(HintAnswer(seat, (self.match.legal_events(seat) or [None])[0]))

    def fetch_events(self, seat):
        self.updates.put(EventLog(seat, []))

    def close(self):
        pass


def match_where(predicate, seats=ALL_HUMAN, seed=0, limit=400) -> Match:
    """Random legal play (seeded) until ``predicate(match)``; a new seed if it never comes."""
    for attempt in range(limit):
        rng = random.Random(seed * 1000 + attempt)
        m = Match.from_events([start(seats)])
        for _ in range(600):
            if predicate(m):
                return m
            if m.phase == "match_over":
                break
            m.apply(random_event(m, rng))
    raise AssertionError("no such position found")


def app_for(match: Match, seats: list[int], lang: str = "en", size=(1280, 800)):
    pygame.init()
    conn = EngineTable(match, seats)
    app = TableApp(conn, Settings(lang=lang, speed="instant"), size=size, save_settings=False)
    # These tests tap a hand-off as soon as it is drawn; the delay before it answers is
    # tested on its own (test_privacy.py): here it is armed at once once on display.
    app.guard.arm_seconds = 0
    app.open_window()
    app.tick([])
    return app, conn


def tap(app, want):
    """Tap the topmost region meaning ``want`` (a ``Tap``, or a ``Tap`` class: any of it)."""
    for hit in reversed(app.hits):
        if means(hit.action, want):
            pos = hit.rect.center
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))
            return app.tick()
    raise AssertionError(f"no {want} on screen: {[h.action for h in app.hits]}")


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


def test_the_representative_chooses_the_opener_on_its_screen():
    m = match_where(lambda m: m.phase == "choose_opener")
    rep = m.to_act
    app, conn = app_for(m, [rep])
    assert app.tick([]).kind == "opener"
    partner = (rep + 1) % 4 + 1
    tap(app, ChooseOpener(rep, partner))
    assert conn.sent[-1] == {"type": "choose_opener", "seat": rep, "opener": partner}
    assert conn.match.phase == "play" and conn.match.to_act == partner


def test_a_seat_with_five_doubles_may_claim_a_redeal_or_keep_the_hand():
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
    assert app.tick([]).kind == "accept"
    assert any(h.action == ClaimRedeal(1) for h in app.hits)
    tap(app, ClaimRedeal(1))
    assert conn.sent[-1]["type"] == "claim_redeal" and conn.match.phase == "deal"


def test_no_redeal_button_without_five_doubles_and_keys_accept():
    m = match_where(
        lambda m: (
            m.phase == "accept" and not any(e["type"] == "claim_redeal" for e in m.legal_events(1))
        )
    )
    app, conn = app_for(m, [1])
    assert app.tick([]).kind == "accept"
    assert not any(isinstance(h.action, ClaimRedeal) for h in app.hits)
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0))
    app.tick()
    assert conn.sent[-1] == {"type": "accept", "seat": 1}


@pytest.mark.parametrize("seats", [[1], [1, 2, 3, 4]], ids=["one seat", "pass-and-play"])
def test_end_of_match_shows_the_winner_and_offers_a_new_game(seats):
    m = match_where(lambda m: m.phase == "match_over")
    app, conn = app_for(m, seats)
    app.progress.revealed_upto = len(m.results) - 1  # the last hand has just ended
    assert app.tick([]).kind == "reveal"
    from clients.table.render.results import match_summary, result_banner

    last = m.seat_view(1)["last_hand"]
    assert result_banner(app.tr, last).split("!")[0].split(":")[0] in ("DOMINO", "DÉKABÈS", "BLOCK")
    assert not any(h.action == NewMatch() for h in app.hits), "the hand's result first"
    tap(app, Continue())
    # The match's own moment (the seat asked is the viewer, not the reveal's last row).
    assert app.tick([]).kind == "match_over"
    view = m.seat_view(1)
    summary = match_summary(view)
    winner = view["winner"]
    assert summary["won"][winner] >= 1
    assert sum(summary["won"].values()) + summary["ties"] == len(m.results)
    assert summary["dekabes"] == {
        t: sum(1 for r in m.results if r["team"] == t and r["dekabes"]) for t in ("A", "B")
    }
    tap(app, NewMatch())
    assert app.progress.confirm == "new_match"
    tap(app, Answer(True))
    assert conn.sent[-1]["type"] == "new_match"


def test_the_match_end_can_be_closed_to_look_at_the_board():
    m = match_where(lambda m: m.phase == "match_over")
    app, conn = app_for(m, [1])
    assert app.tick([]).kind == "match_over"
    from tests.table.driver import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(app.window.surface, str(ARTIFACTS / "match-over.png"))
    tap(app, MatchSeen())
    assert app.tick([]).kind == "table"


def test_every_tap_target_is_at_least_44_px_at_every_window_size():
    m = match_where(
        lambda m: m.phase == "play" and len(m.seat_view(1)["line"]) >= 6 and m.to_act == 1
    )
    for size in ((1280, 800), (800, 600), (480, 360), (1920, 1080)):
        app, conn = app_for(m, [1], size=size)
        app.tick([])
        small = [
            (h.action, h.rect.size)
            for h in app.hits
            if h.rect.w < MIN_TOUCH or h.rect.h < MIN_TOUCH
        ]
        assert not small, f"{size}: {small}"
        w, h = size
        assert all(0 <= hit.rect.centerx <= w and 0 <= hit.rect.centery <= h for hit in app.hits)
        pygame.quit()


def test_resizing_the_window_lays_the_table_out_again():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 1)
    app, conn = app_for(m, [1], size=(1280, 800))
    before = {h.action: h.rect.copy() for h in app.hits}
    pygame.display.set_mode((820, 620), pygame.RESIZABLE)
    app.handle_event(pygame.event.Event(pygame.VIDEORESIZE, w=820, h=620, size=(820, 620)))
    app.window.surface = pygame.display.get_surface()
    app.tick([])
    assert app.window.size == (820, 620)
    after = {h.action: h.rect for h in app.hits}
    assert set(after) == set(before)
    assert all(
        r.right <= 820 + MIN_TOUCH // 2 and r.bottom <= 620 + MIN_TOUCH // 2 for r in after.values()
    )


def test_server_errors_are_shown_in_the_players_language():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1], lang="ru")
    conn.updates.put(Refused("not_your_turn", "seat 1 may not play now"))
    app.tick([])
    assert any(t.text == "Сейчас не ваш ход." or "ход" in t.text for t in app.effects.toasts), (
        app.effects.toasts
    )
    assert app.tick([]).kind == "table"  # the table stays usable


def test_russian_plurals_on_the_table():
    from clients.table.i18n import Translator

    tr = Translator("ru")
    assert [tr("tiles.count", n=n) for n in (1, 3, 5, 21)] == [
        "1 кость",
        "3 кости",
        "5 костей",
        "21 кость",
    ]


def test_pass_and_play_never_shows_a_hand_to_the_wrong_seat():
    """Follow a whole hand with four human seats on one device: every private screen
    draws only its own seat's tiles, and each change of seat goes through a hand-off."""
    m = match_where(lambda m: m.phase == "accept")
    app, conn = app_for(m, [1, 2, 3, 4])
    rng = random.Random(5)
    shown_before = None
    for _ in range(200):
        screen = app.tick([])
        if screen.kind == "handoff":
            assert ivory_pixels(app.window.surface) == 0
            tap(app, HandOver(screen.seat))
            shown_before = screen.seat
            continue
        if screen.kind == "reveal":
            break
        assert screen.seat == shown_before, "a seat's screen came without a hand-off"
        hand = conn.match.seat_view(screen.seat)["hand"]
        drawn = sorted(h.action.tile for h in app.hits if isinstance(h.action, PickTile))
        assert drawn in ([], sorted(hand))
        if screen.kind == "accept":
            tap(app, Accept(screen.seat))
        elif screen.kind == "opener":
            tap(app, ChooseOpener(screen.seat, screen.seat))
        elif app.my_turn(screen.seat):
            legal = app.legal_plays(screen.seat)
            if not legal:  # a forced pass (the server does it)
                conn.act(screen.seat, "pass")
                continue
            tile = rng.choice(sorted(legal))
            tap(app, PickTile(tile))
            tap(app, PlaceAt(legal[tile][0]))
        if conn.match.needs_deal():
            break
    assert shown_before is not None


def test_language_switch_in_the_window_is_remembered(tmp_path, monkeypatch):
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(tmp_path))
    from clients.table import config

    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    pygame.init()
    conn = EngineTable(m, [1])
    app = TableApp(conn, config.load(), lang="en", size=(1280, 800), save_settings=True)
    app.open_window()
    app.tick([])
    tap(app, Press("settings"))
    tap(app, ChangeSetting("lang", "es"))
    assert app.tr.lang == "es"
    tap(app, ClosePanel())
    from clients.table.render.bars import button_label

    assert button_label(app, "rules") == "Reglas"
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_g, mod=0))
    app.tick()
    assert app.tr.lang == "ru" and config.load().lang == "ru"
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_s, mod=0))
    app.tick()
    assert config.load().speed == app.settings.speed != "normal"


def test_a_played_tile_slides_into_place_without_blocking_input():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and len(m.seat_view(1)["line"]) >= 2
            and len(m.legal_events(1)) >= 1
            and len(m.seat_view(1)["hand"]) >= 3
        ),
        seats={"1": "human", "2": "human", "3": "human", "4": "human"},
    )
    pygame.init()
    conn = EngineTable(m, [1, 2, 3, 4])
    app = TableApp(conn, Settings(lang="en", speed="slow"), size=(1280, 800), save_settings=False)
    app.guard.arm_seconds = 0
    app.open_window()
    app.tick([])
    if app.decide().kind == "handoff":
        tap(app, HandOver(1))
    legal = app.legal_plays(1)
    tile = sorted(legal)[0]
    tap(app, PickTile(tile))
    tap(app, PlaceAt(legal[tile][0]))
    app.tick([])  # the new view arrives
    assert tile in app.effects.flights, "the tile slides from the hand to the line"
    # Seat 2 is next on this device; the flight keeps going while the hand-off is tapped.
    screen = app.tick([])
    if screen.kind == "handoff":
        tap(app, HandOver(screen.seat))
    assert app.decide().kind in ("table", "handoff")
    import time as _time

    _time.sleep(0.35)  # "slow" is 300 ms
    app.tick([])
    assert tile not in app.effects.flights


def test_a_big_window_scales_the_table_up_and_taps_still_land():
    from clients.table.app import ui_scale

    assert ui_scale((1280, 800)) == 1.0 and ui_scale((1366, 768)) == 1.0
    assert ui_scale((1920, 1080)) == pytest.approx(1.35)
    m = match_where(lambda m: m.phase == "play" and m.to_act == 1)
    app, conn = app_for(m, [1], size=(1920, 1080))
    assert app.window.window_size == (1920, 1080) and app.window.size == (1422, 800)
    assert app.window.surface.get_size() == (1920, 1080)
    tile = sorted(app.legal_plays(1))[0]
    hit = next(h for h in app.hits if h.action == PickTile(tile))
    x, y = (round(v * app.window.scale) for v in hit.rect.center)  # window pixels
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(x, y), button=1))
    app.tick()
    assert app.selection.tile == tile
    small, _ = app_for(m, [1], size=(1280, 800))
    small_hit = next(h for h in small.hits if h.action == PickTile(tile))
    assert hit.rect.w * app.window.scale > small_hit.rect.w * 1.3, "tiles grow with the window"
