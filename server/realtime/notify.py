"""After a commit: tell the table's connections that it moved.

The message carries no view, only the version: each connection then builds the views of
the seats its own account holds (``consumers.TableConsumer``), so no seat's view ever
travels to a connection that may not see it, and a table nobody watches costs one small
message per change.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from server.realtime.groups import table_group
from server.tables.models import Table

log = logging.getLogger(__name__)


def table_changed(table: Table, version: int | None) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(table_group(table.pk), {"type": "table.changed",
                                                                "version": version})
    except Exception:  # a push is a courtesy: clients resync by version over REST
        log.warning("push for table %s failed", table.code, exc_info=True)
