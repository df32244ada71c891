"""Per-user settings of the table client (``clients/table/config.py``): where the file lives,
save/load round trips, and broken or unknown content falling back to the defaults."""

from __future__ import annotations

import json

import pytest

from clients.table import config
from clients.table.config import SPEED_MS, SPEEDS, Settings

DEFAULTS = Settings()


@pytest.fixture
def config_dir(tmp_path, monkeypatch):
    """``DEKABES_CONFIG_DIR`` pointing at a fresh directory (never the user's real config)."""
    folder = tmp_path / "cfg"
    monkeypatch.setenv("DEKABES_CONFIG_DIR", str(folder))
    return folder


def _write(path, content) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")


def test_defaults():
    assert DEFAULTS.lang is None  # None: from the system locale
    assert DEFAULTS.sound is True
    assert DEFAULTS.speed == "normal"
    assert tuple(DEFAULTS.window) == (1280, 800)
    assert DEFAULTS.anim_ms == SPEED_MS["normal"]


@pytest.mark.parametrize(
    "field, bad, default",
    [("computer_speed", "warp", "normal"), ("scale", "300", "auto"), ("theme", 7, "standard")],
)
def test_bad_settings_screen_values_fall_back_to_the_defaults(tmp_path, field, bad, default):
    _write(tmp_path / "table.json", {field: bad})
    assert getattr(config.load(tmp_path / "table.json"), field) == default


def test_every_settings_screen_choice_is_kept(tmp_path):
    for name, options in config.CHOICES.items():
        for value in options:
            settings = Settings()
            assert settings.choose(name, value)
            config.save(settings, tmp_path / "table.json")
            assert getattr(config.load(tmp_path / "table.json"), name) == value
    assert not Settings().choose("theme", "neon") and not Settings().choose("window", (1, 1))


def test_config_path_follows_the_environment(tmp_path, monkeypatch, config_dir):
    assert config.config_path() == config_dir / "table.json"
    monkeypatch.delenv("DEKABES_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("APPDATA", raising=False)
    if config.os.name != "nt":
        assert config.config_path() == tmp_path / "xdg" / "dekabes" / "table.json"


def test_round_trip_through_the_environment_directory(config_dir):
    saved = Settings(
        lang="ru",
        sound=False,
        speed="fast",
        computer_speed="slow",
        scale="125",
        theme="contrast",
        window=(1024, 700),
    )
    config.save(saved)
    path = config_dir / "table.json"
    assert path.is_file(), "save creates the directory and the file"
    assert not path.with_suffix(".tmp").exists(), "no temporary file left behind"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "lang": "ru",
        "sound": False,
        "speed": "fast",
        "computer_speed": "slow",
        "scale": "125",
        "theme": "contrast",
        "window": [1024, 700],
        "server": None,
        "accounts": {},
        "bots": {},
    }
    loaded = config.load()
    assert loaded == saved
    assert isinstance(loaded.window, tuple)


@pytest.mark.parametrize(
    "settings",
    [
        Settings(),
        Settings(lang="es", sound=True, speed="slow", window=(720, 540)),
        Settings(lang="ms", sound=False, speed="instant", window=(1920, 1080)),
        Settings(lang="en", speed="normal", window=(800, 600)),
    ],
)
def test_round_trip_with_an_explicit_path(tmp_path, settings):
    path = tmp_path / "deep" / "er" / "table.json"
    config.save(settings, path)
    assert config.load(path) == settings


def test_saving_again_overwrites(tmp_path):
    path = tmp_path / "table.json"
    config.save(Settings(speed="fast"), path)
    config.save(Settings(speed="slow", lang="ru"), path)
    assert config.load(path) == Settings(speed="slow", lang="ru")


def test_a_missing_file_gives_the_defaults(tmp_path, config_dir):
    assert config.load(tmp_path / "nothing-here.json") == DEFAULTS
    assert config.load() == DEFAULTS


@pytest.mark.parametrize(
    "content",
    ["", "{", "{'lang': 'ru'}", "not json at all", "\x00\x01", "[1, 2, 3]", "null", "42", '"ru"'],
)
def test_broken_content_gives_the_defaults(tmp_path, content):
    path = tmp_path / "table.json"
    _write(path, content)
    assert config.load(path) == DEFAULTS


def test_invalid_utf8_gives_the_defaults(tmp_path):
    path = tmp_path / "table.json"
    path.write_bytes(b'{"lang": "\xff\xfe"}')
    assert config.load(path) == DEFAULTS


