"""After a commit: tell the table's connections that it moved.

The message carries no view, only the version: each connection then builds the views of
the seats its own account holds (``consumers.TableConsumer``), so no seat's view ever
travels to a connection that may not see it, and a table nobody watches costs one small
message per change.
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from server.realtime.groups import table_group
from server.tables.models import Table

log = logging.getLogger(__name__)

# The server's event loop (set by ``http_bridge``): the request threads hand their
# pushes to it instead of running a loop of their own.
_loop: asyncio.AbstractEventLoop | None = None


def use_event_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _loop
    _loop = loop


def table_changed(table: Table, version: int | None) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    message = {"type": "table.changed", "version": version}
    try:
        if _loop is not None and _loop.is_running() and not _on_loop():
            future = asyncio.run_coroutine_threadsafe(
                layer.group_send(table_group(table.pk), message), _loop)
            future.add_done_callback(lambda f: _report(f, table))
        else:
            async_to_sync(layer.group_send)(table_group(table.pk), message)
    except Exception:  # a push is a courtesy: clients resync by version over REST
        log.warning("push for table %s failed", table.code, exc_info=True)


def _on_loop() -> bool:
    try:
        return asyncio.get_running_loop() is _loop
    except RuntimeError:
        return False


def _report(future, table: Table) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("push for table %s failed: %r", table.code, future.exception())
