"""The settings screen (issue 24): every choice taken into use at once and remembered in
the settings file; the colour-blind-safe high-contrast theme, where (as in the standard
one) a team is never told apart by colour alone; a bigger size draws tiles and text
bigger; the computer players' speed reaches the runner this machine started; Malay
says PAS. Engine folds stand in for the server (``EngineTable``)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame
import pytest

from clients.table import config
from clients.table import draw as d
from clients.table.i18n import Translator
from clients.table.ui import ChangeSetting, PickTile, Press
from tests.table.driver import ARTIFACTS
from tests.table.test_table_offline import EngineTable, match_where, tap


@pytest.fixture(autouse=True)
def _pygame():
    yield
    d.use_theme("standard")
    pygame.quit()


def _app(tmp_path, monkeypatch, m, size=(1280, 800)):
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(tmp_path))
    from clients.table.app import TableApp

    pygame.init()
    app = TableApp(EngineTable(m, [1]), config.load(), lang="en", size=size, save_settings=True)
    app.open_window()
    app.tick([])
    return app


def test_every_choice_is_taken_into_use_and_remembered(tmp_path, monkeypatch):
    m = match_where(
        lambda m: m.phase == "play" and m.to_act == 1 and len(m.seat_view(1)["line"]) >= 6
    )
    app = _app(tmp_path, monkeypatch, m)
    delays: list[float] = []
    app.on_computer_speed = delays.append  # ``--local``: the runner restarts at this delay
    tap(app, Press("settings"))
    assert app.panel.name == "settings"
    assert not any(isinstance(h.action, PickTile) for h in app.hits), "nothing behind answers"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pygame.image.save(app.window.surface, str(ARTIFACTS / "settings.png"))
    unit = min(h.rect.w for h in app.hits if isinstance(h.action, ChangeSetting))
    tap(app, ChangeSetting("sound", False))
    assert app.sound.enabled is False
    tap(app, ChangeSetting("speed", "fast"))
    assert app.settings.anim_ms == config.SPEED_MS["fast"]
    tap(app, ChangeSetting("computer_speed", "slow"))
    assert delays == [config.COMPUTER_DELAY["slow"]]
    tap(app, ChangeSetting("theme", "contrast"))
    assert d.current_theme() == "contrast"
    tap(app, ChangeSetting("lang", "ms"))
    assert app.tr.lang == "ms" and app.tr("turn.passed") == "PAS"
    tap(app, ChangeSetting("scale", "150"))  # last: the taps above are in unscaled pixels
    # 150 % does not fit 1280x800 (the board's tiles would shrink): the biggest that does.
    assert app.window.scale == 1.15 and app.window.size == (1113, 696), "drawn bigger"
    saved = config.load()
    assert (
        saved.sound,
        saved.speed,
        saved.computer_speed,
        saved.scale,
        saved.theme,
        saved.lang,
    ) == (
        False,
        "fast",
        "slow",
        "150",
        "contrast",
        "ms",
    )
    app.close_panel()
    assert app.panel.name is None
    assert unit >= 44, "every choice is a touch target"


def test_a_small_window_gets_one_button_per_setting(tmp_path, monkeypatch):
    m = match_where(lambda m: m.phase == "accept")
    app = _app(tmp_path, monkeypatch, m, size=(480, 360))
    tap(app, Press("settings"))
    choices = [h for h in app.hits if isinstance(h.action, ChangeSetting)]
    assert len(choices) == len(config.CHOICES), "one cycling button each"
    window = pygame.Rect(0, 0, 480, 360)
    assert all(window.contains(h.rect) and h.rect.h >= 44 for h in app.hits)
    before = app.settings.theme
    tap(app, choices[-1].action)  # the colours: the next theme
    assert app.settings.theme != before


@pytest.mark.parametrize("theme", config.THEMES)
def test_teams_are_never_told_apart_by_colour_alone(tmp_path, monkeypatch, theme):
    """Every place a team is named carries its mark (● A, ■ B) besides its colour."""
    m = match_where(
        lambda m: m.phase == "play" and m.to_act == 2 and len(m.seat_view(1)["line"]) >= 8
    )
    app = _app(tmp_path, monkeypatch, m)
    app.settings.theme = theme
    drawn: list[str] = []
    real = d.text

    def recording(surface, value, *args, **kwargs):
        drawn.append(str(value))
        return real(surface, value, *args, **kwargs)

    monkeypatch.setattr(d, "text", recording)
    app.progress.last_tiles = True
    app.tick([])
    team_words = [t for t in drawn if "Team A" in t or "Team B" in t]
    assert team_words, "teams are named"
    for text in team_words:
        assert ("Team A" not in text or "● Team A" in text) and (
            "Team B" not in text or "■ Team B" in text
        ), text
    if theme == "contrast":
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        pygame.image.save(app.window.surface, str(ARTIFACTS / "table-contrast.png"))
        # high contrast: black pips on white tiles, the turn in yellow on black
        assert d.IVORY == (255, 255, 255) and d.PIP == (0, 0, 0) and d.FELT_DARK == (0, 0, 0)


def test_malay_pass_is_the_domino_word():
    tr = Translator("ms")
    assert tr("turn.passed") == "PAS" and tr("btn.pass") == "Pas"
    assert "lulus" not in tr("play.pass_forced").lower()
    assert "lulus" not in tr("log.pass", seat="Tempat 2").lower()
    from clients.table.i18n.rules import RULES

    text = " ".join(" ".join(paragraphs) for _, paragraphs in RULES["ms"]).lower()
    assert "lulus" not in text and " pas" in text


# ---------------------------------------------------------------- issue 34: size, language
def _drawn_texts(monkeypatch) -> list[tuple[str, int]]:
    """Every text drawn from now on, with its size in the drawing's pixels."""
    seen: list[tuple[str, int]] = []
    real = d.text

    def recording(surface, value, pos, size=18, *args, **kwargs):
        seen.append((str(value), int(size)))
        return real(surface, value, pos, size, *args, **kwargs)

    monkeypatch.setattr(d, "text", recording)
    return seen


