"""The table writer's lock, shared by every write: the table services, the league's
services (which nest table writes) and the projection's snapshot rows."""

from __future__ import annotations

import contextlib
import threading

from django.db import DEFAULT_DB_ALIAS, connections

_sqlite_writer = threading.RLock()  # re-entrant: league actions nest table writes


def writing():
    """One writer at a time inside this process on SQLite.

    SQLite allows one writer; letting threads queue on its busy handler means sleeps
    of up to 100 ms each. A process lock hands the write lock over at once; other
    processes still meet SQLite's own lock. PostgreSQL locks the table row instead.
    """
    return _sqlite_writer if connections[DEFAULT_DB_ALIAS].vendor == "sqlite" else _NOTHING


_NOTHING = contextlib.nullcontext()  # re-entrant and stateless: one serves every caller
