"""``screens.screen_for``: which screen, as a pure function of seat views (real engine
folds) and the screen's own small state — no window, no network."""

from __future__ import annotations

from clients.table.screens import UiState, screen_for
from clients.table.ui import Finale
from engine.table_commands import seats_to_act
from tests.table.test_table_offline import match_where


def ui(
    seats=(1,),
    shown=None,
    handoff_done=None,
    revealed_upto=0,
    finale=None,
    match_end_seen=False,
    now=100.0,
):
    return UiState(tuple(seats), shown, handoff_done, revealed_upto, finale, match_end_seen, now)


def test_nothing_yet_is_connecting():
    assert screen_for(None, ui(), []).kind == "connecting"


def test_accepting_and_the_pass_and_play_hand_off():
    m = match_where(lambda m: m.phase == "accept")
    views = {n: m.seat_view(n) for n in (1, 2, 3, 4)}
    assert screen_for(views[1], ui(), seats_to_act(views[1])).kind == "accept"
    # four seats on one device: a seat's private screen only after its hand-off
    first = screen_for(views[1], ui(seats=(1, 2, 3, 4)), seats_to_act(views[1]))
    assert (first.kind, first.seat) == ("handoff", 1)
    after = screen_for(views[1], ui(seats=(1, 2, 3, 4), handoff_done=1), seats_to_act(views[1]))
    assert (after.kind, after.seat) == ("accept", 1)


def test_the_hand_end_lands_then_reveals_and_the_match_end_follows():
    m = match_where(lambda m: m.phase == "match_over")
    view = m.seat_view(1)
    n = len(view["results"])
    finale = Finale(view["last_hand"]["hand_no"], n, started=99.5, hold=1.0)
    assert (
        screen_for(view, ui(revealed_upto=n - 1, finale=finale), seats_to_act(view)).kind
        == "landing"
    )
    late = ui(revealed_upto=n - 1, finale=finale, now=101.0)
    assert screen_for(view, late, seats_to_act(view)).kind == "reveal"
    assert screen_for(view, ui(revealed_upto=n), seats_to_act(view)).kind == "match_over"
    assert (
        screen_for(view, ui(revealed_upto=n, match_end_seen=True), seats_to_act(view)).kind
        == "table"
    )


def test_the_representative_chooses_on_its_own_screen():
    m = match_where(lambda m: m.phase == "choose_opener")
    rep = m.to_act
    view = m.seat_view(rep)
    done = len(view["results"])  # the hand that led here was seen
    assert (
        screen_for(view, ui(seats=(rep,), revealed_upto=done), seats_to_act(view)).kind == "opener"
    )
