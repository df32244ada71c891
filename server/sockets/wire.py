"""Daphne's WebSocket wire (Autobahn on Twisted), with three per-frame costs taken out.

A move over the seat's socket is one frame in and four out (the answer and three
pushes), so what Autobahn and Twisted do per frame is paid five times a move, and it
was a fifth of the server's interpreter time per move (issue #37, py-spy). What
``tune_websocket_wire()`` (called by ``server.asgi``) changes, none of it visible on
the wire:

- **Log arguments.** Autobahn formats the arguments of its debug lines whether or not
  anything logs them: a coloured name of the method and the peer for every chunk read
  and every frame written (``hltype``/``hlval``, through ``click.style``). In its two
  protocol modules they are passed through unformatted (a debug line, when on, shows
  the plain values).
- **Unmasking a client's frame.** A client masks each frame with 4 random bytes; the
  masker Autobahn builds per frame is a C object through cffi, whose set-up costs more
  than unmasking a few hundred bytes. Frames up to ``SMALL_FRAME`` bytes are unmasked by
  one XOR of two integers (``SmallXorMasker``, the same interface and results:
  ``tests/server/test_socket_wire.py``); larger ones as before.
- **Writes.** Twisted queues every write and registers the socket with the event loop
  for writing, writes on the next turn of the loop and unregisters it: two
  ``epoll_ctl`` calls and a turn per frame. A WebSocket's transport writes at once when
  nothing is queued before it (``eager_write``) and queues only what the kernel did not
  take, so the order of bytes is kept. WebSocket connections have Nagle's algorithm off
  (Autobahn's ``tcpNoDelay``), so a frame is not held back for an earlier one's
  acknowledgement; HTTP connections keep Twisted's own writes.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)

SMALL_FRAME = 64 * 1024  # bytes: larger frames keep Autobahn's own masker


class SmallXorMasker:
    """Autobahn's masker interface (``pointer``, ``reset``, ``process``) for a frame's
    payload, unmasked with integer XOR: ``process`` may be called several times for one
    frame (its bytes arriving in several reads), each call going on from ``pointer``."""

    __slots__ = ("_mask", "_ptr")

    def __init__(self, mask: bytes) -> None:
        if len(mask) != 4:
            raise ValueError("a WebSocket mask is 4 bytes")
        self._mask = bytes(mask)
        self._ptr = 0

    def pointer(self) -> int:
        return self._ptr

    def reset(self) -> None:
        self._ptr = 0

    def process(self, data: bytes) -> bytes:
        size = len(data)
        shift = self._ptr & 3
        key = (self._mask[shift:] + self._mask[:shift]) * ((size >> 2) + 1)
        self._ptr += size
        unmasked = int.from_bytes(data, "little") ^ int.from_bytes(key[:size], "little")
        return unmasked.to_bytes(size, "little")


def _plain(value, *args, **kwargs):
    return value


# What ``eager_write`` reads of Twisted's transport (``abstract.FileDescriptor``, some of
# it private): a Twisted without one of them keeps its own writes.
TRANSPORT_STATE = (
    "connected",
    "disconnecting",
    "_writeDisconnected",
    "_tempDataBuffer",
    "offset",
    "dataBuffer",
    "writeSomeData",
)


def eager_write(transport, data: bytes) -> None:
    """``transport.write`` that sends at once when nothing is queued before ``data``
    (and queues the rest the kernel did not take, as Twisted's write would all of it)."""
    if (
        data
        and transport.connected
        and not transport.disconnecting
        and not transport._writeDisconnected
        and not transport._tempDataBuffer
        and transport.offset == len(transport.dataBuffer)
    ):
        sent = transport.writeSomeData(data)
        if isinstance(sent, int) and sent > 0:  # an error: queued, Twisted's write reports it
            if sent >= len(data):
                return
            data = data[sent:]
    type(transport).write(transport, data)


def tune_websocket_wire() -> None:
    """Apply the three changes above to this process's Daphne (idempotent). Each is
    skipped, with a warning, if the library no longer has what it replaces."""
    from autobahn.twisted import websocket as twisted_websocket
    from autobahn.websocket import protocol
    from daphne import ws_protocol

    if getattr(ws_protocol.WebSocketFactory.protocol, "tuned_wire", False):
        return
    for module in (protocol, twisted_websocket):
        if hasattr(module, "hltype") and hasattr(module, "hlval"):
            setattr(module, "hltype", _plain)  # noqa: B010 -- names mypy's stubs lack
            setattr(module, "hlval", _plain)  # noqa: B010
        else:
            log.warning("autobahn's %s has no hltype/hlval: left as it is", module.__name__)
    if hasattr(protocol, "create_xor_masker"):
        large = protocol.create_xor_masker

        def create_xor_masker(mask, length=None):
            if length is not None and length <= SMALL_FRAME:
                return SmallXorMasker(mask)
            return large(mask, length)

        protocol.create_xor_masker = create_xor_masker
    else:
        log.warning("autobahn's protocol has no create_xor_masker: left as it is")

    class TunedWebSocketProtocol(ws_protocol.WebSocketFactory.protocol):
        tuned_wire = True

        def connectionMade(self):
            super().connectionMade()  # Autobahn turns Nagle's algorithm off here
            transport = self.transport
            plain_tcp = not getattr(transport, "TLS", True)  # TLS writes through its own layer
            if plain_tcp and all(hasattr(transport, name) for name in TRANSPORT_STATE):
                transport.write = lambda data: eager_write(transport, data)

        def connectionLost(self, reason):
            if self.transport is not None:  # its own write again, and no cycle kept
                self.transport.__dict__.pop("write", None)
            super().connectionLost(reason)

    ws_protocol.WebSocketFactory.protocol = TunedWebSocketProtocol
