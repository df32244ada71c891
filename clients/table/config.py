"""Per-user settings of the table client, kept in a small JSON file.

Where: ``$DEKABES_CONFIG_DIR/table.json`` if set, else ``$XDG_CONFIG_HOME/dekabes/table.json``
(``~/.config/dekabes/table.json``), or ``%APPDATA%\\dekabes\\table.json`` on Windows.
Unknown or broken content falls back to the defaults; the file is rewritten on change,
owner-only (0600) in a 0700 directory. It names the lobby's server and account (and the
player's own computer players) but holds no token: those live where the platform keeps
secrets (``tokens.py``: the keyring, else an owner-only ``tokens.json`` beside it).
``load`` fills the ``token`` of each account from there (moving any token an older
settings file held), ``save`` hands them back, so the rest of the client reads
``settings.accounts[server]["token"]`` as before.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from clients.table import tokens
from clients.table.i18n.catalog import LANGUAGES

SPEEDS = ("normal", "fast", "slow", "instant")
SPEED_MS = {"slow": 300, "normal": 220, "fast": 150, "instant": 0}
# Seconds before each move of the computer players this machine starts (``--local``,
# the lobby's own computer players).
COMPUTER_SPEEDS = ("slow", "normal", "fast")
COMPUTER_DELAY = {"slow": 1.4, "normal": 0.7, "fast": 0.3}
# The smallest window the table is usable in: the line of play's tiles are 14 px across
# there (``layout.board_unit``; at 480×360 they were 5 px, a line a few pixels high).
# The window cannot be made smaller (``window.open_window``), unless the display is.
MIN_WINDOW = (720, 540)
# The size of tiles and text: "auto" grows with a big window; a percentage draws the
# table that much bigger (a smaller drawing scaled up to the window).
SCALES = ("auto", "100", "125", "150")
THEMES = ("standard", "contrast")  # contrast: colour-blind safe and high contrast
# What the settings screen offers, in its order (``lang`` from the catalogue).
CHOICES: dict[str, tuple[object, ...]] = {
    "lang": LANGUAGES,
    "sound": (True, False),
    "speed": ("slow", "normal", "fast", "instant"),
    "computer_speed": COMPUTER_SPEEDS,
    "scale": SCALES,
    "theme": THEMES,
}


def config_dir() -> Path:
    """The user's folder of the table's settings (and token file, where there is no
    keyring), as ``config_path`` says."""
    return config_path().parent


def config_path() -> Path:
    if os.environ.get("DEKABES_CONFIG_DIR"):
        return Path(os.environ["DEKABES_CONFIG_DIR"]) / "table.json"
    if os.name == "nt" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "dekabes" / "table.json"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "dekabes" / "table.json"


@dataclass
class Settings:
    lang: str | None = None  # None: from the system locale
    sound: bool = True
    speed: str = "normal"  # animations
    computer_speed: str = "normal"
    scale: str = "auto"
    theme: str = "standard"
    window: tuple[int, int] = (1280, 800)
    server: str | None = None  # the lobby's server address, remembered
    accounts: dict = field(default_factory=dict)  # server -> {"username", "token"}
    bots: dict = field(default_factory=dict)  # server -> {level: {"username", "token"}}

    def account(self, server: str | None) -> dict | None:
        entry = self.accounts.get(server or "")
        return entry if entry and entry.get("token") else None

    @property
    def anim_ms(self) -> int:
        return SPEED_MS.get(self.speed, 220)

    @property
    def computer_delay(self) -> float:
        return COMPUTER_DELAY.get(self.computer_speed, 0.7)

    def choose(self, name: str, value: object) -> bool:
        """Set one of the settings screen's choices (``CHOICES``); False if not one."""
        if name not in CHOICES or value not in CHOICES[name]:
            return False
        setattr(self, name, value)
        return True

    def next_choice(self, name: str) -> object:
        """The choice after the current one (a cycling button)."""
        options = CHOICES[name]
        current = getattr(self, name)
        index = options.index(current) if current in options else -1
        return options[(index + 1) % len(options)]

    def next_speed(self) -> str:
        self.speed = (
            SPEEDS[(SPEEDS.index(self.speed) + 1) % len(SPEEDS)]
            if self.speed in SPEEDS
            else "normal"
        )
        return self.speed


def load(path: Path | None = None, with_tokens: bool = True) -> Settings:
    """The settings of ``path`` (the user's by default); ``with_tokens=False`` leaves
    the token store alone (the first window's size needs none of it)."""
    path = path or config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    known = {f.name for f in fields(Settings)}
    settings = Settings()
    for key, value in data.items():
        if key in known:
            setattr(settings, key, value)
    if settings.speed not in SPEEDS:
        settings.speed = "normal"
    if settings.computer_speed not in COMPUTER_SPEEDS:
        settings.computer_speed = "normal"
    if settings.scale not in SCALES:
        settings.scale = "auto"
    if settings.theme not in THEMES:
        settings.theme = "standard"
    if settings.lang is not None and settings.lang not in LANGUAGES:
        settings.lang = None  # unknown: the system locale decides, as if unset
    if not isinstance(settings.server, str) or not settings.server.strip():
        settings.server = None
    settings.accounts = _string_maps(settings.accounts, ("username",))
    settings.bots = (
        {
            url: levels
            for url, levels in (settings.bots or {}).items()
            if isinstance(url, str) and isinstance(levels, dict)
        }
        if isinstance(settings.bots, dict)
        else {}
    )
    for url, levels in settings.bots.items():
        settings.bots[url] = _string_maps(levels, ("username",))
    if with_tokens:
        _fill_tokens(settings, data, path)
    if not isinstance(settings.sound, bool):
        settings.sound = True
    try:
        w, h = settings.window
        settings.window = (max(MIN_WINDOW[0], int(w)), max(MIN_WINDOW[1], int(h)))
    except (TypeError, ValueError):
        settings.window = (1280, 800)
    return settings


