"""Self-play: bots of given levels play through the real fold (``engine.Match``).

Seats 1..4 get ``bots[0..3]``; ``bots[0]`` and ``bots[2]`` are team "A". With ``swap``
every other match puts the team-A bots in seats 2 & 4 instead, so any seat bias cancels;
results are always credited to the bots (team "A" = the bots named first and third).
Swapping is per match, never inside one, because the score belongs to the seats' team.

Work is cut into fixed chunks (a few matches, or a quota of hands) with seeds derived
from ``seed`` and the chunk number, so the totals do not depend on ``workers``.
"""

from __future__ import annotations

import _random
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from engine.autoplay import Player, autoplay, bot_players, new_bot_match
from engine.bots import LEVELS
from engine.fold import Match, Reveal
from engine.seats import other_team

PlayerFactory = Callable[[list[str], list[random.Random], Match], list[Player]]
# (bots, counting hands?, quota, seed, chunk index, swap, expert iterations, factory)
Chunk = tuple[tuple[str, ...], bool, int, int, int, bool, int | None, PlayerFactory | None]

HANDS_PER_CHUNK = 25
LOG_EVERY = 30.0  # seconds between running reports on a non-terminal stderr
MATCHES_PER_CHUNK = 4


def simulate(
    bots: list[str],
    hands: int | None = None,
    matches: int | None = None,
    seed: int = 1,
    swap: bool = False,
    workers: int = 1,
    progress: bool = False,
    expert_iterations: int | None = None,
    players: PlayerFactory | None = None,
) -> dict[str, Any]:
    """Play ``hands`` hands (continuous matches) or ``matches`` full matches; totals.

    ``players``: instead of the levels of ``engine.bots``, a picklable factory
    ``players(names, rngs, match) -> four players`` (``autoplay.Player``), called once
    per match with the names of seats 1..4 (e.g. measuring players kept out of engine).
    """
    if len(bots) != 4 or (players is None and any(b not in LEVELS for b in bots)):
        raise ValueError(f"bots must name four levels out of {', '.join(LEVELS)}")
    if (hands is None) == (matches is None):
        raise ValueError("give exactly one of hands or matches")
    target = hands if hands is not None else matches
    if target is None or target < 1:
        raise ValueError("the number of hands or matches must be positive")
    per_chunk = HANDS_PER_CHUNK if hands is not None else MATCHES_PER_CHUNK
    chunks = [
        (
            tuple(bots),
            hands is not None,
            min(per_chunk, target - start),
            seed,
            index,
            swap,
            expert_iterations,
            players,
        )
        for index, start in enumerate(range(0, target, per_chunk))
    ]
    started = time.perf_counter()
    totals = _empty_totals()
    show = progress and sys.stderr.isatty()
    done = 0
    logged = started
    for part in _run_chunks(chunks, max(1, workers)):
        _add(totals, part)
        done += 1
        if show:
            _draw_progress(done, len(chunks), started)
        elif progress and time.perf_counter() - logged >= LOG_EVERY:
            # a log, not a terminal: the running report as a JSON line now and then
            logged = time.perf_counter()
            partial = _report(totals, bots, seed, swap, logged - started)
            sys.stderr.write(json.dumps(dict(partial, chunks_done=done, chunks=len(chunks))) + "\n")
            sys.stderr.flush()
    if show:
        sys.stderr.write("\n")
    report = _report(totals, bots, seed, swap, time.perf_counter() - started)
    if expert_iterations is not None:
        report["expert_iterations"] = expert_iterations
    return report


def _run_chunks(chunks: list[Chunk], workers: int) -> Iterator[dict[str, Any]]:
    if workers == 1 or len(chunks) == 1:
        rng = random.Random()  # reseeded for every chunk: one generator, not one each
        for chunk in chunks:
            yield _play_chunk(chunk, rng)
        return
    import multiprocessing  # only with workers: a single process starts faster without it

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with context.Pool(min(workers, len(chunks))) as pool:
        yield from pool.imap_unordered(_play_chunk, chunks)


def _empty_totals() -> dict[str, Any]:
    return {
        "hands": 0,
        "matches": 0,
        "hand_wins": {"A": 0, "B": 0},
        "ties": 0,
        "match_wins": {"A": 0, "B": 0},
        "dekabes": {"A": 0, "B": 0},
        "points": {"A": 0, "B": 0},
        "redeals": 0,
    }


def _add(totals: dict[str, Any], part: dict[str, Any]) -> None:
    for key, value in part.items():
        if isinstance(value, dict):
            for team, count in value.items():
                totals[key][team] += count
        else:
            totals[key] += value


def _play_chunk(chunk: Chunk, rng: random.Random | None = None) -> dict[str, Any]:
    """One chunk: a quota of hands (continuous matches) or a number of whole matches.

    ``rng``: a generator to seed for the chunk instead of a new one."""
    bots, count_hands, quota, seed, index, swap, expert_iterations, players = chunk
    if rng is None:
        rng = random.Random()
    rng.seed(f"dekabes-simulate|{seed}|{index}")
    totals = _empty_totals()
    match_no = 0
    # random players keep nothing from one match to the next: the matches reseed the
    # same five generators (seeding is a seventh of self-play's time; a new generator
    # adds a sixth to a seeding) and deal them to the same four players
    reused = None
    if players is None and all(level == "random" for level in bots):
        rngs = [_new_random(random.Random) for _ in range(5)]
        reused = (rngs, bot_players(bots, rngs[:4], expert_iterations))
    while (totals["hands"] if count_hands else totals["matches"]) < quota:
        swapped = swap and (index * 1000 + match_no) % 2 == 1
        hands_left = quota - totals["hands"] if count_hands else None
        _play_match(bots, swapped, rng, totals, hands_left, expert_iterations, players, reused)
        match_no += 1
    return totals


