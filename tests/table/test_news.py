"""``news.News``: what is new in a seat view against what the player has seen, as plain
data (no pygame, no clock); and ``keys.command_for``, the keyboard's tables."""

from __future__ import annotations

from clients.table.keys import FIRST, ONLY, PANEL, TABLE, command_for
from clients.table.news import Changes, HandEnd, News, hint_text
from clients.table.ui import Screen


def line(*tiles, seat=2):
    return [{"tile": t, "seat": seat} for t in tiles]


def test_nothing_is_news_on_a_screen_first_seen():
    news = News()
    view = {"line": line("6-6", "6-3"), "turns": [{"type": "play"}, {"type": "pass", "seat": 3}]}
    assert news.changes(view) == Changes()
    assert news.line == ["6-6", "6-3"] and news.turns == 2


def test_tiles_new_in_the_line_and_passes_since_are_news_once():
    news = News(line=["6-6"], turns=1)
    view = {
        "line": line("6-3", seat=4) + line("6-6", seat=1),
        "turns": [{"type": "play"}, {"type": "pass", "seat": 2}, {"type": "play"}],
    }
    assert news.changes(view) == Changes(placed=(("6-3", 4),), passes=(2,))
    assert news.changes(view) == Changes(), "seen now"


def test_a_line_that_is_not_the_one_seen_plus_tiles_is_no_flight():
    news = News(line=["6-6", "6-3"], turns=2)
    view = {"line": line("5-5", "5-1", "1-1"), "turns": []}  # another hand
    assert news.changes(view).placed == ()


def test_forgetting_the_screen_makes_its_view_old():
    news = News(line=["6-6"], turns=1)
    news.forget_screen()
    assert news.changes({"line": line("6-6", "6-1"), "turns": [{}, {}]}) == Changes()


def hand_over(results: int, last_tile="0-1", seat=3):
    turns = [
        {"type": "play", "tile": "6-6", "seat": 1},
        {"type": "play", "tile": last_tile, "seat": seat},
    ]
    return {
        "results": [{}] * results,
        "last_hand": {"hand_no": 4, "turns": turns, "line": line("6-6", last_tile)},
    }


def test_a_new_result_is_a_hand_end_whose_last_tile_flies():
    news = News(line=["6-6"], turns=1, results=3)
    assert news.hand_end(hand_over(4)) == HandEnd(4, 4, ("0-1", 3))
    assert news.line == ["6-6", "0-1"] and news.turns == 2, "the finished board is seen"
    assert news.hand_end(hand_over(4)) is None, "told once"


def test_a_last_tile_already_seen_does_not_fly_again():
    news = News(line=["6-6", "0-1"], turns=2, results=3)
    assert news.hand_end(hand_over(4)) == HandEnd(4, 4, None)


def test_results_before_we_came_and_a_new_match():
    news = News()
    assert news.hand_end(hand_over(7)) is None, "what was over before we came is not news"
    assert news.hand_end({"results": []}) is True, "fewer results: a new match began"
    news.forget_results()
    assert news.hand_end(hand_over(1)) is None


def test_a_redeal_is_the_same_hand_number_with_another_hand():
    news = News()
    deal = {"phase": "accept", "hand_no": 2, "hand": ["1-1", "2-2"]}
    assert not news.redealt(1, deal), "the first deal"
    assert not news.redealt(1, deal), "the same deal again"
    assert news.redealt(1, {**deal, "hand": ["3-3", "4-4"]})
    assert not news.redealt(1, {**deal, "hand_no": 3}), "the next hand"
    assert not news.redealt(2, {"phase": "play", "hand_no": 3, "hand": []})


def test_hint_texts():
    def tr(key, **fields):
        return key + "".join(f" {k}={v}" for k, v in sorted(fields.items()))

    assert hint_text(tr, {"type": "play", "tile": "0-1"}, opening=True) == "hint.open tile=0-1"
    assert (
        hint_text(tr, {"type": "play", "tile": "0-1", "end": "left"}, opening=False)
        == "hint.play end=end.left tile=0-1"
    )
    assert hint_text(tr, {"type": "choose_opener", "opener": 3}, False) == "hint.opener n=3"
    assert hint_text(tr, {"type": "pass"}, False) == "hint.pass"
    assert hint_text(tr, {"type": "something_else"}, False) is None


def test_the_keys_of_each_screen():
    table, accept = Screen("table", 1), Screen("accept", 1)
    assert command_for("confirm", table, confirming=False, panel_open=False) is TABLE["confirm"]
    assert command_for("accept", accept, False, False) is FIRST["accept"]["accept"]
    assert command_for("hint", accept, False, False) is TABLE["hint"], "the table's keys too"
    assert command_for("hint", Screen("reveal"), False, False) not in TABLE.values()
    assert command_for("log", Screen("reveal"), False, False) is ONLY["reveal"]["log"]
    assert command_for("select_next", table, False, panel_open=True) not in TABLE.values()
    assert command_for("page_down", table, False, panel_open=True) is PANEL["page_down"]
    assert command_for("rules", table, confirming=True, panel_open=True) not in PANEL.values()
