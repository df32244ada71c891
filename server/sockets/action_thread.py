"""The thread that runs the seat sockets' actions: one trip from the event loop and back
per action, lighter than asgiref's (issue #37).

``database_sync_to_async`` (Channels' ``SyncToAsync`` that closes stale database
connections) makes each call a ``ThreadPoolExecutor`` work item (a concurrent future
with its condition, the pool's semaphore), an asyncio future chained to it, a shield,
and copies the caller's context variables into the thread and back again: about a
sixth of the interpreter's time per socket move. Here a move is one item on a queue
that one thread serves, and one callback on the loop with its result; what
``database_sync_to_async`` guarantees stays:

- **Connection hygiene**: ``close_old_connections()`` before and after each call, in
  the thread, as ``DatabaseSyncToAsync.thread_handler`` does; a failure there is the
  call's own.
- **Thread-sensitivity**: the whole call — its transaction, commit and hooks — runs on
  this one thread, which owns its database connection (Django's are per thread) and
  never runs two calls at once, as asgiref's single thread-sensitive thread does. (HTTP
  requests have threads of their own, ``server.http_bridge``: threads writing at once
  was already the case and ``locking.writing()`` serialises SQLite's writers.)
- **Context**: the call runs in a copy of the caller's context variables (what asgiref
  copies in); what it sets there is not copied back (an action sets nothing the socket
  reads afterwards). ``async_to_sync`` inside the call finds the caller's loop, as it
  does under ``SyncToAsync``.
- **Cancellation**: a cancelled caller (its socket gone) stops waiting at once, as
  under ``SyncToAsync``; the call itself runs to its end (it cannot be interrupted).

What the call's commit tells the table's connections (``notify``) is handed to the loop
with its result, in the same wake-up (``notify.collecting``), not in one of its own.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from asgiref.sync import SyncToAsync
from django.db import close_old_connections

from server.notices import notify

T = TypeVar("T")

_calls: queue.SimpleQueue = queue.SimpleQueue()
_thread: threading.Thread | None = None
_starting = threading.Lock()


async def run(func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` on the socket actions' thread; its result (or its exception)."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    if _thread is None or not _thread.is_alive():
        _start()
    _calls.put((loop, future, contextvars.copy_context(), func, args))
    return await future


def _start() -> None:
    global _thread
    with _starting:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_serve, name="socket-actions", daemon=True)
            _thread.start()


def _serve() -> None:
    local = SyncToAsync.threadlocal
    while True:
        loop, future, context, func, args = _calls.get()
        # what SyncToAsync.thread_handler tells the thread: async_to_sync inside the
        # call runs on the caller's loop
        local.main_event_loop = loop
        local.main_event_loop_pid = os.getpid()
        notices = notify.collecting(loop)
        ok = False
        try:
            close_old_connections()
            try:
                result = context.run(func, *args)
                ok = True
            finally:
                close_old_connections()
        except BaseException as err:  # the caller's, as under SyncToAsync
            result, ok = err, False
        finally:
            notify.stop_collecting()
        try:
            loop.call_soon_threadsafe(_settle, future, ok, result, notices)
        except RuntimeError:  # the loop has closed (a test's): nobody is waiting
            pass
        del loop, future, context, func, args, result, notices  # nothing kept meanwhile


def _settle(future: asyncio.Future, ok: bool, result: Any, notices: list) -> None:
    """On the loop: the call's notices first (as they would have been), then its result."""
    notify.deliver(notices)
    if future.cancelled():
        return
    if ok:
        future.set_result(result)
    else:
        future.set_exception(result)
