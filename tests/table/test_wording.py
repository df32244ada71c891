"""What the table says, and how (issue 34, point 6): the asker of a takeback reads
"You asked…", an empty seat is offered to a computer as an empty seat, the toolbar's
labels share one size in every language, and no PASS tag stays over the match's end."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.table import draw as d
from clients.table.app import TableApp
from clients.table.config import Settings
from clients.table.connection import Ready
from tests.table.answers import PRESENCE, SEATS, Answers
from tests.table.test_table_offline import app_for, match_where


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


@pytest.fixture
def drawn(monkeypatch):
    """(text, rect) of everything drawn from now on."""
    seen: list[tuple[str, pygame.Rect]] = []
    real = d.text

    def recording(surface, value, pos, *args, **kwargs):
        rect = real(surface, value, pos, *args, **kwargs)
        seen.append((str(value), rect))
        return rect

    monkeypatch.setattr(d, "text", recording)
    return seen


def _app(link, lang="en", size=(1280, 800)):
    pygame.init()
    app = TableApp(link, Settings(lang=lang), size=size, save_settings=False)
    app.open_window()
    app.tick([])
    return app


def test_the_asker_of_a_takeback_reads_you_asked(drawn):
    link = Answers()
    link.updates.put(Ready("ann", (1,), None))
    seats = {**SEATS, "3": {"kind": "human", "player": "bob", "is_bot": False}}
    request = {"seat": 1, "command": "undo", "waiting_for": [3]}
    link.answer(seats, PRESENCE, takeback=request)
    _app(link)
    texts = [t for t, _ in drawn]
    assert "You asked to take back the last move: waiting for Seat 3 · bob" in texts, texts
    assert not any("Seat 1" in t and "asked" in t for t in texts)


def test_an_empty_seat_is_offered_to_the_computer_as_an_empty_seat(drawn):
    link = Answers()
    link.updates.put(Ready("ann", (1,), None))
    link.answer()  # seat 2: the computer "house"; seats 3 and 4 empty
    app = _app(link)
    app.progress.replacing, app.progress.confirm = 3, "replace_seat"
    drawn.clear()
    app.tick()
    texts = [t for t, _ in drawn]
    assert "Give the empty seat 3 to the computer player house? The match goes on from here." in (
        texts
    ), texts
    assert not any("empty seat to" in t for t in texts)


def test_no_replace_for_an_empty_seat_without_a_computer_to_give_it_to():
    link = Answers()
    link.updates.put(Ready("ann", (1,), None))
    human = {"kind": "human", "player": None, "is_bot": False}
    link.answer(
        {
            "1": {"kind": "human", "player": "ann", "is_bot": False},
            "2": human,
            "3": human,
            "4": human,
        }
    )
    app = _app(link)
    assert not [h for h in app.hits if type(h.action).__name__ == "ReplaceSeat"]


@pytest.mark.parametrize("lang", ["en", "es", "ru", "ms"])
@pytest.mark.parametrize(
    "window, scale",
    [((1280, 800), "auto"), ((1280, 800), "125"), ((800, 600), "auto"), ((1600, 1000), "125")],
)
def test_the_toolbar_labels_share_one_size(monkeypatch, lang, window, scale):
    """Malay's "Permainan baharu" was drawn smaller than its neighbours, and at 125 %
    the labels came in mixed sizes."""
    m = match_where(lambda m: m.phase == "play" and m.to_act == 1)
    app, conn = app_for(m, [1], lang=lang, size=window)
    app.settings.scale = scale
    app.set_window_size(window)
    sized: list[tuple[str, int]] = []  # each text with the size it is drawn at
    real = d.text

    def recording(surface, value, pos, size=18, colour=None, bold=False, *args, **kwargs):
        within = kwargs.get("within")
        shown = d.fit(str(value), within.w, int(size), bold)[1] if within else int(size)
        sized.append((str(value), shown))
        return real(surface, value, pos, size, colour, bold, *args, **kwargs)

    monkeypatch.setattr(d, "text", recording)
    app.tick()
    from clients.table.render.bars import BUTTON_TEXT

    labels = {app.tr(key) for key in BUTTON_TEXT.values()}
    sizes = {t: px for t, px in sized if t in labels}
    assert len(sizes) >= 8, sizes
    assert len(set(sizes.values())) == 1, f"mixed sizes: {sizes}"


def test_no_pass_tag_over_the_match_s_end(drawn):
    def ended_on_a_pass(m) -> bool:
        if m.phase != "match_over":
            return False
        turns = m.seat_view(1).get("turns") or []
        return any(t["type"] == "pass" for t in turns[-4:])

    m = match_where(ended_on_a_pass)
    app, conn = app_for(m, [1])
    screen = app.tick()
    while screen.kind in ("landing", "reveal"):
        app.progress.revealed_upto = len(app.newest.view.get("results") or [])
        app.progress.finale = None
        screen = app.tick()
    assert screen.kind == "match_over"
    drawn.clear()
    app.tick()
    assert app.tr("turn.passed") not in [t for t, _ in drawn]
