"""A board you can follow (issue 24): tiles on the table never move when a tile is added
(only a uniform shrink when the line fills the board), the last tile is marked (each
seat's on request), the ends are named where they are drawn, arrow keys go over legal
tiles only, a refused move is told once, toasts go with the state they describe, the
log opens at its newest entry with a result per hand and the match's, and the end of
a match neither shows a next base nor reopens the match without asking.

Engine folds stand in for the server (``EngineTable``, ``match_where``)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import random

import pygame
import pytest

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.render.frame import table_layout
from clients.table.render.panel import log_lines, panel_scroll_max
from clients.table.render.reveal import reveal_lines
from clients.table.render.table import LINE_MAX_UNIT, line_layout
from clients.table.ui import Answer, HandOver, PickTile, Press, ToggleLastTiles
from engine import Match, deal_event
from tests.engine.helpers import random_event, start
from tests.table.test_table_offline import ALL_HUMAN, app_for, match_where, tap


@pytest.fixture(autouse=True)
def _pygame():
    yield
    pygame.quit()


def _key(app, key, mod=0):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode="", scancode=0))
    return app.tick()


# ---------------------------------------------------------------------------- a still board
def _hands_tile_by_tile(seed: int):
    """The seat view after every play of every hand of a random match (engine fold)."""
    rng = random.Random(seed)
    m = Match.from_events([start(ALL_HUMAN)])
    hand: list[dict] = []
    while m.phase != "match_over":
        event = random_event(m, rng)
        m.apply(event)
        if event["type"] == "play":
            hand.append(m.seat_view(1))
        if m.phase in ("deal", "match_over") and hand:
            yield hand
            hand = []


def _placed(view: dict, area: pygame.Rect) -> lay.LineLayout:
    return lay.layout_line(
        view["line"], area, max_unit=LINE_MAX_UNIT, anchor=lay.opener_index(view)
    )


@pytest.mark.parametrize("size", [(1280, 800), (800, 600), (480, 360)], ids=str)
def test_tiles_on_the_table_never_move_when_a_tile_is_added(size):
    """Each hand laid out tile by tile, as the table draws it: every tile already there
    keeps its rectangle, or, when the line fills the board, all of them shrink alike
    towards the board's centre (their relative positions stay)."""
    area = lay.layout_table(*size, 9).board.inflate(-16, -16)
    shrinks = kept = longest = 0
    for seed in range(6):
        for hand in _hands_tile_by_tile(seed):
            before: dict[str, pygame.Rect] | None = None
            unit = None
            for view in hand:
                placed = _placed(view, area)
                now = {p.tile: p.rect for p in placed.tiles}
                longest = max(longest, len(now))
                if before is not None:
                    assert set(before) <= set(now), "a tile left the line"
                    if placed.unit == unit:
                        assert all(now[t] == r for t, r in before.items()), "a tile moved"
                        kept += 1
                    else:
                        assert placed.unit < unit, "tiles only ever shrink as the line grows"
                        k = placed.unit / unit
                        for tile, rect in before.items():
                            # the same place, relative to the board's centre, scaled by k
                            for was, is_ in ((rect.center, now[tile].center),):
                                for axis in (0, 1):
                                    expect = area.center[axis] + (was[axis] - area.center[axis]) * k
                                    assert abs(is_[axis] - expect) <= 2, (tile, rect, now[tile], k)
                        shrinks += 1
                before, unit = now, placed.unit
    assert longest >= 18, "long lines were laid out"
    assert kept > 100
    if size == (480, 360):
        assert shrinks > 0, "a full board shrinks uniformly"
    else:
        assert shrinks == 0, "tiles are sized for a whole hand: they keep their size"


