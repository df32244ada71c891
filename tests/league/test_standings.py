"""Standings and their order, one test per tie-break level (pure, no database)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Match as EngineMatch
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


# -- the worked example of docs/league.md, through the server --------------------------------
def real_match(seed: int) -> list[dict]:
    """The events of one whole match between random legal players (the engine's fold)."""
    from engine import Match, deal_event

    rng, fold = random.Random(seed), Match()
    events = [{"type": "match_started", "seats": dict.fromkeys("1234", "bot"), "rated": True}]
    fold.apply(events[0])
    while fold.phase != "match_over":
        forced = None if fold.needs_deal() else fold.forced_pass()
        if fold.needs_deal():
            event = deal_event(rng)
        elif forced is not None:
            event = forced
        else:
            event = rng.choice(next(e for n in (1, 2, 3, 4) if (e := fold.legal_events(n))))
        fold.apply(event)
        events.append(event)
    return events


DOCS_MATCH_SEED = 117  # docs/league.md, "One match, counted": B wins 3 hands to 2, one tie


def test_the_docs_worked_example_happens_and_head_to_head_beats_the_entrant_id(db):
    """docs/league.md's example, from a real match: one match line is counted as the
    docs say, and the season's standings read through the API reach the head-to-head
    tie-break between opponents (the reverse of their ids) and then the entrant id."""
    from server.league import projections
    from server.league.models import LeagueMatch, Pair, Season
    from server.tables import services as table_services
    from server.tables.table_state import TableState
    from tests.league.conftest import add_member, new_club
    from tests.server.conftest import client_for, new_member

    state = TableState(EngineMatch())
    for seq, event in enumerate(real_match(DOCS_MATCH_SEED), start=1):
        state.fold(seq, event)
    organizer = new_member("org")
    club, api = new_club(organizer)
    season = Season.objects.create(club=club, name="Example", format="pairs", seed=1)
    pairs = {}
    for name in ("x", "y", "z", "low", "mid", "top"):  # ids in this order
        players = [new_member(name), new_member(name)]
        for player in players:
            add_member(club, api, player)
        pairs[name] = Pair.objects.create(
            season=season, name=name, player_1=players[0], player_2=players[1]
        )
    beat = [("top", "mid"), ("top", "low"), ("x", "top"), ("y", "top"), ("mid", "low")]
    beat += [("mid", "x"), ("z", "mid"), ("low", "y"), ("low", "z")]
    for winner, loser in beat:  # the real match's winner is team B (seats 2 & 4)
        a, b = pairs[loser], pairs[winner]
        seats = {1: a.player_1, 2: b.player_1, 3: a.player_2, 4: b.player_2}
        table = table_services.do_create_seated_table(owner=organizer, players=seats)
        match = LeagueMatch.objects.create(
            table=table, club=club, season=season, pair_a=a, pair_b=b, rated=True,
            started_at=table.created_at,
        )  # fmt: skip
        projections.apply_result(match, state)
    match.refresh_from_db()
    assert (match.winner, match.score_a, match.score_b) == ("B", 0, 4)
    assert (match.hands_won_b, match.hands_won_a, match.hands_tied) == (3, 2, 1)
    assert (match.points_b, match.points_a, match.dekabes_b, match.dekabes_a) == (5, 2, 1, 0)
    projections.rebuild_standings(season)

    rows = client_for(organizer).get(f"/api/clubs/{club.slug}/seasons/{season.pk}/standings")
    rows = rows.json()["results"]
    assert [r["pair"]["name"] for r in rows] == ["top", "mid", "low", "x", "y", "z"]
    assert [r["entrant_id"] for r in rows] == [pairs[n].pk for n in ("top", "mid", "low")] + [
        pairs[n].pk for n in ("x", "y", "z")
    ]
    top, mid, low = rows[:3]
    for row in (top, mid, low):  # level on levels 1-3: head-to-head decides, against the ids
        assert (row["wins"], row["hands_won"], row["hands_lost"], row["points"]) == (2, 10, 10, 14)
        assert (row["ties"], row["played"], row["dekabes"]) == (4, 4, 2)
    assert top["entrant_id"] > mid["entrant_id"] > low["entrant_id"]
    for row in rows[3:]:
        assert (row["wins"], row["hands_won"], row["hands_lost"], row["points"]) == (1, 5, 5, 7)
