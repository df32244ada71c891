"""Where deals come from: the product's seeds are the system generator's, the test
suite's are drawn from each test's node id (tests/conftest.py, ``deals_of_this_test``)."""

from __future__ import annotations

import hashlib
import re

import pytest

from server.tables import seeds
from tests.conftest import DEALS
from tests.server.conftest import Players


def test_the_products_seeds_are_256_fresh_bits(monkeypatch):
    monkeypatch.undo()  # the module's own function, not the suite's
    product = seeds.new_seed
    assert product.__module__ == "server.tables.seeds"
    drawn = {product() for _ in range(200)}
    assert len(drawn) == 200
    assert all(re.fullmatch(r"[0-9a-f]{64}", seed) for seed in drawn)


@pytest.mark.django_db
def test_a_tests_tables_deal_the_same_in_every_run(request):
    first, second = Players(), Players()
    expected = [
        hashlib.sha256(f"{DEALS}:{request.node.nodeid}:{n}".encode()).hexdigest() for n in (0, 1)
    ]
    found = [p.table.secret_seed for p in (first, second)]  # as read back by Players
    assert found == expected  # drawn from the test's id, one after the other: not alike
