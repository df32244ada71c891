"""After a commit: tell the table's connections that it moved.

The message carries no view, only the version (and its group's name): each connection
then sends the views of the seats its own account holds (``consumers.TableConsumer``),
built once per version in its process for all its sockets (``pushes``: in the
committing thread when it is this process's, through ``server.tables.commits``), so no seat's
view ever travels to a connection that may not see it, and a table nobody watches costs
one small message per change.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from server.notices.groups import (
    account_group,
    challenges_group,
    club_group,
    seeks_group,
    spectate_group,
    table_group,
)
from server.notices.waits import waits

log = logging.getLogger(__name__)

# The server's event loop (set by ``http_bridge``): the request threads hand their
# pushes to it instead of running a loop of their own.
_loop: asyncio.AbstractEventLoop | None = None


def use_event_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _loop
    _loop = loop


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The server's event loop while it runs (None in a management command)."""
    loop = _loop
    return loop if loop is not None and loop.is_running() else None


def table_changed(table_id: int, version: int | None) -> None:
    """The table moved (to ``version``; None: read it again). What the committing thread
    builds before this runs is ``server.tables.commits``'s."""
    _send(table_group(table_id), {"type": "table.changed", "version": version})
    _send(spectate_group(table_id), {"type": "table.changed", "version": version})


def presence_changed(table_id: int) -> None:
    """A seat's socket opened or closed: the table's sockets send the new presence."""
    _send(table_group(table_id), {"type": "presence.changed"})
    _send(spectate_group(table_id), {"type": "presence.changed"})


def league_tables_changed(user_ids) -> None:
    """A round started or a league match ended: each account's lobby looks again."""
    for user_id in sorted(set(user_ids)):
        _send(account_group(user_id), {"type": "league.tables"})


def club_changed(club_id: int) -> None:
    """A round of the club started or one of its matches ended (its pages' version)."""
    _send(club_group(club_id), {"type": "club.changed"})


def seeks_changed() -> None:
    """A seek opened or closed: the long-polls of the open seats look again."""
    _send(seeks_group(), {"type": "seeks.changed"})


def challenges_changed(user_ids) -> None:
    """A challenge to or by these accounts was made, answered or closed."""
    for user_id in sorted(set(user_ids)):
        _send(challenges_group(user_id), {"type": "challenges.changed"})


def _send(group: str, message: dict) -> None:
    # The group's name travels with the message: one process-wide channel hears the
    # groups its long-polls wait on (``waits``) and must tell them apart.
    message = {**message, "group": group}
    if not _anyone_listening(group):
        return
    loop = _loop
    if loop is not None and loop.is_running():
        if on_server_loop():
            _deliver(group, message)
        else:  # a request thread: one hop to the loop for both (~60 µs of CPU each)
            into = getattr(_collected, "into", None)
            if into is not None and into[0] is loop:  # they go with the call's result
                into[1].append((group, message))
            else:
                loop.call_soon_threadsafe(_deliver, group, message)
        return
    waits.notice(group, message.get("version"))  # no server loop (management commands)
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # a push is a courtesy: clients resync by version over REST
        log.warning("push to %s failed", group, exc_info=True)


# A thread whose call hands its result to the loop anyway (the socket actions' thread,
# ``server.sockets.action_thread``) collects its notices to hand over with it: one
# wake-up of the loop per call instead of one more per notice.
_collected = threading.local()


def collecting(loop: asyncio.AbstractEventLoop) -> list[tuple[str, dict]]:
    """From now on this thread's notices for ``loop`` (the server's) are appended to
    the list returned, not sent, until ``stop_collecting``; the caller hands them to
    ``deliver`` on the loop."""
    notices: list[tuple[str, dict]] = []
    _collected.into = (loop, notices)
    return notices


def stop_collecting() -> None:
    _collected.into = None


def deliver(notices: list[tuple[str, dict]]) -> None:
    """On the server's loop: the notices collected (``collecting``), in their order."""
    for group, message in notices:
        try:
            _deliver(group, message)
        except Exception:  # a push is a courtesy: clients resync by version over REST
            log.warning("push to %s failed", group, exc_info=True)


def _anyone_listening(group: str) -> bool:
    """Whether a notice for ``group`` can reach anyone. Only this process can be told
    so: its parked long-polls, and on the in-memory layer its connections. With Redis
    another process may listen. Skipping the hop when nobody can spares a table nobody
    watches ~0.1 ms of CPU per action; a long-poll parking after this check still
    reads the version once it listens (``waits.wait``), so it misses nothing."""
    if waits.listening_to(group):
        return True
    layer = get_channel_layer()
    if layer is None:
        return False
    if isinstance(layer, InMemoryChannelLayer):
        return bool(layer.groups.get(group))  # its members: this process's channels
    return True


# Listeners of this process on the in-memory layer, by channel name: a table's change
# (versioned, so its order does not matter) is handed to them at once on the loop, not
# through the layer's task, copy and queue (``server.sockets.consumers.SeatHub``). Only
# there: with Redis, other processes listen on the same groups.
_here: dict[str, Callable[[dict], None]] = {}


def hear_here(channel: str, callback: Callable[[dict], None]) -> None:
    """``callback(message)`` (on the loop) instead of ``channel``'s queue, for the
    ``table.changed`` notices of groups ``channel`` is in on the in-memory layer."""
    _here[channel] = callback


def stop_hearing_here(channel: str) -> None:
    _here.pop(channel, None)


def _deliver(group: str, message: dict) -> None:
    """On the server's loop: wake this process's long-polls, then tell the channel layer
    (the connections of this process and, through Redis, of the others)."""
    waits.notice(group, message.get("version"))
    layer = get_channel_layer()
    if layer is None:
        return
    if _here and message.get("type") == "table.changed" and _handed_here(layer, group, message):
        return
    try:
        task = asyncio.ensure_future(layer.group_send(group, message))
    except Exception:
        log.warning("push to %s failed", group, exc_info=True)
        return
    task.add_done_callback(lambda done: _report(done, group))


def _handed_here(layer, group: str, message: dict) -> bool:
    """Hand ``message`` to this process's listeners in ``group`` (``hear_here``); True
    when they are all its members (nothing left for the layer to send)."""
    if not isinstance(layer, InMemoryChannelLayer):
        return False
    members = list(layer.groups.get(group, ()))
    if not members or any(channel not in _here for channel in members):
        return False
    for channel in members:
        _here[channel](message)
    return True


def on_server_loop() -> bool:
    """Whether the caller runs on the server's event loop (it must not wait on it)."""
    try:
        return asyncio.get_running_loop() is _loop
    except RuntimeError:
        return False


def _report(future, group: str) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("push to %s failed: %r", group, future.exception())
