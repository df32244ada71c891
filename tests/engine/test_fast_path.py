"""Self-play's fast path (``Match.deal``/``Match.advance`` with pickers, used by
``autoplay`` for the random level) gives exactly the match the slow path gives: the
same record, the same state, the same seat views, the same simulate totals."""

from __future__ import annotations

import random

import pytest

from engine import IllegalEventError, Match, dump_record
from engine.autoplay import autoplay, bot_players, new_bot_match
from engine.simulate import simulate

SEATS = (1, 2, 3, 4)


def _without_pick(players):
    """The same players with no ``pick``: autoplay gives each a lazy view."""
    return [lambda view, player=player: player(view) for player in players]


def _play(levels, seed, fast, seats=None, until="match"):
    m = Match()
    m.apply({"type": "match_started", "seats": seats or dict.fromkeys("1234", "bot")})
    players = bot_players(levels, [random.Random(seed * 10 + i) for i in range(4)])
    if not fast:
        players = _without_pick(players)
    record = []
    autoplay(m, players, random.Random(seed), until=until, on_event=record.append)
    return m, record


def _same_match(a: Match, b: Match) -> None:
    assert a.summary() == b.summary()
    for seat in SEATS:
        assert a.seat_view(seat) == b.seat_view(seat)
    assert a.redeals == b.redeals and a.winner == b.winner
    assert (a.can_undo(), a.can_redo()) == (b.can_undo(), b.can_redo())


@pytest.mark.parametrize("seed", range(8))
def test_random_self_play_is_the_same_match_on_both_paths(seed):
    fast, fast_record = _play(["random"] * 4, seed, fast=True)
    slow, slow_record = _play(["random"] * 4, seed, fast=False)
    assert dump_record(fast_record) == dump_record(slow_record)
    _same_match(fast, slow)
    # and the record, folded from scratch, is that match
    start = {"type": "match_started", "seats": dict.fromkeys("1234", "bot")}
    _same_match(Match.from_events([start, *fast_record]), fast)


@pytest.mark.parametrize("seed", range(4))
def test_mixed_levels_and_human_seats_give_the_same_match(seed):
    levels = ["random", "greedy", "random", "medium"]
    seats = {"1": "human", "2": "bot", "3": "bot", "4": "bot"}
    fast, fast_record = _play(levels, seed, fast=True, seats=seats)
    slow, slow_record = _play(levels, seed, fast=False, seats=seats)
    assert dump_record(fast_record) == dump_record(slow_record)
    _same_match(fast, slow)


def test_undo_after_the_fast_path_is_the_slow_paths_undo():
    seats = {"1": "human", "2": "bot", "3": "bot", "4": "bot"}
    steps = 0
    for seed in range(6):
        fast, _ = _play(["random"] * 4, seed, fast=True, seats=seats, until="hand")
        slow, _ = _play(["random"] * 4, seed, fast=False, seats=seats, until="hand")
        while slow.can_undo():
            assert fast.can_undo()
            for m in (fast, slow):
                m.apply({"type": "undo", "seat": 1})
            _same_match(fast, slow)
            steps += 1
        assert not fast.can_undo()
        while slow.can_redo():
            for m in (fast, slow):
                m.apply({"type": "redo", "seat": 1})
            _same_match(fast, slow)
    assert steps > 0  # seat 1 (human, so undoable) did decide


def test_a_view_kept_by_a_slow_player_keeps_its_moment_across_the_fast_path():
    m = new_bot_match()
    kept = []

    def keeper(view):
        kept.append((view, m.seat_view(view["seat"])))
        return view["legal"][0]

    rngs = [random.Random(i) for i in range(4)]
    players = bot_players(["random"] * 4, rngs)
    players[1] = keeper
    autoplay(m, players, random.Random(9), until="hand")
    assert kept
    for view, snapshot in kept:
        assert dict(view) == snapshot


def test_simulate_totals_are_the_same_on_both_paths():
    def slow_players(names, rngs, match):
        return _without_pick(bot_players(names, rngs))

    for seed in (1, 2):
        fast = simulate(["random"] * 4, hands=120, seed=seed, swap=True)
        slow = simulate(["random"] * 4, hands=120, seed=seed, swap=True, players=slow_players)
        fast.pop("seconds")
        slow.pop("seconds")
        assert fast == slow
    fast = simulate(["random", "greedy", "random", "greedy"], matches=6, seed=3)
    slow = simulate(
        ["random", "greedy", "random", "greedy"], matches=6, seed=3, players=slow_players
    )
    assert {k: v for k, v in fast.items() if k != "seconds"} == {
        k: v for k, v in slow.items() if k != "seconds"
    }


