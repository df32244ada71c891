"""A test ladder plays scheduled rounds in-process: the ratings order the levels as their
head-to-head results do, every pair's legs share their deals with the seats turned, no
bot exceeds its daily quota, one owner's bots never meet, a stalled bot is substituted
and the ladder goes on."""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict

import pytest
from django.utils import timezone

from server.accounts.models import User
from server.ladder import tick
from server.ladder.entries import do_enter
from server.ladder.models import Entry, Leg, Pair, PairSeat, Version
from server.ladder.pairs import turned
from server.notices import presence
from server.tables.models import Event
from tests.ladder.conftest import play_leg, playing_legs
from tests.server.conftest import new_bot, new_member

pytestmark = pytest.mark.django_db(transaction=False)


def enter_bots(levels_by_owner: list[list[str]], per_day: int = 48) -> dict[int, str]:
    """Bots on the ladder: each owner's bots at the levels given; their account ids'
    levels."""
    levels = {}
    for owned in levels_by_owner:
        owner = new_member("author")
        for level in owned:
            bot = new_bot(owner)
            do_enter(user=owner, name=bot.username, version="1.0", matches_per_day=per_day)
            levels[bot.pk] = level
    return levels


def run_rounds(levels: dict[int, str], rounds: int, rng: random.Random, now=None) -> None:
    for _ in range(rounds):
        tick.ladder_step(now or timezone.now(), rng)
        while legs := playing_legs():
            for leg in legs:
                play_leg(leg, levels, rng)


def deals(table) -> dict[int, dict]:
    """The table's deals by hand (the last deal of each hand: redeals replaced it)."""
    hands: dict[int, dict] = {}
    hand = 0
    for payload in (
        Event.objects.filter(table=table, type="deal")
        .order_by("seq")
        .values_list("payload", flat=True)
    ):
        hand += 1
        hands[hand] = payload
    return hands


def test_ratings_order_levels_as_head_to_head(fast_ladder, seeded_deals):
    rng = random.Random(7)
    levels = enter_bots([["random"], ["medium"], ["random"], ["medium"]])
    run_rounds(levels, 10, rng)

    done = Pair.objects.filter(status="done").prefetch_related("seats__entry")
    assert done.count() >= 10
    # head to head: the pairs' results, each entrant's level against the other team's
    level = {e.pk: levels.get(e.bot_id) or e.house_level for e in Entry.objects.all()}
    won = defaultdict(float)
    played = defaultdict(int)
    for pair in done:
        for s in pair.seats.all():
            if s.entry.house_level:
                continue
            played[level[s.entry_id]] += 1
            won[level[s.entry_id]] += (
                1.0 if pair.result == s.team else 0.5 if pair.result == "tie" else 0.0
            )
    by_results = sorted(played, key=lambda lv: won[lv] / played[lv])
    mean = defaultdict(list)
    for v in Version.objects.filter(entry__house_level="").select_related("entry"):
        mean[levels[v.entry.bot_id]].append(v.mu)
    by_rating = sorted(mean, key=lambda lv: sum(mean[lv]) / len(mean[lv]))
    assert by_rating == by_results == ["random", "medium"]
    # and each medium entrant above each random one
    assert min(mean["medium"]) > max(mean["random"])
    # every entrant's version was rated, and the anchors never moved
    assert all(v.pairs > 0 for v in Version.objects.filter(entry__house_level=""))
    for anchor in Version.objects.exclude(entry__house_level=""):
        assert anchor.pairs == 0 and anchor.sigma == 1.0


@pytest.mark.backend
def test_duplicate_legs_share_deals_with_seats_turned(fast_ladder):
    rng = random.Random(3)
    levels = enter_bots([["random"], ["medium"], ["random"]])
    run_rounds(levels, 2, rng)
    pairs = Pair.objects.filter(status="done")
    assert pairs.exists()
    for pair in pairs:
        one, two = (
            leg.match
            for leg in Leg.objects.filter(pair=pair)
            .order_by("number")
            .select_related("match__table")
        )
        seats_one = dict(one.seats.values_list("player_id", "number"))
        seats_two = dict(two.seats.values_list("player_id", "number"))
        assert set(seats_one) == set(seats_two)
        assert all(seats_two[p] == turned(seats_one[p]) for p in seats_one)
        assert one.table.deal_seed == two.table.deal_seed != ""
        d1, d2 = deals(one.table), deals(two.table)
        common = set(d1) & set(d2)
        assert common
        for hand in common:  # the same tiles to the same seats: bots moved, cards stayed
            assert d1[hand]["hands"] == d2[hand]["hands"] or d1[hand] != d2[hand] and hand > 1
        assert d1[1] == d2[1]


