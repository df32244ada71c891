"""The lazy seat view (``Match.view``) and the listed legal events: same content as the
dict view, a snapshot of its moment, and no shortcut for an edited event."""

from __future__ import annotations

import json
import random

import pytest

from engine import IllegalEventError, Match
from engine.autoplay import autoplay, bot_players, new_bot_match
from tests.engine.helpers import self_play

SEATS = (1, 2, 3, 4)


def test_the_lazy_view_has_the_dict_views_content_at_every_step():
    events, _ = self_play(13, max_events=400, commands=True)
    m = Match()
    for event in events:
        m.apply(event)
        for seat in SEATS:
            lazy = m.view(seat)
            assert dict(lazy) == m.seat_view(seat) == lazy
            assert list(lazy) == list(m.seat_view(seat))
            assert json.loads(json.dumps(dict(lazy))) == dict(lazy)


def test_a_lazy_view_kept_across_events_still_shows_its_moment():
    events, _ = self_play(17, max_events=300, commands=True)
    m = Match()
    kept = []
    for event in events:
        m.apply(event)
        kept.append((m.view(1), m.seat_view(1), m.view(3)["phase"]))
    for lazy, snapshot, _ in kept:
        assert dict(lazy) == snapshot


def test_an_edited_listed_event_gets_every_check():
    m = new_bot_match()
    autoplay(
        m,
        bot_players(["random"] * 4, [random.Random(i) for i in range(4)]),
        random.Random(3),
        stop=lambda m: (
            m.phase == "play" and m.forced_pass() is None and len(m.view(m.to_act)["hand"]) < 6
        ),
    )
    seat = m.to_act
    legal = m.view(seat)["legal"]
    event = legal[0]
    hand = m.seat_view(seat)["hand"]
    not_mine = next(
        t for t in ("0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6", "0-1") if t not in hand
    )
    event["tile"] = not_mine
    with pytest.raises(IllegalEventError) as err:
        m.apply(event)
    assert err.value.code in ("tile_not_in_hand", "tile_does_not_fit")
    legal = m.view(seat)["legal"]
    legal[0]["seat"] = True  # True == 1, but it is no seat number
    with pytest.raises(IllegalEventError) as err:
        m.apply(legal[0])
    assert err.value.code == "bad_event"
    legal = m.view(seat)["legal"]
    before = m.seat_view(seat)
    m.apply(legal[-1])  # an untouched listed event is applied
    assert m.seat_view(seat)["turns"][-1]["tile"] == legal[-1]["tile"]
    assert m.seat_view(seat) != before


def test_autoplay_plays_whole_matches_and_single_hands():
    m = new_bot_match()
    players = bot_players(
        ["greedy", "random", "medium", "random"], [random.Random(i) for i in range(4)]
    )
    seen = []
    autoplay(m, players, random.Random(5), until="hand", on_event=seen.append)
    assert m.hands_finished == 1 and m.last_result == m.results[0]
    assert (
        Match.from_events(
            [{"type": "match_started", "seats": {str(s): "bot" for s in SEATS}, "rated": False}]
            + seen
        ).summary()
        == m.summary()
    )
    autoplay(m, players, random.Random(5))
    assert m.phase == "match_over" and m.summary()["winner"] in ("A", "B")
