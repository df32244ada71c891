"""The record across ``new_match`` (issue 11.10): the finished match stays in it whole."""

from __future__ import annotations

import random

import pytest

from tests.server.conftest import Players
from tests.server.test_play import play_to_the_end

pytestmark = pytest.mark.django_db


def test_new_match_keeps_the_finished_match_s_last_hand_in_the_record():
    p = Players()
    final = play_to_the_end(p, random.Random(3))
    assert final["view"]["phase"] == "match_over"
    finished = p.owner_api.get(f"/api/tables/{p.code}/record").content.decode().splitlines()
    restarted = p.act(1, {"type": "new_match", "expected_version": final["version"]})
    assert restarted.status_code == 200, restarted.content
    after = p.owner_api.get(f"/api/tables/{p.code}/record").content.decode().splitlines()
    # Everything of the finished match is still there (the new match's first hand is not
    # over yet, so nothing of it is added).
    assert after[: len(finished)] == finished
