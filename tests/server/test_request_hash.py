"""An action's request hash (``services.request_hash``) is stored with its receipt, so its
text never changes: the fast way (orjson, for plain bodies) hashes exactly what
``json.dumps(sort_keys=True, separators=(",", ":"))`` writes, and anything orjson would
write otherwise (escapes, non-ASCII, big integers, floats, booleans) goes that way."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from server.tables.services import request_hash


def reference(seat: int, body: dict) -> str:
    canonical = json.dumps({"seat": seat, **body}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@pytest.mark.parametrize(
    "body",
    [
        {"type": "play", "expected_version": 12, "tile": "3-5", "end": "left"},
        {"type": "pass", "expected_version": 0, "end": None},
        {"type": "choose_opener", "expected_version": 7, "opener": 2},
        {"type": "play", "expected_version": 2**63 - 1, "tile": "6-6"},
        {"type": "play", "expected_version": 2**64, "tile": "6-6"},  # past orjson's integers
        {"type": "play", "expected_version": -(2**70)},
        {"type": "play", "expected_version": 1, "tile": 'a"b'},
        {"type": "play", "expected_version": 1, "tile": "a\\b"},
        {"type": "play", "expected_version": 1, "tile": "é"},
        {"type": "play", "expected_version": 1, "tile": "\u2028"},
        {"type": "play", "expected_version": 1, "tile": "\x7f"},
        {"type": "play", "expected_version": 1, "tile": "\x00\x1f\n\t"},
        {"type": "play", "expected_version": 1, "tile": "</s>"},
        {"type": "play", "expected_version": True},
        {"type": "play", "expected_version": 1.0, "opener": 1e16},
        {"type": "play", "expected_version": 1, "tile": ["3", 5]},
        {"type": "play", "expected_version": 1, "tile": {"b": 1, "a": 2}},
    ],
)
def test_the_hash_is_the_canonical_json_ones(body):
    for seat in (1, 4):
        assert request_hash(seat, body) == reference(seat, body)


def test_random_bodies_hash_alike():
    rng = random.Random(37)
    alphabet = [chr(c) for c in range(0x80)] + ["é", "\u2028", "\U0001f600"]
    for _ in range(5000):
        body: dict = {"type": "play", "expected_version": rng.choice([0, 9, 2**63, 2**64])}
        if rng.random() < 0.8:
            body["tile"] = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5)))
        if rng.random() < 0.5:
            body["end"] = rng.choice([None, "left", "right"])
        seat = rng.randint(1, 4)
        assert request_hash(seat, body) == reference(seat, body), body
