"""After a table's commit: what this process builds from the new state, then the notice.

The builders (``on_table_commit``) run in the committing thread while it still holds the
new state: the socket pushes (``server.sockets.pushes``) and the spectators' frame
(``server.league.spectate``) register one each, so this process's sockets need no trip
to a thread of their own. Then ``notify`` tells the table's connections and long-polls
that it moved (by the table's id: the notices sit below the tables and know no model).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from server.notices import notify
from server.tables.models import Table

log = logging.getLogger(__name__)

_prebuilders: list[Callable[[Table, object], None]] = []


def on_table_commit(builder: Callable[[Table, object], None], first: bool = False) -> None:
    """Run ``builder(table, state)`` in the committing thread after each commit
    (``first``: before the builders already registered; the spectator bench's timer)."""
    if builder not in _prebuilders:
        _prebuilders.insert(0 if first else len(_prebuilders), builder)


def table_committed(table: Table, version: int | None, state: object | None = None) -> None:
    """The table moved (to ``version``; ``state``: the committed state, when the caller
    holds it)."""
    if state is not None:
        for build in _prebuilders:
            try:
                build(table, state)
            except Exception:  # a push is a courtesy: the sockets build it themselves
                log.warning("pushes for %s not prebuilt", table.code, exc_info=True)
    notify.table_changed(table.pk, version)
