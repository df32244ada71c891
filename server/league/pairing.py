"""Drawing a round's tables. Pure Python, no Django, deterministic for a given seed.

Two formats (docs/league.md, "Pairing"):

* ``draw_individual`` — partners rotate. Each arrangement of the round is scored
  lexicographically: (repeated partners, no partner-fresh round left next time, repeated
  opponents), each repeat weighted by how often that pair already met that way this
  season. Two tables or fewer are searched exhaustively; bigger rounds by hill climbing
  over seat swaps from seeded random starts.
* ``draw_pairs`` — fixed partnerships, Swiss by the current ranking: the best unpaired
  pair meets the next best it has not met, with backtracking; rematches only when no
  pairing avoids them, and then as few as possible.

Randomness only comes from ``random.Random(str(seed))`` and players are always walked in
id order (``canonical_key``), never in set or hash order, so a draw is the same on every
run and every machine for the same inputs.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations

from engine.seats import TEAM_SEATS, TEAMS, partner_of

# Seat indices (0-3) at a table: each team's pair of partners, and every pair of opponents.
PARTNER_SEATS = tuple(tuple(n - 1 for n in TEAM_SEATS[team]) for team in TEAMS)
OPPONENT_SEATS = tuple((a, b) for a in PARTNER_SEATS[0] for b in PARTNER_SEATS[1])

# The house bots stand for one partner/opponent in the repeat counts, so that the
# human who gets a bot partner, or sits at the bots' table, rotates like any other.
HOUSE = ("house bot",)

EXHAUSTIVE_MAX_TABLES = 2
RESTARTS = 40
EXTRA_RESTARTS = 400
LOOKAHEAD_ROUNDS = 3
LOOKAHEAD_NODE_LIMIT = 50_000
# P * WEIGHT + O orders (P, O) lexicographically: one round's O never reaches it.
PARTNER_WEIGHT = 1_000_000


@dataclass(frozen=True)
class Draw:
    tables: list[tuple]
    byes: list


@dataclass(frozen=True)
class PairsDraw:
    tables: list[tuple]
    byes: list


def canonical_key(player: Hashable) -> tuple:
    """Id order for players of any hashable type; independent of hash randomisation."""
    if isinstance(player, bool) or not isinstance(player, (int, float, str)):
        return (2, type(player).__name__, repr(player))
    if isinstance(player, str):
        return (1, "", player)
    return (0, "", player)


def _in_id_order(items: Iterable[Hashable], what: str) -> list:
    items = list(items)
    if len(set(items)) != len(items):
        raise ValueError(f"{what} must not repeat")
    if any(item is None for item in items):
        raise ValueError(f"None is not a valid id for {what}")
    return sorted(items, key=canonical_key)


# --- individual format ---------------------------------------------------------------


class _Memory:
    """What the season's earlier tables say: who partnered / faced whom, how often."""

    def __init__(self, history: Iterable[tuple]):
        self.partners: Counter = Counter()
        self.opponents: Counter = Counter()
        self.tables_played: Counter = Counter()
        for table in history:
            seats = tuple(table)
            if len(seats) != 4:
                raise ValueError(f"a table has 4 seats, not {len(seats)}: {table!r}")
            for p in seats:
                if p is not None:
                    self.tables_played[p] += 1
            for pair, counter in self._pairs(seats):
                counter[pair] += 1

    def _pairs(self, seats: tuple):
        for i, j in PARTNER_SEATS:
            if key := _pair_key(seats[i], seats[j]):
                yield key, self.partners
        for i, j in OPPONENT_SEATS:
            if key := _pair_key(seats[i], seats[j]):
                yield key, self.opponents

    def table_cost(self, seats: tuple) -> int:
        cost = 0
        for i, j in PARTNER_SEATS:
            if key := _pair_key(seats[i], seats[j]):
                cost += PARTNER_WEIGHT * self.partners[key]
        for i, j in OPPONENT_SEATS:
            if key := _pair_key(seats[i], seats[j]):
                cost += self.opponents[key]
        return cost

    def partnered_after(self, tables: list[tuple]) -> set:
        seen = {key for key, n in self.partners.items() if n}
        for seats in tables:
            for i, j in PARTNER_SEATS:
                if key := _pair_key(seats[i], seats[j]):
                    seen.add(key)
        return seen


