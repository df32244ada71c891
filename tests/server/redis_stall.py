"""A TCP relay between a test's server and the real Redis that the test can stall.

``CLIENT PAUSE`` would stall Redis for every process that shares it (the other test
processes, other checkouts' servers): a stall longer than their read timeouts would make
their own sockets fail. Stalling here holds only the bytes of the connections that go
through the relay, both ways, as a frozen network path or a Redis too busy to answer
would: the commands and replies are still Redis's own, only late.
"""

from __future__ import annotations

import select
import socket
import threading
from urllib.parse import urlsplit, urlunsplit


class StallingRelay:
    def __init__(self, redis_url: str) -> None:
        parts = urlsplit(redis_url)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self._listener = socket.create_server(("127.0.0.1", 0))
        port = self._listener.getsockname()[1]
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = f"{userinfo}@127.0.0.1:{port}" if userinfo else f"127.0.0.1:{port}"
        self.url = urlunsplit(parts._replace(netloc=netloc))  # same db, same options
        self._flowing = threading.Event()
        self._flowing.set()
        self._refusing = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.held = 0  # chunks that waited for the end of a stall
        threading.Thread(target=self._accept, name="redis-relay", daemon=True).start()

    def stall(self) -> None:
        """From now on no byte is passed on, either way, until ``resume``."""
        self._flowing.clear()

    def resume(self) -> None:
        self._refusing.clear()
        self._flowing.set()

    def refuse(self) -> None:
        """Reset every connection open now, and each new one at once, until ``resume``:
        a Redis down for a while."""
        self._refusing.set()
        self.cut()

    def cut(self) -> None:
        """Reset every connection open now, as a Redis restart would (new ones pass)."""
        with self._lock:
            open_now, self._sockets = self._sockets, []
        for sock in open_now:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self._closed.set()
        self._flowing.set()
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                try:
                    sock.close()
                except OSError:
                    pass
            self._sockets.clear()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
                if self._refusing.is_set():
                    client.close()
                    continue
                upstream = socket.create_connection(self.target)
            except OSError:
                return  # the listener closed (or Redis refused: the client sees a reset)
            with self._lock:
                self._sockets += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while not self._closed.is_set():
                ready, _, _ = select.select([src], [], [], 0.2)
                if not ready:
                    continue
                data = src.recv(65536)
                if not data:
                    break
                if not self._flowing.is_set():
                    with self._lock:
                        self.held += 1
                    self._flowing.wait()
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
