"""The server's ASGI application, for a test that kills the server between an action's
commit and its answer: after a table's commit, while the file named by
``DEKABES_DIE_AFTER_COMMIT`` exists, the process removes it and kills itself (SIGKILL:
nothing runs after, as when the machine stops). The commit is durable; the answer
never leaves."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from server.asgi import application
from server.tables import commits

FLAG = Path(os.environ["DEKABES_DIE_AFTER_COMMIT"])


def die_if_asked(table, state) -> None:
    if FLAG.exists():
        FLAG.unlink()
        os.kill(os.getpid(), signal.SIGKILL)


commits.on_table_commit(die_if_asked, first=True)

__all__ = ["application"]