def _pair_key(x, y) -> frozenset | None:
    """The counter key of two seats; None for two bots (they never count)."""
    if x is None and y is None:
        return None
    return frozenset((HOUSE if x is None else x, HOUSE if y is None else y))


def draw_individual(
    players: Iterable[Hashable],
    history: Iterable[tuple],
    *,
    seed,
    fill_with_bots: bool,
    bye_counts: Mapping[Hashable, int] | None = None,
) -> Draw:
    """Tables of four for the players present this round.

    ``history``: the season's earlier tables as 4-tuples (None for a bot seat).
    ``bye_counts``: byes each player already had this season (missing = 0). Without
    fill_with_bots the ``len(players) % 4`` players with the fewest byes sit out, then
    those who played the most tables, then a seeded draw. With fill_with_bots nobody
    sits out: the 1-3 empty seats are None, all at one table (two bots partner each
    other), so at most one human has a bot partner.
    """
    rng = random.Random(str(seed))
    present = _in_id_order(players, "players")
    memory = _Memory(history)
    if fill_with_bots:
        byes, seated, bots = [], present, -len(present) % 4
    else:
        byes = _choose_byes(present, len(present) % 4, bye_counts or {}, memory, rng)
        seated, bots = [p for p in present if p not in byes], 0
    tables = _arrange(seated, bots, memory, rng) if seated else []
    return Draw(tables=tables, byes=byes)


def _choose_byes(
    present: list, count: int, bye_counts: Mapping, memory: _Memory, rng: random.Random
) -> list:
    lots = {p: rng.random() for p in present}
    order = sorted(present, key=lambda p: (bye_counts.get(p, 0), -memory.tables_played[p], lots[p]))
    return sorted(order[:count], key=canonical_key)


def _bot_table_layout(bots: int) -> tuple:
    """Seat indices of the humans at the bots' table (the rest are None)."""
    return {1: (0, 1, 2), 2: (0, 2), 3: (0,)}[bots]


def _arrange(seated: list, bots: int, memory: _Memory, rng: random.Random) -> list[tuple]:
    n_tables = (len(seated) + bots) // 4
    if n_tables <= EXHAUSTIVE_MAX_TABLES:
        best = _best(_exhaustive(seated, bots, memory), seated, memory, rng)
    else:
        candidates = _local_search(seated, bots, memory, rng, RESTARTS)
        best = _best(candidates, seated, memory, rng)
        extra = 0
        # Random starts rarely land on the few arrangements that keep a fresh round
        # possible late in a season: keep looking for one before giving in.
        while _score(best, seated, memory)[1] and extra < EXTRA_RESTARTS:
            candidates += _local_search(seated, bots, memory, rng, RESTARTS)
            best = _best(candidates, seated, memory, rng)
            extra += RESTARTS
    return _presented(best[1], bots, rng)