@pytest.mark.parametrize("size", [(1280, 800), (480, 360)], ids=str)
def test_a_whole_set_laid_tile_by_tile_at_both_ends_never_moves_a_tile(size):
    """All 28 tiles, added alternately at the two ends of a line (the longest line the
    set makes), on the table's board."""
    from tests.table.test_layout import _euler_line

    full = _euler_line(11)
    area = lay.layout_table(*size, 9).board.inflate(-16, -16)
    start_at = 14
    lo = hi = start_at  # line = full[lo : hi + 1]; the opener is full[start_at]
    before: dict[str, tuple[float, float]] = {}
    unit = None
    while lo > 0 or hi < len(full) - 1:
        if (hi - lo) % 2 == 0 and hi < len(full) - 1 or lo == 0:
            hi += 1
        else:
            lo -= 1
        line = full[lo : hi + 1]
        placed = lay.layout_line(line, area, max_unit=LINE_MAX_UNIT, anchor=start_at - lo)
        now = {p.tile: p.rect.center for p in placed.tiles}
        if unit is not None:
            k = placed.unit / unit
            for tile, (x, y) in before.items():
                ex = area.centerx + (x - area.centerx) * k
                ey = area.centery + (y - area.centery) * k
                assert abs(now[tile][0] - ex) <= 2 and abs(now[tile][1] - ey) <= 2, tile
        rects = [p.rect for p in placed.tiles] + [t.rect for t in placed.targets.values()]
        assert all(area.contains(r) for r in rects)
        before, unit = now, placed.unit
    assert len(before) == 28


def test_the_table_draws_the_line_around_its_opener():
    m = match_where(
        lambda m: m.phase == "play" and m.to_act == 1 and len(m.seat_view(1)["line"]) >= 5
    )
    app, conn = app_for(m, [1])
    view = app.view_of(1)
    placed = line_layout(table_layout(app), view)
    opener = [t for t in view["turns"] if t["type"] == "play"][0]["tile"]
    rect = next(p.rect for p in placed.tiles if p.tile == opener)
    board = table_layout(app).board
    assert abs(rect.centerx - board.centerx) <= 1 and abs(rect.centery - board.centery) <= 1


# ---------------------------------------------------------------------------- marks
def test_the_last_tile_played_is_marked_and_each_seats_on_request():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and len({t["seat"] for t in m.seat_view(1)["turns"] if t["type"] == "play"}) >= 3
        )
    )
    app, conn = app_for(m, [1])
    app.tick([])
    view = app.view_of(1)
    plays = [t for t in view["turns"] if t["type"] == "play"]
    placed = {p.tile: p.rect for p in line_layout(table_layout(app), view).tiles}
    last = placed[plays[-1]["tile"]]
    surface = app.window.surface
    assert tuple(surface.get_at((last.left - 2, last.centery)))[:3] == d.GOLD, "framed"
    earlier = placed[plays[0]["tile"]]
    assert tuple(surface.get_at((earlier.left - 2, earlier.centery)))[:3] != d.GOLD
    corner = (earlier.right - 2, earlier.bottom - 2)
    plain = tuple(surface.get_at(corner))
    tap(app, ToggleLastTiles)  # a tap on a seat box (or T)
    assert app.progress.last_tiles
    by_seat = {t["seat"]: t["tile"] for t in plays}
    for seat, tile in by_seat.items():
        team = "A" if seat in (1, 3) else "B"
        badge = placed[tile]
        assert tuple(surface.get_at((badge.right - 2 + 5, badge.bottom - 2)))[:3] in (
            d.TEAM_COLOURS[team],
            d.INK,
        ), (seat, tile)
    if plays[0]["tile"] not in by_seat.values():
        assert tuple(surface.get_at(corner)) == plain
    _key(app, pygame.K_t)
    assert not app.progress.last_tiles


