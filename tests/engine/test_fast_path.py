"""Self-play's fast path (``Match.deal``/``Match.advance`` with pickers, used by
``autoplay`` for the random level) gives exactly the match the slow path gives: the
same record, the same state, the same seat views, the same simulate totals."""

from __future__ import annotations

import random

import pytest

from engine import IllegalEventError, Match, dump_record
from engine.autoplay import autoplay, bot_players, new_bot_match
from engine.bots.random_bot import RandomPicker
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


@pytest.mark.parametrize("seed", range(6))
def test_drawn_hands_leave_the_state_the_phases_leave(seed):
    """Four random bots and no record: advance plays whole hands without the phases'
    dispatch (``fold._play_drawn_hands``); hand by hand, the state is the slow path's."""
    matches, players, deal_rngs = [], [], []
    for fast in (True, False):
        matches.append(new_bot_match())
        bots = bot_players(["random"] * 4, [random.Random(seed * 10 + i) for i in range(4)])
        players.append(bots if fast else _without_pick(bots))
        deal_rngs.append(random.Random(seed))
    fast, slow = matches
    hands = 0
    while slow.phase != "match_over":
        for m, bots, deal_rng in zip(matches, players, deal_rngs, strict=True):
            autoplay(m, bots, deal_rng, until="hand")
        _same_match(fast, slow)
        _same_state(fast, slow)
        hands += 1
    assert fast.phase == "match_over" and hands >= 2


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


def _same_state(a: Match, b: Match, skip: tuple[str, ...] = ()) -> None:
    """Every field of the fold's state (what no view shows too: the opener, 6-6 first)."""
    sa, sb = a.state(), b.state()
    for name in type(sa).__slots__:
        if name in skip:
            continue
        va, vb = getattr(sa, name), getattr(sb, name)
        if name == "core":
            va, vb = repr(va), repr(vb)
        elif name == "results":
            va, vb = [r.as_dict() for r in va], [r.as_dict() for r in vb]
        assert va == vb, name


def _reveals(m: Match) -> list:
    state = m.state()
    return [r.as_dict() for r in state.results] if state else []


@pytest.mark.parametrize("seed", range(6))
def test_the_unrecorded_fast_path_is_the_same_match(seed):
    """Without ``on_event`` the fast path keeps no record and accepts by its claims
    alone: the same state, views and revealed hands (lines included) as the slow path."""
    m_fast = new_bot_match()
    m_slow = new_bot_match()
    rngs = [random.Random(seed * 10 + i) for i in range(4)]
    autoplay(m_fast, bot_players(["random"] * 4, rngs), random.Random(seed))
    rngs = [random.Random(seed * 10 + i) for i in range(4)]
    autoplay(m_slow, _without_pick(bot_players(["random"] * 4, rngs)), random.Random(seed))
    _same_match(m_fast, m_slow)
    assert _reveals(m_fast) == _reveals(m_slow)
    assert m_fast.redeals == m_slow.redeals


def test_a_picker_that_claims_but_draws_no_play_is_asked_for_its_plays():
    """``claims`` only spares the accept calls: play choices are still asked."""
    asked = []

    class Claiming:
        claims = True

        def __call__(self, phase, count):
            asked.append(phase)
            assert phase != "accept"
            return 0

    m = new_bot_match()
    m.deal(random.Random(3))
    m.advance((Claiming(),) * 4)
    assert asked and m.hands_finished + m.redeals >= 1


@pytest.mark.parametrize("seed", range(8))
def test_restart_hand_after_the_fast_path_is_the_slow_paths_restart(seed):
    """The hand's start is rebuilt from the deal (no snapshot copy): bots play on the
    unrecorded fast path up to the human seat's turn; restarting there (twice) gives
    the same state as restarting the record's fold."""
    seats = {"1": "human", "2": "bot", "3": "bot", "4": "bot"}
    start = {"type": "match_started", "seats": seats}
    pickers, recorded_pickers = (
        tuple(RandomPicker(random.Random(seed * 4 + i)) for i in range(4)) for _ in range(2)
    )
    fast, recorded = Match(), Match()
    record = [start]
    for m in (fast, recorded):
        m.apply(start)
    restarts = checked = 0
    for hand in range(4):
        for m, emit in ((fast, None), (recorded, record.append)):
            m.deal(random.Random(seed * 10 + hand), emit)
        # the hand's start, folded the slow way: the deal, then four acceptances
        at_start = Match.from_events(record)
        for seat in (1, 2, 3, 4):
            at_start.apply({"type": "accept", "seat": seat})
        restarted = False
        redeals = fast.redeals
        while fast.phase in ("accept", "choose_opener", "play"):
            fast.advance(pickers)
            recorded.advance(recorded_pickers, record.append)
            _same_match(fast, recorded)
            if fast.phase == "accept":
                event = fast.legal_events(1)[-1]  # seat 1 claims when entitled
            elif fast.to_act != 1:
                break
            elif not restarted:
                folded = Match.from_events(record)
                for m in (fast, recorded, folded):
                    m.apply({"type": "restart_hand", "seat": 1})
                    m.apply({"type": "restart_hand", "seat": 1})
                for m in (fast, recorded):
                    _same_match(m, folded)
                    _same_state(m, folded)
                if fast.redeals == redeals:  # (after a redeal claim: another deal)
                    _same_state(fast, at_start, skip=("hand_start",))
                    checked += 1
                record.append({"type": "restart_hand", "seat": 1})
                record.append({"type": "restart_hand", "seat": 1})
                restarts += 1
                restarted = True
                continue
            else:
                event = fast.legal_events(1)[0]
            fast.apply(event)
            recorded.apply(dict(event))
            record.append(dict(event))
        if fast.phase == "match_over":
            break
    assert restarts > 0 and checked > 0
