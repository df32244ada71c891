"""Where the sign-in tokens live: as the platform expects, never in the settings file.

- **The platform's keyring** where one answers (``keyring``: the Secret Service of GNOME
  or KDE on Linux, the macOS Keychain, the Windows Credential Manager): service
  ``dekabes``, one entry per server and account.
- Else **a file only the user may read**: ``tokens.json`` beside the settings
  (``config.config_dir()``), written owner-only (0600) in an owner-only folder (0700),
  from its first byte (never world- or group-readable, not even for a moment).

``DEKABES_TOKEN_STORE`` chooses: ``keyring``, ``file`` or ``auto`` (the default: the
keyring when a real one answers, else the file). The settings file keeps the server and
the account's name; ``config.load`` asks here for the token and ``config.save`` hands it
back, so the rest of the client sees the settings as before. A token is never shown:
nothing here prints, logs or draws one.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Protocol

SERVICE = "dekabes"


class TokenStore(Protocol):
    kind: str  # "keyring" | "file"

    def get(self, key: str) -> str | None: ...
    def put(self, key: str, token: str) -> None: ...
    def delete(self, key: str) -> None: ...


def account_key(server: str, username: str) -> str:
    """The entry of one account on one server ("http://host:8000 ann")."""
    return f"{server} {username}"


def bot_key(server: str, level: str) -> str:
    """The entry of one's own computer player of a level on a server."""
    return f"{server} bot:{level}"


class FileTokens:
    """``tokens.json`` in ``folder``: {key: token}, owner-only."""

    kind = "file"

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / "tokens.json"

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def _write(self, data: dict[str, str]) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(json.dumps(data, indent=2))
        os.chmod(tmp, 0o600)  # an older tmp file may have had other bits
        os.replace(tmp, self.path)

    def get(self, key: str) -> str | None:
        return self._read().get(key)

    def put(self, key: str, token: str) -> None:
        data = self._read()
        if data.get(key) != token:
            data[key] = token
            self._write(data)

    def delete(self, key: str) -> None:
        data = self._read()
        if data.pop(key, None) is not None:
            self._write(data)


class KeyringTokens:
    """The platform's keyring (``keyring``), service ``SERVICE``."""

    kind = "keyring"

    def __init__(self) -> None:
        import keyring

        self._keyring = keyring

    def get(self, key: str) -> str | None:
        value: str | None = self._keyring.get_password(SERVICE, key)
        return value

    def put(self, key: str, token: str) -> None:
        if self.get(key) != token:
            self._keyring.set_password(SERVICE, key, token)

    def delete(self, key: str) -> None:
        from keyring.errors import PasswordDeleteError

        try:
            self._keyring.delete_password(SERVICE, key)
        except PasswordDeleteError:
            pass  # not there: nothing to forget


def keyring_answers() -> bool:
    """Is a real keyring there (not keyring's "fail" or "null" stand-ins)? On a Linux
    box without a Secret Service (a server, a bare X session) there is none."""
    if sys.platform.startswith("linux") and not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        # Linux keyrings (the Secret Service, KWallet) answer on the session bus: with
        # none there is no keyring, and loading keyring's backends costs a second.
        return False
    try:
        import keyring
        from keyring.backends import chainer, fail

        backend = keyring.get_keyring()
    except Exception:  # not installed, or its backends failed to load
        return False
    if isinstance(backend, fail.Keyring) or "null" in type(backend).__module__:
        return False
    if isinstance(backend, chainer.ChainerBackend):
        return bool(backend.backends)
    return True


def token_store(folder: Path) -> TokenStore:
    """The store in use (``DEKABES_TOKEN_STORE``: keyring / file / auto)."""
    wanted = os.environ.get("DEKABES_TOKEN_STORE", "auto").strip().lower()
    if wanted == "keyring" or (wanted == "auto" and keyring_answers()):
        return KeyringTokens()
    return FileTokens(folder)
