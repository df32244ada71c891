"""Where the deals' secrets come from: a new table's ``secret_seed`` and a duplicate
round's or a ladder pair's shared ``deal_seed``. Each is 256 bits from the operating
system's generator (``secrets``), so no player can foresee a deal.

One function for all of them so that the test suite can make each test's deals the same
in every run (``tests/conftest.py``, ``deals_of_this_test``): a rare deal that breaks a
test then breaks it every time, and can be replayed. Only the in-process test harness
replaces it; a running server has no setting that makes deals predictable."""

from __future__ import annotations

import secrets


def new_seed() -> str:
    """64 hex digits, never seen before."""
    return secrets.token_hex(32)
