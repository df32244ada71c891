"""The WebSocket wire's per-frame changes (``server.sockets.wire``): the small-frame
unmasker gives Autobahn's own results, a tuned transport writes at once only when
nothing is queued before (bytes keep their order), and the server's Daphne uses them."""

from __future__ import annotations

import random

from autobahn.websocket.xormasker import create_xor_masker

from server.sockets import wire


def test_the_small_masker_unmasks_as_autobahns_own_in_any_chunking():
    rng = random.Random(37)
    for _ in range(500):
        mask = rng.randbytes(4)
        payload = rng.randbytes(rng.randrange(0, 3000))
        theirs, ours = create_xor_masker(mask, len(payload)), wire.SmallXorMasker(mask)
        start, got_theirs, got_ours = 0, b"", b""
        while start < len(payload):
            end = min(len(payload), start + rng.randrange(1, 300))
            got_theirs += theirs.process(payload[start:end])
            got_ours += ours.process(payload[start:end])
            assert ours.pointer() == theirs.pointer() == end
            start = end
        assert got_ours == got_theirs
        ours.reset()
        assert ours.pointer() == 0
    assert wire.SmallXorMasker(b"\x01\x02\x03\x04").process(b"") == b""


class QueueingTransport:
    """The attributes of a Twisted TCP connection that ``eager_write`` reads; its class
    ``write`` queues, as Twisted's does, and ``writeSomeData`` takes ``accepts`` bytes."""

    def __init__(self, accepts: int | Exception = 1 << 20):
        self.connected, self.disconnecting, self._writeDisconnected = True, False, False
        self._tempDataBuffer: list[bytes] = []
        self.dataBuffer, self.offset = b"", 0
        self.accepts = accepts
        self.sent: list[bytes] = []

    def write(self, data: bytes) -> None:
        self._tempDataBuffer.append(data)

    def writeSomeData(self, data: bytes):  # noqa: N802 -- Twisted's name
        if isinstance(self.accepts, Exception):
            return self.accepts
        taken = bytes(data[: self.accepts])
        self.sent.append(taken)
        return len(taken)


def test_a_write_goes_out_at_once_when_nothing_is_queued():
    transport = QueueingTransport()
    wire.eager_write(transport, b"frame one")
    wire.eager_write(transport, b"frame two")
    assert transport.sent == [b"frame one", b"frame two"]
    assert transport._tempDataBuffer == []


def test_a_write_behind_queued_bytes_is_queued_after_them():
    transport = QueueingTransport()
    transport._tempDataBuffer = [b"waiting"]
    wire.eager_write(transport, b"next")
    assert transport._tempDataBuffer == [b"waiting", b"next"]
    transport.dataBuffer, transport.offset, transport._tempDataBuffer = b"half-sent", 4, []
    wire.eager_write(transport, b"last")
    assert transport.sent == []
    assert transport._tempDataBuffer == [b"last"]


def test_what_the_kernel_does_not_take_is_queued_and_an_error_queues_it_all():
    partial = QueueingTransport(accepts=3)
    wire.eager_write(partial, b"abcdef")
    assert partial.sent == [b"abc"] and partial._tempDataBuffer == [b"def"]
    failing = QueueingTransport(accepts=ConnectionError("gone"))
    wire.eager_write(failing, b"abcdef")  # Twisted's own write path reports the loss
    assert failing._tempDataBuffer == [b"abcdef"]
    closing = QueueingTransport()
    closing.disconnecting = True
    wire.eager_write(closing, b"x")
    assert closing.sent == [] and closing._tempDataBuffer == [b"x"]


def test_the_servers_daphne_is_tuned():
    from autobahn.twisted import websocket as twisted_websocket
    from autobahn.websocket import protocol
    from daphne import ws_protocol

    import server.asgi  # noqa: F401 -- tunes the wire as Daphne loads it

    assert ws_protocol.WebSocketFactory.protocol.tuned_wire
    assert isinstance(protocol.create_xor_masker(b"\0\0\0\1", 200), wire.SmallXorMasker)
    assert not isinstance(
        protocol.create_xor_masker(b"\0\0\0\1", wire.SMALL_FRAME + 1), wire.SmallXorMasker
    )
    assert protocol.hltype is wire._plain and twisted_websocket.hlval is wire._plain
    wire.tune_websocket_wire()  # again: nothing changes twice
    assert ws_protocol.WebSocketFactory.protocol.__mro__[1].__name__ == "WebSocketProtocol"


def test_twisted_still_has_what_the_eager_write_reads():
    """A Twisted upgrade that drops one of them turns the eager write off (connectionMade
    checks): this says so here rather than through a slower server."""
    from twisted.internet import abstract

    from server.sockets.wire import TRANSPORT_STATE

    transport = abstract.FileDescriptor()
    assert [name for name in TRANSPORT_STATE if not hasattr(transport, name)] == []