@pytest.mark.parametrize("window", [(1280, 800), (800, 600), (1024, 768)])
@pytest.mark.parametrize("size", ["125", "150"])
def test_a_bigger_size_never_makes_the_board_smaller_and_says_when_it_does_not_fit(
    tmp_path, monkeypatch, window, size
):
    """Issue 34, point 5: 150 % on 1280x800 drew the line's tiles ~30x14 px with garbled
    end numbers. A chosen size makes text and buttons bigger only as far as the board's
    tiles stay as big as at 100 % on screen; past that the settings say it does not fit."""
    from clients.table import layout as lay

    m = match_where(
        lambda m: m.phase == "play" and m.to_act == 1 and len(m.seat_view(1)["line"]) >= 4
    )
    app = _app(tmp_path, monkeypatch, m, size=window)
    at_100 = lay.board_unit(window)
    tap(app, Press("settings"))
    tap(app, ChangeSetting("scale", size))
    shown = app.window.scale
    assert 1.0 <= shown <= int(size) / 100
    assert lay.board_unit(app.window.size) * shown >= 0.95 * at_100, "the tiles got smaller"
    texts = _drawn_texts(monkeypatch)
    app.tick()
    wanted = int(size)
    said = [t for t, _ in texts if t.startswith(f"{wanted} % ")]
    if round(shown * 100) < wanted:
        assert said, f"{size} % on {window} shown at {shown}: the settings must say so"
    else:
        assert not said


def test_a_big_window_takes_the_whole_size_chosen(tmp_path, monkeypatch):
    m = match_where(lambda m: m.phase == "accept")
    app = _app(tmp_path, monkeypatch, m, size=(1920, 1080))
    app.open_panel("settings")  # (the window is scaled: no pixel taps here)
    app.tick()
    texts = _drawn_texts(monkeypatch)
    app.tap(ChangeSetting("scale", "150"))
    app.tick()
    assert app.window.scale == 1.5
    assert not [t for t, _ in texts if t.startswith("150 % ")]


def test_the_language_from_the_system_is_ticked(tmp_path, monkeypatch):
    """Issue 34, point 6: no language chosen, the system's English in use: "✓ English"."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "en_GB.UTF-8")
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(tmp_path))
    from clients.table.app import TableApp

    m = match_where(lambda m: m.phase == "accept")
    pygame.init()
    app = TableApp(EngineTable(m, [1]), config.Settings(), size=(1280, 800), save_settings=False)
    app.open_window()
    app.tick([])
    assert app.settings.lang is None and app.tr.lang == "en"
    tap(app, Press("settings"))
    texts = _drawn_texts(monkeypatch)
    app.tick()
    assert "✓ English" in [t for t, _ in texts]