def _score(
    candidate: tuple[int, list[tuple]], seated: list, memory: _Memory, cache: dict | None = None
) -> tuple[int, int, int]:
    """(partner repeats, lookahead shortfall, opponent repeats)."""
    cost, tables = candidate
    partnered = frozenset(memory.partnered_after(tables))
    cache = {} if cache is None else cache
    if partnered not in cache:
        cache[partnered] = _fresh_rounds_short(seated, partnered)
    return (cost // PARTNER_WEIGHT, cache[partnered], cost % PARTNER_WEIGHT)


def _best(
    candidates: list[tuple[int, list[tuple]]], seated: list, memory: _Memory, rng: random.Random
) -> tuple[int, list[tuple]]:
    """The lowest score; a seeded pick among equals."""
    low_partner = min(cost // PARTNER_WEIGHT for cost, _ in candidates)
    cache: dict = {}
    scored = [
        (_score(c, seated, memory, cache), c)
        for c in candidates
        if c[0] // PARTNER_WEIGHT == low_partner
    ]
    low = min(score for score, _ in scored)
    return rng.choice([c for score, c in scored if score == low])


def _fresh_rounds_short(seated: list, partnered: frozenset) -> int:
    """How many of the next LOOKAHEAD_ROUNDS rounds could not give everyone a new partner.

    Looking ahead is what keeps a round-by-round draw from painting itself into a
    corner: with 8 players, after 5 rounds the unused partner pairs must form even
    cycles or round 6 needs a repeat; with 12, the pairs left after round 8 must split
    into 3 rounds. The same seated players are assumed; the search is capped, and what
    it could not settle counts as possible.
    """
    budget = [LOOKAHEAD_NODE_LIMIT]

    def matchings(rest: tuple, used: frozenset):
        """Every way to give all of ``rest`` (all but one, if odd) a fresh partner."""
        if len(rest) < 2:
            yield ()
            return
        budget[0] -= 1
        if budget[0] < 0:
            return
        first, others = rest[0], rest[1:]
        for k, other in enumerate(others):
            pair = frozenset((first, other))
            if pair not in used:
                for tail in matchings(others[:k] + others[k + 1 :], used):
                    yield (pair,) + tail
        if len(rest) % 2:  # odd: `first` may be the one left out
            yield from matchings(others, used)

    def depth(used: frozenset, reached: int) -> int:
        if reached == LOOKAHEAD_ROUNDS:
            return reached
        best = reached
        for matching in matchings(tuple(seated), used):
            best = max(best, depth(used | frozenset(matching), reached + 1))
            if best == LOOKAHEAD_ROUNDS or budget[0] < 0:
                break
        return best if budget[0] >= 0 else LOOKAHEAD_ROUNDS

    # nobody can get more fresh rounds than they have partners left to meet
    fresh = min(sum(frozenset((p, q)) not in partnered for q in seated if q != p) for p in seated)
    target = min(LOOKAHEAD_ROUNDS, fresh)
    return max(0, target - depth(partnered, 0))


def _exhaustive(seated: list, bots: int, memory: _Memory) -> list[tuple[int, list[tuple]]]:
    found = []
    for bot_table, rest in _bot_tables(seated, bots):
        for tables in _human_tables(rest):
            arrangement = tables + bot_table
            found.append((sum(memory.table_cost(t) for t in arrangement), arrangement))
    return found


def _bot_tables(seated: list, bots: int):
    if not bots:
        yield [], seated
        return
    humans = _bot_table_layout(bots)
    for chosen in combinations(seated, len(humans)):
        rest = [p for p in seated if p not in chosen]
        for order in _distinct_bot_table_orders(chosen, bots):
            seats = [None] * 4
            for index, player in zip(humans, order, strict=True):
                seats[index] = player
            yield [tuple(seats)], rest


def _distinct_bot_table_orders(chosen: tuple, bots: int):
    if bots == 1:  # who partners the bot (seat 2, with the bot on seat 4)
        a, b, c = chosen
        yield from ((a, b, c), (a, c, b), (b, a, c))
    else:  # two humans partner each other, or one human alone
        yield chosen


def _human_tables(players: list):
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for trio in combinations(rest, 3):
        remaining = [p for p in rest if p not in trio]
        for k in range(3):
            partner = trio[k]
            o1, o2 = (p for p in trio if p != partner)
            for tables in _human_tables(remaining):
                yield [(first, o1, partner, o2)] + tables


def _local_search(
    seated: list, bots: int, memory: _Memory, rng: random.Random, restarts: int
) -> list[tuple[int, list[tuple]]]:
    n_tables = (len(seated) + bots) // 4
    slots = [i for i in range(4 * n_tables)]
    if bots:
        bot_base = 4 * (n_tables - 1)
        human_at_bot_table = {bot_base + i for i in _bot_table_layout(bots)}
        slots = [i for i in slots if i < bot_base or i in human_at_bot_table]
    found = []
    for _ in range(restarts):
        order = list(seated)
        rng.shuffle(order)
        seats: list = [None] * (4 * n_tables)
        for slot, player in zip(slots, order, strict=True):
            seats[slot] = player
        cost = _climb(seats, slots, memory, rng)
        found.append((cost, [tuple(seats[i : i + 4]) for i in range(0, len(seats), 4)]))
    return found


def _climb(seats: list, slots: list[int], memory: _Memory, rng: random.Random) -> int:
    """First-improvement hill climbing over swaps of two humans; returns the final cost."""

    def table(i: int) -> tuple:
        base = i - i % 4
        return tuple(seats[base : base + 4])

    swaps = [(i, j) for i, j in combinations(slots, 2) if not _partners(i, j)]
    improved = True
    while improved:
        improved = False
        rng.shuffle(swaps)
        for i, j in swaps:
            touched = {i // 4, j // 4}
            before = sum(memory.table_cost(table(4 * t)) for t in touched)
            seats[i], seats[j] = seats[j], seats[i]
            after = sum(memory.table_cost(table(4 * t)) for t in touched)
            if after < before:
                improved = True
            else:
                seats[i], seats[j] = seats[j], seats[i]
    return sum(memory.table_cost(tuple(seats[b : b + 4])) for b in range(0, len(seats), 4))


def _partners(i: int, j: int) -> bool:
    return i // 4 == j // 4 and partner_of(i % 4 + 1) == j % 4 + 1


def _presented(tables: list[tuple], bots: int, rng: random.Random) -> list[tuple]:
    """Seeded table order and seat orientation; the bots' table (if any) comes last."""
    human_tables = [t for t in tables if None not in t]
    bot_tables = [t for t in tables if None in t]
    rng.shuffle(human_tables)
    oriented = []
    for a, b, c, d in human_tables:
        if rng.random() < 0.5:
            a, b, c, d = b, c, d, a  # the other partnership on seats 1 & 3
        if rng.random() < 0.5:
            a, b, c, d = c, d, a, b  # partners swap seats
        oriented.append((a, b, c, d))
    return oriented + bot_tables


# --- pairs format --------------------------------------------------------------------


def draw_pairs(
    pairs: Iterable[Hashable],
    ranking: Iterable[Hashable],
    played: Iterable[frozenset],
    *,
    seed,
    bye_counts: Mapping[Hashable, int] | None = None,
) -> PairsDraw:
    """Swiss tables (higher-ranked pair first, on seats 1 & 3) and at most one bye.

    ``ranking``: current standings order, best first; present pairs missing from it
    (a first round, a late registration) come after it in a seeded random order.
    ``played``: one frozenset({x, y}) per earlier meeting. ``bye_counts``: byes so far
    (missing = 0); with an odd count, the lowest-ranked pair with the fewest byes sits out.
    """
    rng = random.Random(str(seed))
    present = _in_id_order(pairs, "pairs")
    order = _ranked(present, ranking, rng)
    met = Counter(frozenset(p) for p in played)
    byes = []
    if len(order) % 2:
        byes_so_far = bye_counts or {}
        fewest = min(byes_so_far.get(p, 0) for p in order)
        byes = [next(p for p in reversed(order) if byes_so_far.get(p, 0) == fewest)]
        order = [p for p in order if p != byes[0]]
    return PairsDraw(tables=_swiss(order, met), byes=byes)


def _ranked(present: list, ranking: Iterable[Hashable], rng: random.Random) -> list:
    here = set(present)
    order: list = []
    for pair in ranking:
        if pair in here and pair not in order:
            order.append(pair)
    unranked = [p for p in present if p not in order]
    rng.shuffle(unranked)
    return order + unranked


def _swiss(order: list, met: Counter) -> list[tuple]:
    """The first pairing in ranking order whose rematch weight is the smallest possible.

    Depth first: the best unpaired pair takes the best-ranked opponent that fits the
    rematch budget; the budget (sum of earlier meetings of the chosen tables) grows from
    0 until a pairing exists. Failed (remaining pairs, budget) states are remembered.
    """
    failed: set = set()

    def pair_up(rest: tuple, budget: int) -> list | None:
        if not rest:
            return []
        if (rest, budget) in failed:
            return None
        first, others = rest[0], rest[1:]
        for k, other in enumerate(others):
            cost = met[frozenset((first, other))]
            if cost <= budget:
                tail = pair_up(others[:k] + others[k + 1 :], budget - cost)
                if tail is not None:
                    return [(first, other)] + tail
        failed.add((rest, budget))
        return None

    budget = 0
    while (tables := pair_up(tuple(order), budget)) is None:
        budget += 1
    return tables