def test_unknown_keys_are_ignored(tmp_path):
    path = tmp_path / "table.json"
    _write(path, {"lang": "es", "volume": 11, "anim_ms": 5, "next_speed": "x", "skin": "dark"})
    loaded = config.load(path)
    assert loaded == Settings(lang="es")
    assert not hasattr(loaded, "volume") and not hasattr(loaded, "skin")
    assert loaded.anim_ms == SPEED_MS["normal"]  # the property was not overwritten
    assert loaded.next_speed() == "fast"  # nor the method


@pytest.mark.parametrize("speed", ["warp", "", None, 3, "FAST", ["fast"]])
def test_a_bad_speed_is_normalised(tmp_path, speed):
    path = tmp_path / "table.json"
    _write(path, {"speed": speed, "lang": "ru"})
    loaded = config.load(path)
    assert loaded.speed == "normal"
    assert loaded.lang == "ru", "the good values next to it are kept"


@pytest.mark.parametrize("speed", SPEEDS)
def test_every_known_speed_is_kept(tmp_path, speed):
    path = tmp_path / "table.json"
    _write(path, {"speed": speed})
    assert config.load(path).speed == speed


@pytest.mark.parametrize("sound", ["yes", 0, 1, None, "false"])
def test_a_bad_sound_value_falls_back_to_on(tmp_path, sound):
    path = tmp_path / "table.json"
    _write(path, {"sound": sound})
    assert config.load(path).sound is True


@pytest.mark.parametrize(
    "window, expected",
    [
        ([1024, 700], (1024, 700)),
        ([100, 100], (720, 540)),  # never smaller than the smallest usable window
        ([2560, 200], (2560, 540)),
        (["900", "650"], (900, 650)),
        ("big", (1280, 800)),
        ([1, 2, 3], (1280, 800)),
        (None, (1280, 800)),
        ([None, 700], (1280, 800)),
        (["wide", "tall"], (1280, 800)),
    ],
)
def test_the_window_size_is_normalised(tmp_path, window, expected):
    path = tmp_path / "table.json"
    _write(path, {"window": window})
    assert config.load(path).window == expected


@pytest.mark.parametrize("lang", ["de", 42])
def test_an_unsupported_language_falls_back_to_the_system_locale(tmp_path, lang):
    path = tmp_path / "table.json"
    _write(path, {"lang": lang})
    assert config.load(path).lang in (None, "en", "es", "ru", "ms")


def test_supported_languages_are_kept(tmp_path):
    for lang in ("en", "es", "ru", "ms", None):
        path = tmp_path / f"{lang}.json"
        _write(path, {"lang": lang})
        assert config.load(path).lang == lang


def test_save_never_raises_when_the_directory_cannot_be_made(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    path = blocker / "sub" / "table.json"  # a directory below a regular file
    config.save(Settings(lang="ru"), path)  # must not raise
    assert not path.exists()
    assert config.load(path) == DEFAULTS


def test_next_speed_cycles_through_every_speed():
    settings = Settings()
    seen = [settings.speed]
    for _ in range(len(SPEEDS)):
        seen.append(settings.next_speed())
        assert settings.speed == seen[-1], "next_speed stores what it returns"
    assert seen[0] == seen[-1] == "normal", "a full cycle comes back"
    assert sorted(seen[:-1]) == sorted(SPEEDS), "every speed is visited once"
    assert seen == ["normal", "fast", "slow", "instant", "normal"]


def test_next_speed_from_a_bad_value_goes_to_normal():
    settings = Settings(speed="warp")
    assert settings.next_speed() == "normal"
    assert settings.speed == "normal"


def test_animation_time_follows_the_speed():
    assert Settings(speed="instant").anim_ms == 0
    assert (
        Settings(speed="slow").anim_ms
        > Settings(speed="normal").anim_ms
        > Settings(speed="fast").anim_ms
        > 0
    )
    assert Settings(speed="warp").anim_ms == SPEED_MS["normal"]
    assert set(SPEED_MS) == set(SPEEDS)


@pytest.mark.parametrize(
    "saved, desktops, expected",
    [
        ((1920, 1080), [(1280, 800)], (1280, 740)),  # the case: clamp to the screen
        ((1280, 800), [(1920, 1080), (800, 600)], (1280, 800)),
        ((1024, 700), [], (1024, 700)),  # no display known: as saved
        ((2000, 300), [(1024, 768)], (1024, 540)),  # never below the smallest usable size
        ((2000, 300), [(640, 480)], (640, 420)),  # ...unless the display is smaller
    ],
)
def test_a_remembered_window_is_fitted_to_the_display(saved, desktops, expected):
    assert config.fit_to_display(saved, desktops) == expected
