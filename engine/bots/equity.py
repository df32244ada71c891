"""Match equity: the probability of winning the match from a score situation.

A hand's worth depends on the match: a Dékabès scores double, after a tie the base is
2, the loser's score goes back to 0, and the winner chooses the next opener. The strong
bot scores hand outcomes by the equity of the situation they lead to, so it plays for
the match, not for the hand (e.g. chasing a Dékabès matters more at 2-0 than at 3-0).

The table comes from a small Markov model of equal teams: the team that chooses the
opener wins a hand with probability ``P_OPENER_WINS``, hands tie with ``P_TIE`` and a
won hand is a Dékabès with ``P_DEKABES``. Figures measured in self-play (see
docs/bots.md); equity is not very sensitive to them.
"""

from __future__ import annotations

from functools import lru_cache

WINNING_SCORE = 4
P_OPENER_WINS = 0.56
P_TIE = 0.04
P_DEKABES = 0.22

# Outcome codes of a hand, from one team's point of view.
WIN, WIN_DEKABES, LOSS, LOSS_DEKABES, TIE = range(5)


@lru_cache(maxsize=1)
def _table() -> dict[tuple[int, int, int, int], float]:
    """equity[(us, them, base, we_choose)] for every reachable non-final situation."""
    states = [
        (us, them, base, choose)
        for us in range(WINNING_SCORE)
        for them in range(WINNING_SCORE)
        for base in (1, 2)
        for choose in (0, 1)
    ]
    value = {s: 0.5 for s in states}
    p_win_choosing = P_OPENER_WINS
    p_lose_choosing = 1.0 - P_OPENER_WINS - P_TIE
    for _ in range(400):  # value iteration; ties loop back, so iterate to a fixed point
        new = {}
        for us, them, base, choose in states:
            p_win = p_win_choosing if choose else p_lose_choosing
            p_loss = 1.0 - p_win - P_TIE
            win = (1 - P_DEKABES) * _after(value, us, them, base, True, 1) + P_DEKABES * _after(
                value, us, them, base, True, 2
            )
            loss = (1 - P_DEKABES) * _after(value, us, them, base, False, 1) + P_DEKABES * _after(
                value, us, them, base, False, 2
            )
            tie = value[(us, them, 2, choose)]
            new[(us, them, base, choose)] = p_win * win + p_loss * loss + P_TIE * tie
        value = new
    return value


def _after(
    value: dict[tuple[int, int, int, int], float],
    us: int,
    them: int,
    base: int,
    we_won: bool,
    factor: int,
) -> float:
    points = base * factor
    if we_won:
        return 1.0 if us + points >= WINNING_SCORE else value[(us + points, 0, 1, 1)]
    return 0.0 if them + points >= WINNING_SCORE else value[(0, them + points, 1, 0)]


def equity(us: int, them: int, base: int, we_choose: bool) -> float:
    """Probability that 'us' wins the match from this situation (before the next hand)."""
    if us >= WINNING_SCORE:
        return 1.0
    if them >= WINNING_SCORE:
        return 0.0
    return _table()[(us, them, min(base, 2), 1 if we_choose else 0)]


def outcome_values(us: int, them: int, base: int, we_opened: bool) -> tuple[float, ...]:
    """Match equity after each hand outcome (indexed by WIN..TIE) of the hand being played."""
    table = _table()

    def after(we_won: bool, factor: int) -> float:
        return _after(table, us, them, base, we_won, factor)

    return (
        after(True, 1),
        after(True, 2),
        after(False, 1),
        after(False, 2),
        table[(us, them, 2, 1 if we_opened else 0)],
    )