def test_the_ends_are_named_where_they_are_drawn(monkeypatch):
    """A hint's "left end" is the end labelled "left end" on the board, wherever the
    line turned."""
    m = match_where(
        lambda m: m.phase == "play" and m.to_act == 1 and len(m.seat_view(1)["line"]) >= 12
    )
    app, conn = app_for(m, [1])
    drawn: list[tuple[str, pygame.Rect]] = []
    real = d.text

    def recording(surface, value, pos, *args, **kwargs):
        rect = real(surface, value, pos, *args, **kwargs)
        drawn.append((str(value), rect))
        return rect

    monkeypatch.setattr(d, "text", recording)
    app.tick([])
    placed = line_layout(table_layout(app), app.view_of(1))
    for key in ("left", "right"):
        target = placed.targets[key].rect
        names = [r for text, r in drawn if text == app.tr(f"end.{key}")]
        assert names, key
        assert any(r.colliderect(target.inflate(2 * r.w + 16, 60)) for r in names), key
    from clients.table.news import hint_text

    said = hint_text(app.tr, {"type": "play", "tile": "3-5", "end": "left"}, opening=False)
    assert app.tr("end.left") in said


def _positions_with_a_double_at_an_end(count: int):
    """Seat 1 to play, a line of 5+ tiles with a double at one of its ends."""
    found = []
    for seed in range(200):
        rng = random.Random(seed)
        m = Match.from_events([start(ALL_HUMAN)])
        while m.phase != "match_over" and len(found) < count:
            view = m.seat_view(1)
            line = view["line"]
            if (
                m.phase == "play"
                and m.to_act == 1
                and len(line) >= 5
                and any(item["a"] == item["b"] for item in (line[0], line[-1]))
            ):
                found.append(m)
                break
            m.apply(random_event(m, rng))
        if len(found) >= count:
            return found
    return found


@pytest.mark.parametrize("lang", ["en", "es", "ru", "ms"])
@pytest.mark.parametrize("size", [(1280, 800), (800, 600)])
def test_end_names_stay_clear_of_tiles_and_marks_and_share_one_form(monkeypatch, lang, size):
    """Issue 34, point 6: an end's name was covered by a standing double and by the seat
    markers, and Malay wrote "Ka" for the right end beside "hujung kiri" for the left.
    Now both names take one form and neither touches a tile, the last tile's mark or a
    seat's badge."""
    drawn: list[tuple[str, pygame.Rect]] = []
    real = d.text

    def recording(surface, value, pos, *args, **kwargs):
        rect = real(surface, value, pos, *args, **kwargs)
        drawn.append((str(value), rect))
        return rect

    monkeypatch.setattr(d, "text", recording)
    for m in _positions_with_a_double_at_an_end(4):
        app, conn = app_for(m, [1], lang=lang, size=size)
        app.progress.last_tiles = True  # each seat's badge on its last tile
        drawn.clear()
        app.tick()
        view = app.view_of(1)
        placed = line_layout(table_layout(app), view)
        long = {app.tr("end.left"), app.tr("end.right")}
        short = {app.tr("end.tag_left"), app.tr("end.tag_right")}
        names = [(t, r) for t, r in drawn if t in long | short]
        assert len(names) == 2, names
        assert {t for t, _ in names} in (long, short), f"mixed forms: {names}"
        size_badge = max(12, min(18, placed.unit // 2 + 4))
        where = {item.tile: item.rect for item in placed.tiles}
        marks = []
        for turn in view["turns"]:
            if turn["type"] == "play" and turn["tile"] in where:
                badge = pygame.Rect(0, 0, size_badge + 6, size_badge + 6)
                badge.center = (where[turn["tile"]].right - 2, where[turn["tile"]].bottom - 2)
                marks.append(badge)
        for text, rect in names:
            inside = rect.inflate(-2, -2)
            for item in placed.tiles:
                assert not inside.colliderect(item.rect), (text, rect, item.tile, item.rect)
            for badge in marks:
                assert not inside.colliderect(badge), (text, rect, "a seat's badge")
        pygame.quit()


# ---------------------------------------------------------------------------- keys
def test_arrow_keys_move_between_legal_tiles_only():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and len({e["tile"] for e in m.legal_events(1)}) >= 2
            and len(m.seat_view(1)["hand"]) > len({e["tile"] for e in m.legal_events(1)})
        )
    )
    app, conn = app_for(m, [1])
    legal = set(app.legal_plays(1))
    seen = []
    for _ in range(2 * len(legal)):
        _key(app, pygame.K_RIGHT)
        seen.append(app.selection.tile)
    assert set(seen) == legal, "every legal tile, and only those"
    _key(app, pygame.K_LEFT)
    assert app.selection.tile in legal
    illegal = next(t for t in app.view_of(1)["hand"] if t not in legal)
    tap(app, PickTile(illegal))
    _key(app, pygame.K_RIGHT)
    assert app.selection.tile in legal


