"""Options of the server's own Redis clients (presence leases, rate-limit counts), which
the request path waits on: they wait out a Redis stall as the channel layer does.

redis-py's defaults read for 5 s: a Redis stalled longer (busy, a network hiccup) made
every REST request that touched it (a seat's view or action: the presence lease) fail
with 500 after 5 s, while the sockets went on (``tests/server/test_redis_stall_rest.py``).
Now a request waits up to ``DEKABES_REDIS_STALL_SECONDS`` (10) for Redis; past that it
answers ``503 server_busy`` (``server.errors``), having written nothing, and a retry
with its Idempotency-Key is safe.
"""

from __future__ import annotations

import os


def stall_seconds() -> float:
    """How long a Redis that does not answer is waited for (``DEKABES_REDIS_STALL_SECONDS``)."""
    return float(os.environ.get("DEKABES_REDIS_STALL_SECONDS", "10"))


def client_options() -> dict:
    """Connection options for a synchronous redis-py client (a new ``Retry`` each call)."""
    from redis.backoff import ExponentialWithJitterBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.retry import Retry

    return {
        "socket_timeout": stall_seconds(),
        # a dropped connection (a Redis restart) is tried again on a new one; a command
        # that timed out is not: the stall's bound is the whole wait
        "retry": Retry(
            ExponentialWithJitterBackoff(base=0.01, cap=1),
            retries=3,
            supported_errors=(RedisConnectionError,),
        ),
    }
