"""Fast playouts of a hand on plain masks, used by the strong bot in sampled worlds.

The playout policy is a cheap heuristic every seat follows: play the tile with the best
static weight (pips, doubles first because they are the hardest to place later), and
put a tile that fits both ends where it leaves open a number the seat still holds most
of. It looks only at the seat's own hand and the ends, so a playout does not "cheat"
with the sampled world beyond what the world itself fixes.

Result codes: team * 2 + dekabes for a win (team 0 = A, 1 = B), ``TIE`` for a tied block.
"""

from __future__ import annotations

from engine.core import FIT_MASK, block_team
from engine.tiles import DOUBLE_MASK, NUM_MASK, OTHER, TILE_HI, TILE_LO, TILE_PIPS, mask_pips

TIE = 4

# Static playout weight of each tile: heavy first, doubles early.
DOUBLE_BONUS = 6
WEIGHT: tuple[int, ...] = tuple(
    TILE_PIPS[t] + (DOUBLE_BONUS if DOUBLE_MASK >> t & 1 else 0) for t in range(28)
)


# Rank space: the playouts and the search (``solver``) keep each hand as a mask of tile
# *ranks*, rank 0 the tile the policy prefers most (highest weight, the lower tile id
# first among equal weights, as the policy and the search order always chose). The
# policy's choice is then the lowest set bit, and the search visits a hand's tiles in
# its order by walking the bits up: the same choices as in tile space, fewer steps.
RANKED: tuple[int, ...] = tuple(sorted(range(28), key=lambda t: (-WEIGHT[t], t)))  # rank -> tile
RANK_OF: tuple[int, ...] = tuple(RANKED.index(t) for t in range(28))  # tile -> rank


def _ranked_mask(tile_mask: int) -> int:
    return sum(1 << RANK_OF[t] for t in range(28) if tile_mask >> t & 1)


# R_FIT[left * 7 + right], R_NUM[n], R_DOUBLES, R_OTHER[rank]: core/tiles' tables by rank
R_FIT: tuple[int, ...] = tuple(_ranked_mask(m) for m in FIT_MASK)
_R_FIT2 = tuple(R_FIT[7 * a : 7 * a + 7] for a in range(7))  # [left][right]
_NEXT = (1, 2, 3, 0)
R_NUM: tuple[int, ...] = tuple(_ranked_mask(m) for m in NUM_MASK)
R_DOUBLES = _ranked_mask(DOUBLE_MASK)
R_OTHER: tuple[tuple[int, ...], ...] = tuple(OTHER[t] for t in RANKED)
# R_ROW[1 << rank]: R_OTHER[rank], keyed by the rank's bit (a lookup, no bit_length)
R_ROW: dict[int, tuple[int, ...]] = {1 << r: R_OTHER[r] for r in range(28)}
# _TO_RANK[k][bits]: the ranked mask of tiles 7k..7k+6 present in bits (7 bits)
_TO_RANK = tuple(tuple(_ranked_mask(bits << 7 * k) for bits in range(128)) for k in range(4))
# _R_PIPS[k][bits]: pips of the ranks 7k..7k+6 present in bits
_R_PIPS = tuple(
    tuple(
        sum(TILE_PIPS[RANKED[7 * k + i]] for i in range(7) if bits >> i & 1) for bits in range(128)
    )
    for k in range(4)
)


def to_ranks(hands: list[int]) -> list[int]:
    """Tile masks -> ranked masks (a new list)."""
    t0, t1, t2, t3 = _TO_RANK
    return [t0[h & 127] | t1[h >> 7 & 127] | t2[h >> 14 & 127] | t3[h >> 21 & 127] for h in hands]


def ranked_pips(mask: int) -> int:
    p0, p1, p2, p3 = _R_PIPS
    return p0[mask & 127] + p1[mask >> 7 & 127] + p2[mask >> 14 & 127] + p3[mask >> 21 & 127]


def block_code(hands: list[int]) -> int:
    """The result code of a blocked hand (``core.block_team`` on the pip counts)."""
    team = block_team([mask_pips(h) for h in hands])
    return TIE if team is None else team * 2


def ranked_block_code(hands: list[int]) -> int:
    """``block_code`` of ranked masks."""
    team = block_team([ranked_pips(h) for h in hands])
    return TIE if team is None else team * 2