def test_arrow_keys_select_nothing_when_it_is_not_my_turn():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    _key(app, pygame.K_RIGHT)
    assert app.selection.tile is None


def test_a_refused_move_is_said_once():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and any(
                t not in {e.get("tile") for e in m.legal_events(1)} for t in m.seat_view(1)["hand"]
            )
        )
    )
    app, conn = app_for(m, [1])
    illegal = next(t for t in app.view_of(1)["hand"] if t not in app.legal_plays(1))
    tap(app, PickTile(illegal))
    _key(app, pygame.K_RETURN)  # Enter on it: the guidance line already says why
    from clients.table.render.table import guidance

    assert illegal in guidance(app, app.view_of(1), 1)
    assert [t.text for t in app.effects.toasts if illegal in t.text] == [], "said once"
    assert conn.sent == [], "nothing was sent"


# ---------------------------------------------------------------------------- toasts
def test_no_tile_fits_goes_once_it_is_my_turn_again():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and [e["type"] for e in m.legal_events(1)] == ["pass"]
            and all(len(m.seat_view(1)["hand"]) > 0 for _ in [0])
        )
    )
    app, conn = app_for(m, [1])
    conn.act(1, "pass")  # what the server does for the seat
    app.tick([])
    said = app.tr("play.pass_forced")
    assert any(t.text == said for t in app.effects.toasts)
    while conn.match.phase == "play" and conn.match.to_act != 1:
        seat = conn.match.to_act
        event = conn.match.legal_events(seat)[0]
        conn.act(
            seat, event["type"], **{k: v for k, v in event.items() if k not in ("seat", "type")}
        )
        app.tick([])
    if conn.match.phase == "play":
        assert not any(t.text == said for t in app.effects.toasts), "it is my turn now"


def test_no_toast_on_the_finished_board():
    m = match_where(
        lambda m: (
            m.phase == "play"
            and m.to_act == 1
            and len(m.seat_view(1)["hand"]) == 1
            and any(e["type"] == "play" for e in m.legal_events(1))
        )
    )
    app, conn = app_for(m, [1])
    app.toast(app.tr("hint.none"))  # something said about this board
    app.toast(app.tr("status.offline"), public=True, lasts="always")  # about the link
    tile = next(iter(app.legal_plays(1)))
    app.play(tile, app.legal_plays(1)[tile][0])
    conn.match.apply(deal_event(random.Random(2)))
    conn.version += 1
    conn.push()
    screen = app.tick([])
    assert screen.kind in ("landing", "reveal")
    texts = [t.text for t in app.effects.toasts]
    assert app.tr("hint.none") not in texts and app.tr("status.offline") in texts


def test_switching_the_language_leaves_no_toast_in_the_old_one():
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    app.toast(app.tr("hint.none"))
    app.toast(app.tr("err.not_your_turn"), error=True)
    _key(app, pygame.K_g)  # English -> Spanish
    assert app.tr.lang == "es"
    texts = [t.text for t in app.effects.toasts]
    assert texts == [app.tr("lang.switched", name=app.tr("lang.name"))]