def _string_maps(value, keys: tuple[str, ...]) -> dict:
    """{name: {key: str, ...}} entries with every key a string (and a ``token`` when the
    entry has one, from an older file); anything else dropped."""
    if not isinstance(value, dict):
        return {}
    return {
        name: {k: entry[k] for k in (*keys, "token") if isinstance(entry.get(k), str)}
        for name, entry in value.items()
        if isinstance(name, str)
        and isinstance(entry, dict)
        and all(isinstance(entry.get(k), str) for k in keys)
    }


# The token entries each settings file had when it was last read or written (to forget
# the ones of a signed-out account).
_KNOWN: dict[Path, set[str]] = {}


def _token_entries(settings: Settings) -> dict[str, dict]:
    """Each account and own computer player of the settings by its token entry's key."""
    found = {
        tokens.account_key(server, entry["username"]): entry
        for server, entry in settings.accounts.items()
    }
    for server, levels in settings.bots.items():
        for level, entry in levels.items():
            found[tokens.bot_key(server, level)] = entry
    return found


def _fill_tokens(settings: Settings, data: dict, path: Path) -> None:
    """Each entry's token from the token store; a token an older settings file held is
    moved there and the file is written again without it."""
    store = _store(path)
    moved = False
    entries = _token_entries(settings)
    for key, entry in entries.items():
        if entry.get("token"):
            store.put(key, entry["token"])
            moved = True
        else:  # (a keyring that refused once left it in the file: look there too)
            entry["token"] = store.get(key) or tokens.FileTokens(path.parent).get(key) or ""
    _KNOWN[path] = set(entries)
    if moved:
        save(settings, path)


def _store(path: Path) -> tokens.TokenStore:
    try:
        return tokens.token_store(path.parent)
    except Exception:  # a keyring that fails to load: the owner-only file
        return tokens.FileTokens(path.parent)


DISPLAY_MARGIN = (0, 60)  # px left for a title bar and a panel of the desktop


def fit_to_display(size: tuple[int, int], desktops: list[tuple[int, int]]) -> tuple[int, int]:
    """A remembered window size that fits the (first) display, so the window never opens
    partly off-screen; never below the smallest usable window (``MIN_WINDOW``) unless
    the display itself is smaller (``minimum_window``)."""
    w, h = (int(v) for v in size)
    low_w, low_h = minimum_window(desktops)
    if desktops:
        dw, dh = desktops[0]
        w = min(w, dw - DISPLAY_MARGIN[0])
        h = min(h, dh - DISPLAY_MARGIN[1])
    return max(low_w, w), max(low_h, h)


def minimum_window(desktops: list[tuple[int, int]]) -> tuple[int, int]:
    """The smallest the window may be made: ``MIN_WINDOW``, or what the (first) display
    leaves of it when that display is smaller."""
    w, h = MIN_WINDOW
    if desktops:
        dw, dh = desktops[0]
        w, h = min(w, dw - DISPLAY_MARGIN[0]), min(h, dh - DISPLAY_MARGIN[1])
    return max(1, w), max(1, h)


def save(settings: Settings, path: Path | None = None) -> None:
    path = path or config_path()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        data = asdict(settings)
        _keep_tokens(settings, path)
        for entry in data["accounts"].values():
            entry.pop("token", None)
        for levels in data["bots"].values():
            for entry in levels.values():
                entry.pop("token", None)
        tmp = path.with_suffix(".tmp")
        # Owner-only from the first byte: the file names the accounts it signs in.
        descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(json.dumps(data, indent=2))
        os.chmod(tmp, 0o600)  # an older tmp file may have had other bits
        os.replace(tmp, path)
    except OSError:
        pass  # settings are a comfort: never stop the game over them


def _keep_tokens(settings: Settings, path: Path) -> None:
    """Hand each token to the token store; forget those of accounts no longer here."""
    store = _store(path)
    entries = _token_entries(settings)
    try:
        for key, entry in entries.items():
            if entry.get("token"):
                store.put(key, entry["token"])
        for key in _KNOWN.get(path, set()) - set(entries):
            store.delete(key)
    except Exception:  # a keyring that refuses (locked, gone): the owner-only file
        if store.kind == "file":
            raise
        fallback = tokens.FileTokens(path.parent)
        for key, entry in entries.items():
            if entry.get("token"):
                fallback.put(key, entry["token"])
    _KNOWN[path] = set(entries)
