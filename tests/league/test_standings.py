"""Standings and their order, one test per tie-break level (pure, no database)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.league.standings import MatchLine, Row, compute_standings


def won(
    winners: tuple, losers: tuple, hands=(3, 2), points=(4, 1), tied=0, dekabes=(0, 0)
) -> MatchLine:
    """A line where ``winners`` (side A) beat ``losers`` (side B)."""
    return MatchLine(
        side_a=winners,
        side_b=losers,
        winner="A",
        hands_won_a=hands[0],
        hands_won_b=hands[1],
        hands_tied=tied,
        points_a=points[0],
        points_b=points[1],
        dekabes_a=dekabes[0],
        dekabes_b=dekabes[1],
    )


def order(lines, byes=None) -> list:
    return [row.entrant for row in compute_standings(lines, byes or {})]


def test_a_line_adds_up_for_every_entrant_of_each_side():
    line = MatchLine(
        side_a=("ann", "bob"),
        side_b=("cat", "dan"),
        winner="B",
        hands_won_a=3,
        hands_won_b=4,
        hands_tied=2,
        points_a=2,
        points_b=5,
        dekabes_a=1,
        dekabes_b=2,
    )
    rows = {row.entrant: row for row in compute_standings([line, line], {})}
    assert rows["cat"] == Row(
        entrant="cat",
        played=2,
        wins=2,
        byes=0,
        hands_won=8,
        hands_lost=6,
        points=10,
        dekabes=4,
        ties=4,
    )
    assert rows["ann"] == Row(
        entrant="ann",
        played=2,
        wins=0,
        byes=0,
        hands_won=6,
        hands_lost=8,
        points=4,
        dekabes=2,
        ties=4,
    )
    assert rows["bob"] == Row(**{**vars(rows["ann"]), "entrant": "bob"})


def test_level_1_match_wins_first():
    lines = [
        won(("p1",), ("p2",), hands=(4, 0), points=(8, 0)),
        won(("p2",), ("p3",), hands=(4, 3), points=(4, 3)),
        won(("p3",), ("p1",), hands=(4, 3), points=(4, 3)),
        won(("p3",), ("p4",), hands=(4, 3), points=(4, 3)),
    ]
    # p1 has the best hand difference (+3) and points, p3 two wins
    assert order(lines)[0] == "p3"


def test_level_2_hand_difference_before_points():
    lines = [
        won(("A",), ("X",), hands=(4, 0), points=(4, 0)),  # A: 1 win, +4, 4 points
        won(("B",), ("Y",), hands=(4, 3), points=(9, 2)),
    ]  # B: 1 win, +1, 9 points
    assert order(lines)[:2] == ["A", "B"]


def test_level_3_points_before_head_to_head():
    lines = [
        won(("B",), ("A",), hands=(4, 3), points=(4, 3)),  # B beat A head to head
        won(("A",), ("X",), hands=(4, 3), points=(8, 0)),
        won(("X",), ("B",), hands=(4, 3), points=(4, 3)),
    ]
    # A and B: 1 win, hands 7-7, but A has 11 points, B 8
    rows = {r.entrant: r for r in compute_standings(lines, {})}
    assert (rows["A"].wins, rows["A"].hand_difference) == (
        rows["B"].wins,
        rows["B"].hand_difference,
    )
    assert order(lines).index("A") < order(lines).index("B")


def test_level_4_head_to_head_between_two():
    lines = [won(("zed",), ("amy",)), won(("amy",), ("x1",)), won(("x2",), ("zed",))]
    # zed and amy: 1 win, 1 loss, same hands and points; zed beat amy
    assert order(lines)[:2] == ["x2", "zed"]
    assert order(lines).index("zed") < order(lines).index("amy")


def test_level_4_head_to_head_among_three_counts_each_tied_opponent():
    lines = [
        won(("top",), ("mid",)),
        won(("top",), ("low",)),
        won(("x",), ("top",)),
        won(("y",), ("top",)),
        won(("mid",), ("low",)),
        won(("mid",), ("x",)),
        won(("z",), ("mid",)),
        won(("low",), ("y",)),
        won(("low",), ("z",)),
    ]
    # top, mid, low: 2 wins 2 losses each, equal hands and points;
    # among them top +2, mid 0, low -2.  x, y, z: 1-1 and never met: id order.
    assert order(lines) == ["top", "mid", "low", "x", "y", "z"]


def test_level_4_in_the_individual_format_partners_are_not_opponents():
    lines = [
        won(("zed", "u"), ("amy", "v")),  # zed beat amy
        won(("amy", "w"), ("y1", "y2")),
        won(("z1", "z2"), ("zed", "x")),
        won(("amy", "zed"), ("m1", "m2")),  # partners: not head to head
        won(("n1", "n2"), ("amy", "zed")),
    ]
    ranked = order(lines)
    tied = [e for e in ranked if e in ("amy", "zed")]
    assert tied == ["zed", "amy"]


def test_level_5_entrant_id_when_head_to_head_is_level():
    lines = [won((3,), (2,)), won((2,), (1,)), won((1,), (3,))]  # a cycle
    assert order(lines) == [1, 2, 3]
    assert order([won((30,), (10,)), won((10,), (20,)), won((20,), (30,))]) == [10, 20, 30]


def test_a_bye_counts_as_a_match_won_with_no_hands_or_points():
    lines = [
        won(("B",), ("C",), hands=(4, 3), points=(4, 3)),
        won(("C",), ("A",), hands=(4, 3), points=(4, 3)),
    ]
    rows = {r.entrant: r for r in compute_standings(lines, {"A": 1, "D": 1, "E": 0})}
    assert rows["A"] == Row(
        entrant="A", played=1, wins=1, byes=1, hands_won=3, hands_lost=4, points=3
    )
    assert rows["D"] == Row(entrant="D", played=0, wins=1, byes=1)
    assert rows["E"] == Row(entrant="E")  # listed although it has not played
    # B, C and D have one win and A one: B (+1) and D (0) ahead of A (-1)
    assert order(lines, {"A": 1, "D": 1, "E": 0}) == ["B", "C", "D", "A", "E"]


def test_ties_count_tied_hands_for_both_sides():
    rows = compute_standings([won(("A",), ("B",), tied=3)], {})
    assert [r.ties for r in rows] == [3, 3]


def test_the_order_does_not_depend_on_the_order_of_lines():
    lines = [
        won(("top",), ("mid",)),
        won(("top",), ("low",)),
        won(("x",), ("top",)),
        won(("y",), ("top",)),
        won(("mid",), ("low",)),
        won(("mid",), ("x",)),
        won(("z",), ("mid",)),
        won(("low",), ("y",)),
        won(("low",), ("z",)),
    ]
    assert compute_standings(lines, {}) == compute_standings(list(reversed(lines)), {})


@pytest.mark.parametrize(
    "bad",
    [
        MatchLine(("a",), ("b",), "draw", 1, 1, 0, 1, 1, 0, 0),
        MatchLine(("a",), ("a",), "A", 1, 1, 0, 1, 1, 0, 0),
        MatchLine((), ("b",), "A", 1, 1, 0, 1, 1, 0, 0),
    ],
)
def test_bad_lines_are_refused(bad):
    with pytest.raises(ValueError):
        compute_standings([bad], {})


entrant_ids = st.integers(0, 7)


@st.composite
def match_lines(draw):
    a, b, c, d = draw(st.permutations(range(8)))[:4]
    pairs_format = draw(st.booleans())
    side_a, side_b = ((a,), (b,)) if pairs_format else ((a, c), (b, d))
    numbers = [draw(st.integers(0, 6)) for _ in range(7)]
    return MatchLine(side_a, side_b, draw(st.sampled_from("AB")), *numbers)


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(match_lines(), max_size=30), byes=st.dictionaries(entrant_ids, st.integers(0, 3))
)
def test_totals_add_up_and_rows_come_in_key_order(lines, byes):
    rows = compute_standings(lines, byes)
    assert len({r.entrant for r in rows}) == len(rows)
    won_sides = sum(len(line.side_a if line.winner == "A" else line.side_b) for line in lines)
    assert sum(r.wins for r in rows) == won_sides + sum(byes.values())
    assert sum(r.played for r in rows) == sum(len(line.side_a) + len(line.side_b) for line in lines)
    assert sum(r.hands_won for r in rows) == sum(r.hands_lost for r in rows)
    keys = [(r.wins, r.hand_difference, r.points) for r in rows]
    assert keys == sorted(keys, reverse=True)
