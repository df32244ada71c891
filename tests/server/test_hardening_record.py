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


def test_a_finished_match_shows_every_deal_even_after_a_new_match():
    """A deal voided by a redeal claim stays hidden while its match is played (it could
    come back), is shown once the match is over, and stays shown after a new match: the
    record only grows (it failed now and then above, when a random deal was claimed)."""
    from engine import Match
    from engine.events import deal_hands
    from server.tables.selectors import _public_prefix, deal_is_public
    from server.tables.table_state import TableState
    from tests.engine.helpers import self_play

    events, _ = self_play(13)  # a match with a redeal claim, played to the end
    claim = next(i for i, e in enumerate(events) if e["type"] == "claim_redeal")
    voided = deal_hands(next(e for e in reversed(events[:claim]) if e["type"] == "deal"))
    state = TableState(Match())
    for seq, event in enumerate(events, start=1):
        state.fold(seq, event)
        if seq < len(events):
            assert voided not in state.revealed  # hidden while the match is played
    assert state.match.phase == "match_over" and voided in state.revealed
    state.fold(len(events) + 1, {"type": "new_match", "seat": 1})
    voided_deal = next(e for e in reversed(events[:claim]) if e["type"] == "deal")
    assert state.match.phase != "match_over" and deal_is_public(state, voided_deal)
    later = [*events, {"type": "new_match", "seat": 1}]
    assert _public_prefix(later, state) >= len(events)  # the finished match, whole