@pytest.mark.parametrize("seed", range(5))
def test_a_picker_out_of_range_is_refused_and_the_fold_stays_whole(seed):
    """The events applied before the failing pick are whole events: the match is the
    fold of exactly those (forced passes included), and the failing one changed nothing."""
    start = {"type": "match_started", "seats": dict.fromkeys("1234", "bot")}
    m = Match()
    m.apply(start)
    record = [start]
    m.deal(random.Random(seed), record.append)
    rng = random.Random(seed)
    plays = 0

    def flaky(phase, count):
        nonlocal plays
        if phase != "play":
            return count - 1
        plays += 1
        return count if plays == 5 else rng.randrange(count)  # the 5th pick is bad

    with pytest.raises(ValueError):
        m.advance([flaky] * 4, record.append)
    _same_match(m, Match.from_events(record))
    m.advance([lambda phase, count: 0] * 4, record.append)  # and it plays on
    _same_match(m, Match.from_events(record))


def test_deal_is_apply_of_deal_event():
    fast = new_bot_match()
    slow = new_bot_match()
    seen = []
    fast.deal(random.Random(11), seen.append)
    from engine import deal_event

    event = deal_event(random.Random(11))
    slow.apply(event)
    assert seen == [event]
    _same_match(fast, slow)
    with pytest.raises(IllegalEventError) as err:
        fast.deal(random.Random(1))
    assert err.value.code == "wrong_phase"
    _same_match(fast, slow)


@pytest.mark.parametrize("seed", range(6))
def test_the_folds_own_draws_for_a_randbits_picker_are_the_pickers_choices(seed):
    """``randbits``: the fold draws ``randrange(count)`` itself; calling the same picker
    (a plain function without ``randbits``) must give the same match."""
    from engine.bots.random_bot import RandomPicker

    records = []
    for drawn_by_the_fold in (True, False):
        pickers = [RandomPicker(random.Random(seed * 4 + i)) for i in range(4)]
        assert all(p.randbits is not None for p in pickers)
        if not drawn_by_the_fold:
            pickers = [lambda phase, count, p=p: p(phase, count) for p in pickers]
        m = new_bot_match()
        record = []
        deal_rng = random.Random(seed)
        while m.phase != "match_over":
            m.deal(deal_rng, record.append)
            m.advance(pickers, record.append)
        records.append(dump_record(record))
    assert records[0] == records[1]


def test_a_random_subclass_picker_is_asked_not_drawn_for():
    from engine.bots.random_bot import RandomPicker

    class Counting(random.Random):
        calls = 0

        def randrange(self, *args, **kwargs):
            Counting.calls += 1
            return super().randrange(*args, **kwargs)

    picker = RandomPicker(Counting(5))
    assert picker.randbits is None  # its own randrange might draw otherwise
    m = new_bot_match()
    deal_rng = random.Random(5)
    while not m.hands_finished:  # (a redeal claim plays no tile)
        m.deal(deal_rng)
        m.advance([picker] * 4)
    assert Counting.calls > 0  # one per play choice, as decide would have made


@pytest.mark.parametrize("fast", [True, False])
def test_autoplay_hands_plays_that_many_hands_at_a_time_and_the_same_match(fast):
    for seed in range(3):
        whole, whole_record = _play(["random"] * 4, seed, fast=fast)
        m = Match()
        m.apply({"type": "match_started", "seats": dict.fromkeys("1234", "bot")})
        players = bot_players(["random"] * 4, [random.Random(seed * 10 + i) for i in range(4)])
        if not fast:
            players = _without_pick(players)
        deal_rng, record = random.Random(seed), []
        while m.phase != "match_over":
            before = m.hands_finished
            autoplay(m, players, deal_rng, hands=2, on_event=record.append)
            assert m.hands_finished == before + 2 or m.phase == "match_over"
        assert dump_record(record) == dump_record(whole_record)
        _same_match(m, whole)
