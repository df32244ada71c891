"""After a commit: each seat's own view goes to that seat's group (never another's)."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from server.realtime.groups import seat_group
from server.tables import projection, selectors
from server.tables.models import Seat, Table

log = logging.getLogger(__name__)


def push_table(table: Table) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    state = projection.project(table)
    seats = Seat.objects.filter(table=table, player__isnull=False).select_related("player")
    for seat in seats:
        payload = {"type": "view", **selectors.seat_response(table, seat.number, state, user=seat.player)}
        try:
            async_to_sync(layer.group_send)(seat_group(table.pk, seat.number),
                                            {"type": "seat.view", "payload": payload})
        except Exception:  # a push is a courtesy: clients resync by version over REST
            log.warning("push to table %s seat %s failed", table.code, seat.number, exc_info=True)