def playout(hands: list[int], left: int, right: int, seat: int, passes: int) -> int:
    """Play the hand to its end from a non-empty line (``hands``: tile masks, unchanged)."""
    return ranked_playout(to_ranks(hands), left, right, seat, passes)


def ranked_playout(hands: list[int], left: int, right: int, seat: int, passes: int) -> int:
    """``playout`` on ranked masks; ``hands`` is consumed (mutated)."""
    fit = _R_FIT2
    row_of = R_ROW
    num_mask = R_NUM
    nxt = _NEXT
    while True:
        hand = hands[seat]
        legal = hand & fit[left][right]
        if not legal:
            passes += 1
            if passes == 4:
                return ranked_block_code(hands)
            seat = nxt[seat]
            continue
        passes = 0
        bit = legal & -legal  # the policy's tile: the heaviest, doubles first
        hand ^= bit
        row = row_of[bit]
        to_left = row[left]
        to_right = row[right]
        if not hand:
            dekabes = to_left >= 0 and to_right >= 0 and not R_DOUBLES & bit
            return (seat & 1) * 2 + (1 if dekabes else 0)
        hands[seat] = hand
        if to_left >= 0:
            if (
                to_right >= 0
                and left != right
                and (
                    (hand & num_mask[to_right]).bit_count() > (hand & num_mask[to_left]).bit_count()
                )
            ):
                right = to_right
            else:
                left = to_left
        else:
            right = to_right
        seat = nxt[seat]


# Greedy's order in rank space (``engine.bots.greedy``: the heaviest tile, the lowest id
# among equals): R_GREEDY_KEY[1 << rank], the larger the preferred.
R_GREEDY_KEY: dict[int, int] = {1 << r: TILE_PIPS[t] * 32 + 31 - t for r, t in enumerate(RANKED)}


def ranked_greedy_bit(legal: int) -> int:
    """Greedy's tile (its rank bit) among a non-empty ranked mask of playable tiles."""
    key = R_GREEDY_KEY
    best = legal & -legal
    legal ^= best
    if legal:
        best_key = key[best]
        while legal:
            bit = legal & -legal
            legal ^= bit
            if key[bit] > best_key:
                best, best_key = bit, key[bit]
    return best


def ranked_playout_models(
    hands: list[int], left: int, right: int, seat: int, passes: int, greedy: int
) -> int:
    """``ranked_playout`` where the seats whose bit is set in ``greedy`` play as the greedy
    level does (heaviest tile, on the left end when it fits) instead of the policy.

    A loop of its own rather than a ``greedy`` test in ``ranked_playout``'s: the plain
    playout is the strong level's whole search, and that test made it ~10 % slower
    (3.95 -> 4.4 µs a playout, 20,000 random deals, same results)."""
    if not greedy:
        return ranked_playout(hands, left, right, seat, passes)
    fit = _R_FIT2
    row_of = R_ROW
    num_mask = R_NUM
    nxt = _NEXT
    while True:
        hand = hands[seat]
        legal = hand & fit[left][right]
        if not legal:
            passes += 1
            if passes == 4:
                return ranked_block_code(hands)
            seat = nxt[seat]
            continue
        passes = 0
        is_greedy = greedy >> seat & 1
        bit = ranked_greedy_bit(legal) if is_greedy else legal & -legal
        hand ^= bit
        row = row_of[bit]
        to_left = row[left]
        to_right = row[right]
        if not hand:
            dekabes = to_left >= 0 and to_right >= 0 and not R_DOUBLES & bit
            return (seat & 1) * 2 + (1 if dekabes else 0)
        hands[seat] = hand
        if to_left >= 0:
            if (
                not is_greedy
                and to_right >= 0
                and left != right
                and (
                    (hand & num_mask[to_right]).bit_count() > (hand & num_mask[to_left]).bit_count()
                )
            ):
                right = to_right
            else:
                left = to_left
        else:
            right = to_right
        seat = nxt[seat]


def opening_choice(hand: int) -> int:
    """Open with a heavy tile from the numbers the hand holds most of."""
    best = -1
    tid = -1
    mask = hand
    while mask:
        low = mask & -mask
        t = low.bit_length() - 1
        mask ^= low
        backing = (hand & NUM_MASK[TILE_LO[t]]).bit_count() + (
            hand & NUM_MASK[TILE_HI[t]]
        ).bit_count()
        score = backing * 10 + WEIGHT[t]
        if score > best:
            best, tid = score, t
    return tid
