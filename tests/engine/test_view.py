"""The seat view holds what the seat may know: identical across hidden reshuffles."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Match
from tests.engine.helpers import self_play

SEATS = (1, 2, 3, 4)


def current_hand_deal_index(events: list[dict]) -> int:
    return max(i for i, e in enumerate(events) if e["type"] == "deal")


def reshuffled(events: list[dict], seat: int, rng: random.Random) -> list[dict] | None:
    """The same public history with the tiles ``seat`` cannot see spread differently.

    Each other seat keeps the tiles it played this hand and its number of tiles; the
    unseen remainder is dealt again to the other seats, respecting the numbers their
    passes ruled out. In a first hand whose 6-6 is still in a hand, its holder is public
    (that seat must open with it), so 6-6 stays where it is. None when no different
    spread exists.
    """
    m = Match.from_events(events)
    view = m.seat_view(seat)
    if m.phase not in ("accept", "choose_opener", "play"):
        return None
    others = [s for s in SEATS if s != seat]
    remaining = {s: list(m.summary()["hands_left"][str(s)]) for s in others}
    pinned = {s: "6-6" for s in others if "6-6" in remaining[s]}
    pool = [t for s in others for t in remaining[s] if t != pinned.get(s)]
    for _ in range(50):
        rng.shuffle(pool)
        start, fresh, ok = 0, {}, True
        for s in others:
            size = len(remaining[s]) - (s in pinned)
            take = pool[start : start + size] + ([pinned[s]] if s in pinned else [])
            start += size
            lacks = set(view["lacks"][str(s)])
            if any(int(x) in lacks for t in take for x in t.split("-")):
                ok = False
                break
            fresh[s] = take
        if ok and any(sorted(fresh[s]) != sorted(remaining[s]) for s in others):
            break
    else:
        return None
    at = current_hand_deal_index(events)
    dealt = events[at]["hands"]
    new_hands = {str(seat): list(dealt[str(seat)])}
    for s in others:
        played = [t for t in dealt[str(s)] if t not in remaining[s]]
        new_hands[str(s)] = played + fresh[s]
    new_deal = {"type": "deal", "hands": new_hands}
    out = events[:at] + [new_deal] + events[at + 1 :]
    if any(e["type"] == "claim_redeal" for e in events[at + 1 :]):
        return None
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), cut=st.integers(8, 300), seat=st.sampled_from(SEATS))
def test_views_do_not_change_when_unseen_tiles_are_spread_differently(seed, cut, seat):
    events, m = self_play(seed, max_events=cut)
    other_events = reshuffled(events, seat, random.Random(seed))
    if other_events is None:
        return
    try:
        other = Match.from_events(other_events)
    except Exception:
        # The reshuffle made a redeal claim impossible: not a consistent
        # alternative, so nothing to compare.
        return
    assert other.seat_view(seat) == m.seat_view(seat)
    assert other.summary()["hands_left"] != m.summary()["hands_left"]


def test_other_hands_appear_only_in_the_finished_hand_reveal():
    events, m = self_play(5, max_events=5000)
    replay = Match()
    seen_reveal = False
    for event in events:
        replay.apply(event)
        for seat in SEATS:
            view = replay.seat_view(seat)
            text = json.dumps({k: v for k, v in view.items() if k not in ("last_hand", "results")})
            hidden = {t for s in SEATS if s != seat for t in replay.summary()["hands_left"][str(s)]}
            if replay.phase in ("accept", "choose_opener", "play"):
                assert not any(f'"{t}"' in text for t in hidden), f"seat {seat} sees a hidden tile"
                assert set(view["hand"]).isdisjoint(hidden)
        if replay.phase == "deal" and replay.results:
            reveal = replay.seat_view(1)["last_hand"]
            assert reveal["hands"] == replay.summary()["hands_left"]
            assert len(set(sum(reveal["dealt"].values(), []))) == 28
            seen_reveal = True
    assert seen_reveal


def test_the_view_is_plain_json_and_lists_exactly_the_legal_events():
    events, m = self_play(9, max_events=120)
    for seat in SEATS:
        view = m.seat_view(seat)
        assert json.loads(json.dumps(view)) == view
        assert view["legal"] == m.legal_events(seat)
        assert view["team"] == ("A" if seat % 2 else "B") and view["partner"] == (seat + 1) % 4 + 1
        for event in view["legal"]:
            trial = m.copy()
            trial.apply(event)  # every listed event is accepted


def test_a_claimed_redeal_voids_the_old_hands_in_every_view():
    from tests.engine.helpers import start
    from tests.engine.test_rules import DEAL_B

    m = Match.from_events([start(), DEAL_B, {"type": "claim_redeal", "seat": 1}])
    for seat in SEATS:
        view = m.seat_view(seat)
        assert view["hand"] == [] and view["phase"] == "deal" and view["line"] == []


def test_the_spectator_view_is_every_seats_public_part_and_holds_no_hand_in_play():
    from engine import seat_view, spectator_view
    from engine.view import SPECTATOR_KEYS

    events, _ = self_play(11, commands=True, max_events=400)
    m = Match()
    for event in events:
        m.apply(event)
        if m.phase is None:
            continue
        watched = spectator_view(m)
        assert tuple(watched) == SPECTATOR_KEYS
        assert not {"hand", "legal", "can_claim_redeal", "seat"} & set(watched)
        for seat in (1, 2, 3, 4):  # the same public facts whichever seat looks
            own = m.seat_view(seat)
            assert {k: own[k] for k in SPECTATOR_KEYS} == watched
            # so a seat's view built on them (the server shares them per version) is its own
            assert seat_view(m, seat, watched) == own
            assert seat_view(m, seat, {**watched, "hand": ["6-6"]})["hand"] == own["hand"]
        if m.phase in ("accept", "choose_opener", "play"):
            in_hands = {t for seat in (1, 2, 3, 4) for t in m.seat_view(seat)["hand"]}
            text = json.dumps({k: v for k, v in watched.items() if k != "last_hand"})
            assert not {t for t in in_hands if f'"{t}"' in text}


def test_a_finished_hand_is_shown_by_one_shared_dict_that_snapshots_do_not_carry():
    import pickle

    _, m = self_play(4, max_events=400)
    assert m.hands_finished >= 1
    views = [m.seat_view(seat) for seat in SEATS]
    # built once per finished hand and shared by every view (the server builds two views
    # per action), equal to the fresh copy the match still hands out
    assert all(v["last_hand"] is views[0]["last_hand"] for v in views)
    assert all(v["results"][0] is views[0]["results"][0] for v in views)
    assert views[0]["last_hand"] == m.state().last_hand.as_dict()
    assert views[0]["results"] == m.results and m.results[0] is not views[0]["results"][0]
    # a pickled state (a server snapshot) leaves the shared dicts out and builds them again
    reveal = pickle.loads(pickle.dumps(m.state().last_hand))
    assert reveal._shared is None and reveal.shared_dict() == views[0]["last_hand"]
