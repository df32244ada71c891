"""Sign-in tokens are kept as the platform expects (issue 34): in the keyring where one
answers, else in an owner-only file beside the settings; never in the settings file,
never readable by the group or others, forgotten on sign-out; an older settings file's
tokens are moved out of it."""

from __future__ import annotations

import json
import stat

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from clients.table import config, tokens

SERVER = "http://192.168.1.20:8000"
TOKEN = "9f2c1e0b7a6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b"


class HeldKeyring(KeyringBackend):
    """A keyring backend that keeps its entries in memory (keyring's own backend API,
    as the Secret Service, Keychain and Credential Manager backends implement it)."""

    # Below zero: never chosen by keyring on its own (every subclass is registered),
    # only where a test sets it.
    priority = -1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.entries.get((service, username))

    def set_password(self, service, username, password):
        self.entries[(service, username)] = password

    def delete_password(self, service, username):
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


def _signed_in() -> config.Settings:
    settings = config.Settings(server=SERVER)
    settings.accounts[SERVER] = {"username": "ann", "token": TOKEN}
    settings.bots[SERVER] = {"strong": {"username": "ann-strong", "token": TOKEN[::-1]}}
    return settings


def _modes(path) -> tuple[int, int]:
    return stat.S_IMODE(path.stat().st_mode), stat.S_IMODE(path.parent.stat().st_mode)


def test_without_a_keyring_the_tokens_go_to_an_owner_only_file(tmp_path, monkeypatch):
    monkeypatch.setenv("DEKABES_TOKEN_STORE", "auto")
    monkeypatch.setattr(tokens, "keyring_answers", lambda: False)
    path = tmp_path / "cfg" / "table.json"
    config.save(_signed_in(), path)
    assert TOKEN not in path.read_text() and TOKEN[::-1] not in path.read_text()
    saved = json.loads(path.read_text())
    assert saved["server"] == SERVER and saved["accounts"][SERVER] == {"username": "ann"}
    kept = tmp_path / "cfg" / "tokens.json"
    assert _modes(kept) == (0o600, 0o700) and _modes(path)[0] == 0o600
    assert TOKEN in kept.read_text()
    again = config.load(path)
    assert again.account(SERVER) == {"username": "ann", "token": TOKEN}
    assert again.bots[SERVER]["strong"]["token"] == TOKEN[::-1]
    # Signed out: the account and its token are forgotten.
    again.accounts.pop(SERVER)
    config.save(again, path)
    assert TOKEN not in kept.read_text() and config.load(path).account(SERVER) is None


def test_with_a_keyring_no_token_is_written_to_a_file(tmp_path, monkeypatch):
    held = HeldKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(held)
    try:
        monkeypatch.setenv("DEKABES_TOKEN_STORE", "auto")
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
        assert tokens.keyring_answers()
        path = tmp_path / "cfg" / "table.json"
        config.save(_signed_in(), path)
        assert held.entries[("dekabes", f"{SERVER} ann")] == TOKEN
        assert held.entries[("dekabes", f"{SERVER} bot:strong")] == TOKEN[::-1]
        assert not (tmp_path / "cfg" / "tokens.json").exists()
        for written in (tmp_path / "cfg").iterdir():
            assert TOKEN not in written.read_text(), written
        assert config.load(path).account(SERVER)["token"] == TOKEN
        settings = config.load(path)
        settings.accounts.pop(SERVER)
        config.save(settings, path)
        assert ("dekabes", f"{SERVER} ann") not in held.entries
    finally:
        keyring.set_keyring(previous)


def test_an_older_settings_file_s_tokens_are_moved_out_of_it(tmp_path, monkeypatch):
    monkeypatch.setenv("DEKABES_TOKEN_STORE", "file")
    path = tmp_path / "table.json"
    path.write_text(
        json.dumps({"server": SERVER, "accounts": {SERVER: {"username": "ann", "token": TOKEN}}})
    )
    path.chmod(0o600)
    settings = config.load(path)
    assert settings.account(SERVER) == {"username": "ann", "token": TOKEN}
    assert TOKEN not in path.read_text(), "the token was left in the settings file"
    assert TOKEN in (tmp_path / "tokens.json").read_text()


def test_without_a_session_bus_linux_has_no_keyring(tmp_path, monkeypatch):
    monkeypatch.setenv("DEKABES_TOKEN_STORE", "auto")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setattr(tokens.sys, "platform", "linux")
    assert not tokens.keyring_answers() and tokens.token_store(tmp_path).kind == "file"


def test_this_machine_has_no_keyring_so_auto_is_the_file(tmp_path, monkeypatch):
    # A Linux box without a Secret Service (this one, CI): keyring's fail backend.
    monkeypatch.setenv("DEKABES_TOKEN_STORE", "auto")
    if tokens.keyring_answers():
        pytest.skip("a keyring answers on this machine")
    assert tokens.token_store(tmp_path).kind == "file"