@pytest.mark.backend
def test_daily_quota_and_owners_never_meet(fast_ladder):
    rng = random.Random(5)
    levels = enter_bots([["random", "medium"], ["random"], ["medium"], ["greedy"]], per_day=4)
    run_rounds(levels, 6, rng)
    for entry in Entry.objects.filter(house_level=""):
        # a pair is two matches: two pairs fill a day of four, and no round drew a third
        assert PairSeat.objects.filter(entry=entry).count() == 2
    for pair in Pair.objects.all():
        owners = [
            s.entry.bot.bot_owner_id
            for s in pair.seats.select_related("entry__bot")
            if s.entry.bot.bot_owner_id
        ]
        if len(owners) != len(set(owners)):
            # only once the other entrants had filled their day: nothing else could be drawn
            assert pair.shared_owner
            others = (
                PairSeat.objects.filter(pair__created_at__lt=pair.created_at)
                .exclude(entry__bot__bot_owner_id__in=owners)
                .filter(entry__house_level="")
            )
            assert others.count() == 3 * 2, "two bots of one owner met while others could play"
        else:
            assert not pair.shared_owner


def test_one_owners_bots_meet_only_when_nothing_else_can_be_drawn(fast_ladder):
    levels = enter_bots([["random", "medium"]])  # two anchors: a foursome needs both bots
    (pair,) = tick.schedule_round(tick.the_ladder(), timezone.now())
    assert pair.shared_owner
    team = {s.entry.bot_id: s.team for s in pair.seats.select_related("entry")}
    assert team[list(levels)[0]] != team[list(levels)[1]]  # opponents, not partners
    (leg,) = playing_legs()
    assert not leg.match.table.rated  # one owner holds two seats: a casual table


@pytest.mark.backend
def test_stalled_bot_is_substituted_and_the_ladder_goes_on(fast_ladder):
    rng = random.Random(11)
    levels = enter_bots([["medium"], ["random"]])
    stalled_bot = next(iter(levels))
    tick.ladder_step(timezone.now())
    (leg,) = playing_legs()
    assert not play_leg(leg, levels, rng, skip=frozenset({stalled_bot}))
    later = timezone.now() + dt.timedelta(seconds=fast_ladder.DEKABES_LADDER_MOVE_SECONDS + 1)
    # the others are still at the table (their long-polls), the stalled bot is not
    seats = dict(leg.match.table.seats.values_list("player_id", "number"))
    others = [n for p, n in seats.items() if p != stalled_bot]
    presence.touch(table=leg.match.table, seats=others, now=later.timestamp())
    # the stalled bot's turn came (it is dealt to act in every accept phase)
    lines = tick.ladder_step(later)
    assert any("substituted" in line for line in lines), lines
    seat = PairSeat.objects.get(entry__bot_id=stalled_bot)
    assert seat.substituted
    while legs := playing_legs():
        for leg in legs:
            play_leg(leg, levels, rng)
    pair = seat.pair
    pair.refresh_from_db()
    assert pair.status == "done" and pair.rated
    assert pair.result != seat.team  # its team lost the pair
    assert pair.legs.count() == 1  # decided with the first leg
    version = Version.objects.get(pk=seat.version_id)
    assert version.substituted == 1 and version.losses == 1
    # the ladder goes on: not drawn again until it says it is there, then drawn
    run_rounds(levels, 1, rng)
    assert Pair.objects.filter(seats__entry__bot_id=stalled_bot).count() == 1
    bot = User.objects.get(pk=stalled_bot)
    do_enter(user=bot, name=bot.username, version="1.0")
    run_rounds(levels, 1, rng)
    assert Pair.objects.filter(status="done", seats__entry__bot_id=stalled_bot).count() == 2