def _play_match(
    bots: Sequence[str],
    swapped: bool,
    rng: random.Random,
    totals: dict[str, Any],
    hands_left: int | None,
    expert_iterations: int | None = None,
    factory: PlayerFactory | None = None,
    reused: tuple[list[random.Random], list[Player]] | None = None,
) -> None:
    """Play one match (or until ``hands_left`` hands are done) and add it to ``totals``.

    The seats' and the deal's generators are seeded from ``rng``: new ones, or the five
    ``reused`` ones reseeded (the same states) that its four players hold."""
    m = new_bot_match()
    if reused is not None:  # random players: the same whatever their seats
        generators, players = reused
        _reseed_all(generators, rng)
        deal_rng = generators[4]
    else:
        seat_rngs = [seeded_rng(rng.getrandbits(64)) for _ in range(4)]
        deal_rng = seeded_rng(rng.getrandbits(64))
        # seat index -> bot level; with a swap the team-A bots sit in seats 2 & 4
        levels = [bots[1], bots[0], bots[3], bots[2]] if swapped else list(bots)
        if factory is None:
            players = bot_players(levels, seat_rngs, expert_iterations)
        else:
            players = factory(levels, seat_rngs, m)
    # the whole match, or its first hands_left hands when the quota ends inside it
    autoplay(m, players, deal_rng, hands=hands_left)
    state = m.state()
    if state is not None:
        _count_hands(totals, state.results, swapped)
    totals["redeals"] += m.redeals
    if hands_left is not None and m.hands_finished >= hands_left:
        return  # the quota ends inside this match (or with it): its hands count, the match not
    if m.phase != "match_over":
        raise RuntimeError("autoplay returned before the match ended")
    totals["matches"] += 1
    winner = m.winner
    if winner is None:
        raise RuntimeError("a match over has a winner")
    totals["match_wins"][other_team(winner) if swapped else winner] += 1


def seeded_rng(seed: int) -> random.Random:
    """``random.Random(seed)`` for an int ``seed``: the same generator, built without the
    Python layers of ``Random.__init__`` and ``Random.seed`` (their type checks end in
    this one call for an int). Five per match: a microsecond each counts in self-play."""
    rng = _new_random(random.Random)
    _reseed(rng, seed)
    return rng


def _reseed(rng: random.Random, seed: int) -> None:
    """``rng.seed(seed)`` for an int ``seed``, without the Python layer."""
    _seed_random(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]  # Random.seed resets it too


def _reseed_all(generators: list[random.Random], rng: random.Random) -> None:
    """``_reseed`` each of ``generators`` in turn with 64 bits of ``rng``."""
    for generator in generators:
        _seed_random(generator, rng.getrandbits(64))
        generator.gauss_next = None  # type: ignore[attr-defined]


_new_random = random.Random.__new__
_seed_random = _random.Random.seed


def _count_hands(totals: dict[str, Any], reveals: Sequence[Reveal], swapped: bool) -> None:
    """Add the match's finished hands to ``totals`` (their records read, not copied)."""
    hand_wins, points, dekabes = totals["hand_wins"], totals["points"], totals["dekabes"]
    totals["hands"] += len(reveals)
    for reveal in reveals:
        result = reveal.record
        team = result["team"]
        if team is None:
            totals["ties"] += 1
            continue
        if swapped:  # the team-A bots sit in seats 2 & 4
            team = other_team(team)
        hand_wins[team] += 1
        points[team] += result["points"]
        if result["dekabes"]:
            dekabes[team] += 1


def wilson(successes: int, trials: int, z: float = 1.959964) -> list[float]:
    """95% Wilson score interval of a proportion."""
    if trials == 0:
        return [0.0, 1.0]
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def _report(
    totals: dict[str, Any], bots: Sequence[str], seed: int, swap: bool, seconds: float
) -> dict[str, Any]:
    hands = totals["hands"]
    matches = totals["matches"]
    wins_a = totals["hand_wins"]["A"]
    decisive = wins_a + totals["hand_wins"]["B"]
    match_a = totals["match_wins"]["A"]
    return {
        "bots": list(bots),
        "seed": seed,
        "swap": swap,
        "hands": hands,
        "matches": matches,
        "hand_wins": dict(totals["hand_wins"]),
        "ties": totals["ties"],
        "match_wins": dict(totals["match_wins"]),
        "dekabes": totals["dekabes"]["A"] + totals["dekabes"]["B"],
        "dekabes_by_team": dict(totals["dekabes"]),
        "points": dict(totals["points"]),
        "redeals": totals["redeals"],
        "hand_win_rate_A": round(wins_a / hands, 4) if hands else None,
        "hand_win_rate_A_ci95": wilson(wins_a, hands),
        "decisive_hand_win_rate_A": round(wins_a / decisive, 4) if decisive else None,
        "decisive_hand_win_rate_A_ci95": wilson(wins_a, decisive),
        "match_win_rate_A": round(match_a / matches, 4) if matches else None,
        "match_win_rate_A_ci95": wilson(match_a, matches),
        "seconds": round(seconds, 2),
    }


def _draw_progress(done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // total
    elapsed = time.perf_counter() - started
    eta = elapsed / done * (total - done)
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} chunks"
        f"  {elapsed:6.0f}s elapsed  ~{eta:5.0f}s left"
    )
    sys.stderr.flush()
