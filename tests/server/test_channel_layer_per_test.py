"""Why each test gets a Redis channel layer of its own (tests/conftest.py,
``drop_redis_channel_layers``): a channels_redis layer kept from a test whose receive was
cancelled at the wrong moment fails the receives of the next test's event loop."""

from __future__ import annotations

import asyncio
import os

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from tests.conftest import drop_redis_channel_layers

pytestmark = pytest.mark.backend


@pytest.fixture
def redis_layer():
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL not set: Redis channel layer not tested")
    drop_redis_channel_layers()
    yield get_channel_layer()


def a_cancelled_receive_on_its_own_loop(layer) -> None:
    """What a socket closing at the wrong moment leaves: a receive waiting for the
    channel's receive lock (the previous receive's backup cleaner holds it) cancelled."""

    async def run():
        channel = await layer.new_channel()
        key = layer.prefix + layer.non_local_name(channel)
        locks = layer.receive_clean_locks
        await locks.acquire(key)  # the previous receive's cleaner
        waiting = asyncio.ensure_future(locks.acquire(key))  # the next receive
        await asyncio.sleep(0)
        waiting.cancel()  # its socket closed
        await asyncio.gather(waiting, return_exceptions=True)
        locks.release(key)  # the cleaner done

    async_to_sync(run)()


def two_receives_on_a_new_loop(layer) -> list[dict]:
    async def run():
        channel = await layer.new_channel()
        for n in (1, 2):
            await layer.send(channel, {"type": "test.message", "n": n})
        return [await layer.receive(channel), await layer.receive(channel)]

    return async_to_sync(run)()


def test_a_layer_kept_across_loops_fails_the_next_loops_receives(redis_layer):
    """The library's behaviour this works around: should this test fail, channels_redis
    has mended it and ``drop_redis_channel_layers`` may go."""
    a_cancelled_receive_on_its_own_loop(redis_layer)
    with pytest.raises(RuntimeError, match="bound to a different event loop"):
        two_receives_on_a_new_loop(redis_layer)


def test_after_the_drop_the_next_loop_has_a_layer_that_receives(redis_layer):
    a_cancelled_receive_on_its_own_loop(redis_layer)
    drop_redis_channel_layers()
    layer = get_channel_layer()
    assert layer is not redis_layer
    assert [m["n"] for m in two_receives_on_a_new_loop(layer)] == [1, 2]
