"""The table's tests keep sign-in tokens in the owner-only file of their own settings
folder, never in the keyring of the desktop they run on (``clients/table/tokens.py``);
the keyring's own test sets its stand-in explicitly."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _tokens_in_the_test_folder(monkeypatch):
    monkeypatch.setenv("DEKABES_TOKEN_STORE", "file")