def test_switching_the_language_twice_says_only_the_one_chosen_last():
    """G pressed twice: "Idioma: Español" goes with Spanish, only "Язык: Русский" stays
    (not three toasts in three languages)."""
    m = match_where(lambda m: m.phase == "play" and m.to_act == 2)
    app, conn = app_for(m, [1])
    _key(app, pygame.K_g)  # English -> Spanish
    _key(app, pygame.K_g)  # Spanish -> Russian
    assert app.tr.lang == "ru"
    app.tick([])
    texts = [t.text for t in app.effects.toasts]
    assert texts == [app.tr("lang.switched", name=app.tr("lang.name"))]


# ---------------------------------------------------------------------------- the log
def test_the_log_opens_at_its_newest_entry_with_results_and_without_pauses():
    rng = random.Random(8)
    m = Match.from_events([start(ALL_HUMAN)])
    events = [start(ALL_HUMAN)]
    while m.phase != "match_over":
        event = random_event(m, rng)
        m.apply(event)
        events.append(event)
        if event["type"] == "play" and rng.random() < 0.2:
            events.append({"type": "pause", "seat": 1})
            events.append({"type": "resume", "seat": 1})
    app, conn = app_for(m, [1])
    app.progress.match_end_seen = True
    app.tick([])  # the board is on screen: keys act on what was drawn
    entries = [
        {"seq": i + 1, "type": e["type"], "seat": e.get("seat"), "event": e}
        for i, e in enumerate(events)
    ]
    lines = log_lines(app.tr, entries, app.view_of(1))
    assert not any("rules or the log" in line or "play goes on" in line for line in lines)
    results = [line for line in lines if line.startswith("§ Result: ")]
    assert len(results) == len(m.results)
    winner = m.seat_view(1)["winner"]
    assert lines[-1].startswith(f"§ Match over: Team {winner} wins"), lines[-1]
    _key(app, pygame.K_l)
    conn.updates.put(
        __import__("clients.table.connection", fromlist=["EventLog"]).EventLog(1, entries)
    )
    app.tick([])
    assert app.panel.name == "log" and panel_scroll_max(app) > 0
    assert min(app.panel.scroll, panel_scroll_max(app)) == panel_scroll_max(app), "at the end"
    _key(app, pygame.K_PAGEUP)
    assert app.panel.scroll == panel_scroll_max(app) - 200, "and scrolls back from there"


# ---------------------------------------------------------------------------- the match end
def test_the_last_reveal_says_the_match_is_over_not_a_next_base():
    m = match_where(lambda m: m.phase == "match_over")
    app, conn = app_for(m, [1])
    app.progress.revealed_upto = len(m.results) - 1
    assert app.tick([]).kind == "reveal"
    lines = reveal_lines(app)
    assert not any("Next base" in line for line in lines), lines
    assert any(app.tr("reveal.match_over") in line for line in lines)


def test_undo_at_the_end_of_the_match_asks_first():
    m = match_where(lambda m: m.phase == "match_over")
    app, conn = app_for(m, [1])
    state = app.seating.states[1]
    app.seating.states[1] = type(state)(**{**state.__dict__, "allowed": [*state.allowed, "undo"]})
    assert app.tick([]).kind == "match_over"
    _key(app, pygame.K_u)
    assert app.progress.confirm == "undo_match" and conn.sent == []
    tap(app, Answer(False))
    assert conn.sent == []
    tap(app, Press("undo"))  # the toolbar's Undo under the dialog: the same question
    assert app.progress.confirm == "undo_match"
    tap(app, Answer(True))
    assert conn.sent[-1]["type"] == "undo"


def test_pass_and_play_hand_off_is_also_the_start_of_every_private_screen():
    # the hand-off stays the way into a private screen (a regression guard for the
    # move of the drawing into one module per screen)
    m = match_where(lambda m: m.phase == "accept")
    app, conn = app_for(m, [1, 2, 3, 4])
    screen = app.tick([])
    assert screen.kind == "handoff"
    tap(app, HandOver(screen.seat))
    assert app.tick([]).kind == "accept"
