"""Perfect-information search of one hand in one world (all four hands known).

``search`` is an alpha-beta minimax between the two teams over the rest of the hand in a
sampled world: a seat of team A maximises team A's value, a seat of team B minimises it.
Below ``depth`` plies (passes count as plies) it stops and finishes the hand with the
fast playout (``rollout.playout``); with ``depth=None`` it searches to the end, which
is cheap once few tiles are left. Values are per playout result code (see ``rollout``), from team A's point of view,
usually match equities.

The expert bot runs it in worlds sampled from what its seat knows (so it never sees a
hidden tile); a test-only perfect-information player runs it on the true deal.
"""

from __future__ import annotations

from typing import Protocol

from engine.bots.rollout import (
    R_DOUBLES,
    R_FIT,
    R_ROW,
    ranked_block_code,
    ranked_greedy_bit,
    ranked_playout,
    ranked_playout_models,
    to_ranks,
)
from engine.tiles import DOUBLE_MASK, OTHER, TILE_HI, TILE_LO

INF_DEPTH = 10**6

# The search tries a seat's tiles heavy tiles and doubles first, as the playout does,
# which makes alpha-beta cut early: on ranked masks (``rollout``'s rank space) that is
# the order of the bits, lowest first.


class Counter:
    """Nodes visited, so callers can bound the work (a cap, not a clock)."""

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0


class Knows(Protocol):
    """What ``value_after`` reads of the seat's knowledge: the open ends."""

    @property
    def left(self) -> int: ...
    @property
    def right(self) -> int: ...


def search(
    hands: list[int],
    left: int,
    right: int,
    seat: int,
    passes: int,
    values: tuple[float, ...],
    depth: int | None = None,
    counter: Counter | None = None,
    greedy: int = 0,
) -> float:
    """Team A's value of the position (seat ``seat`` to act on a non-empty line);
    the seats whose bit is set in ``greedy`` play greedy's move instead of searching."""
    return _search(
        to_ranks(hands),
        left,
        right,
        seat,
        passes,
        values,
        INF_DEPTH if depth is None else depth,
        -1.0e9,
        1.0e9,
        counter if counter is not None else Counter(),
        greedy,
    )


def _search(
    hands: list[int],
    left: int,
    right: int,
    seat: int,
    passes: int,
    values: tuple[float, ...],
    depth: int,
    alpha: float,
    beta: float,
    counter: Counter,
    greedy: int = 0,
) -> float:
    """``search`` on ranked masks (``hands`` is changed during the search, then restored).
    Seats whose bit is set in ``greedy`` are not searched: they play greedy's move."""
    counter.nodes += 1
    hand = hands[seat]
    legal = hand & R_FIT[left * 7 + right]
    if not legal:
        if passes == 3:
            return values[ranked_block_code(hands)]
        return _search(
            hands,
            left,
            right,
            (seat + 1) & 3,
            passes + 1,
            values,
            depth - 1,
            alpha,
            beta,
            counter,
            greedy,
        )
    if depth <= 0:
        if greedy:
            return values[ranked_playout_models(hands.copy(), left, right, seat, passes, greedy)]
        return values[ranked_playout(hands.copy(), left, right, seat, passes)]
    if greedy >> seat & 1:  # a modelled greedy seat: its one move, no search
        bit = ranked_greedy_bit(legal)
        row = R_ROW[bit]
        to_left, to_right = row[left], row[right]
        rest = hand ^ bit
        if not rest:
            dekabes = to_left >= 0 and to_right >= 0 and not R_DOUBLES & bit
            return values[(seat & 1) * 2 + (1 if dekabes else 0)]
        hands[seat] = rest
        if to_left >= 0:
            left = to_left
        else:
            right = to_right
        value = _search(
            hands, left, right, (seat + 1) & 3, 0, values, depth - 1, alpha, beta, counter, greedy
        )
        hands[seat] = hand
        return value
    maximise = not seat & 1
    best = -1.0e9 if maximise else 1.0e9
    nxt = (seat + 1) & 3
    while legal:  # heavy tiles and doubles first
        bit = legal & -legal
        legal ^= bit
        row = R_ROW[bit]
        to_left, to_right = row[left], row[right]
        rest = hand ^ bit
        if not rest:
            dekabes = to_left >= 0 and to_right >= 0 and not R_DOUBLES & bit
            value = values[(seat & 1) * 2 + (1 if dekabes else 0)]
            if maximise:
                if value > best:
                    best = value
            elif value < best:
                best = value
        else:
            hands[seat] = rest
            # the ends each placement leaves; the second only when it differs
            if to_left < 0:
                options: tuple[tuple[int, int], ...] = ((left, to_right),)
            elif (
                to_right < 0
                or (left == to_left and to_right == right)
                or (to_right == to_left and left == right)
            ):
                options = ((to_left, right),)
            else:
                options = ((to_left, right), (left, to_right))
            for new_left, new_right in options:
                value = _search(
                    hands,
                    new_left,
                    new_right,
                    nxt,
                    0,
                    values,
                    depth - 1,
                    alpha,
                    beta,
                    counter,
                    greedy,
                )
                if maximise:
                    if value > best:
                        best = value
                        if best > alpha:
                            alpha = best
                elif value < best:
                    best = value
                    if best < beta:
                        beta = best
                if alpha >= beta:
                    break
            hands[seat] = hand
        if maximise:
            if best > alpha:
                alpha = best
        elif best < beta:
            beta = best
        if alpha >= beta:
            break
    return best


def value_after(
    hands: list[int],
    me: int,
    nxt: int,
    tid: int,
    end: int | None,
    know: Knows,
    opening: bool,
    values: tuple[float, ...],
    depth: int | None = 0,
    counter: Counter | None = None,
    greedy: int = 0,
) -> float:
    """Team A's value of seat ``me`` laying (tid, end) in the world ``hands``: the hand is
    then finished by the playout policy (``depth`` 0, level strong) or searched ``depth``
    plies deep (level expert; None: to the end). ``hands`` itself is left as it was.
    ``greedy``: seat bits the search models as the greedy level (see ``_search``)."""
    world = hands.copy()
    rest = world[me] & ~(1 << tid)
    world[me] = rest
    if opening:
        left, right = TILE_LO[tid], TILE_HI[tid]
    else:
        left, right = know.left, know.right
        if not rest:
            dekabes = (
                OTHER[tid][left] >= 0 and OTHER[tid][right] >= 0 and not DOUBLE_MASK >> tid & 1
            )
            return values[(me & 1) * 2 + dekabes]
        if end == 0 or (end is None and OTHER[tid][left] >= 0):
            left = OTHER[tid][left]
        else:
            right = OTHER[tid][right]
    ranked = to_ranks(world)
    if depth == 0:
        return values[ranked_playout_models(ranked, left, right, nxt, 0, greedy)]
    return _search(
        ranked,
        left,
        right,
        nxt,
        0,
        values,
        INF_DEPTH if depth is None else depth,
        -1.0e9,
        1.0e9,
        counter if counter is not None else Counter(),
        greedy,
    )
