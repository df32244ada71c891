"""The real table client, headless, against the live test server and real bot runners.

Every interaction goes through pygame's event queue (mouse, finger, keys) and the
client's own input handling; the server's log is the judge of what was played.
"""

from __future__ import annotations

import pygame
import pytest

from clients.table.ui import Accept, Continue, HandOver, PickTile, PlaceAt
from tests.table.driver import TableDriver, ivory_pixels


@pytest.fixture
def driver_factory(live_server_url):
    made = []

    def make(**options):
        driver = TableDriver(live_server_url, **options)
        made.append(driver)
        return driver

    yield make
    for driver in made:
        driver.close()


def _plays_of_seat_1(drv: TableDriver) -> list[str]:
    """Seat 1's plays in the server's log, in order. The log is the judge: a play that
    ends the hand is followed by a new deal, which may hold the same tile again."""
    events = drv.owner.all_events(drv.code, 1)
    return [e["event"]["tile"] for e in events if e["type"] == "play" and e["seat"] == 1]


def _play_hand_by_taps(drv: TableDriver, check_preview: bool = False) -> None:
    """Accept, then play every turn of seat 1 by taps until the hand is over."""
    drv.accept_by_tap()
    hands_done = len(drv.app.newest.view["results"])
    checked = False
    while True:
        drv.until(
            lambda: (
                drv.my_turn()
                or drv.screen.kind == "reveal"
                or len(drv.app.newest.view["results"]) > hands_done
            ),
            timeout=60,
            what="my turn or the end of the hand",
        )
        if drv.screen.kind == "reveal" or len(drv.app.newest.view["results"]) > hands_done:
            return
        legal = drv.legal_tiles()
        tile = sorted(legal)[0]
        if check_preview and len(drv.app.newest.view["line"]) >= 6 and not drv.shot:
            drv.tap(drv.hit(PickTile(tile)))
            drv.settle(0.3)
            drv.screenshot("table-mid-hand")
            drv.shot = True
            drv.tap(drv.hit(PickTile(tile)))  # tapping it again puts it back
            assert drv.app.selection.tile is None
        if check_preview and not checked:
            before = drv.event_count()
            drv.tap(drv.hit(PickTile(tile)))
            drv.settle(0.3)
            assert drv.app.selection.tile == tile
            assert drv.event_count() == before, "a tap on a tile must not play it"
            assert drv.has_hit(PlaceAt(legal[tile][0])), "the ghost placement is tappable"
            checked = True
        else:
            drv.tap(drv.hit(PickTile(tile)))
        played = _plays_of_seat_1(drv)
        version = drv.app.newest.version
        drv.tap(drv.hit(PlaceAt(legal[tile][0])))
        drv.until(lambda: drv.app.newest.version > version, what="the play to land")
        assert _plays_of_seat_1(drv) == [*played, tile]


def test_a_human_completes_a_hand_by_taps_and_sees_the_reveal(driver_factory):
    drv = driver_factory()
    drv.until(lambda: drv.screen.kind == "accept", what="the accept screen")
    drv.screenshot("acceptance")
    _play_hand_by_taps(drv, check_preview=True)
    drv.until(lambda: drv.screen.kind == "reveal", what="the reveal")
    drv.screenshot("reveal")
    last = drv.app.newest.view["last_hand"]
    server = drv.server_state().view["last_hand"]
    assert last == server and last["result"] in ("domino", "block", "tie")
    assert sum(len(h) for h in last["hands"].values()) > 0 or last["result"] == "domino"
    drv.tap(drv.hit(Continue()))
    assert drv.tick().kind in ("accept", "table")


def test_mid_hand_table_screenshot_and_finger_taps_count_once(driver_factory):
    drv = driver_factory()
    drv.accept_by_tap()
    drv.until_my_turn(timeout=60, what="my turn")
    legal = drv.legal_tiles()
    tile = sorted(legal)[0]
    ignored = drv.app.pointer.ignored_synthetic
    drv.finger_tap(drv.hit(PickTile(tile)))  # finger + the mouse SDL made from it
    assert drv.app.selection.tile == tile, "one touch selects once (a second tap would deselect)"
    assert drv.app.pointer.ignored_synthetic == ignored + 2
    drv.screenshot("table-mid-hand-preview")
    version = drv.app.newest.version
    drv.finger_tap(drv.hit(PlaceAt(legal[tile][0])))
    drv.until(lambda: drv.app.newest.version > version, what="the play to land")
    events = drv.owner.all_events(drv.code, 1)
    plays = [e for e in events if e["type"] == "play" and e["seat"] == 1]
    assert [p["event"]["tile"] for p in plays] == [tile], "exactly one play sent"


def test_drag_a_tile_onto_an_end_plays_it(driver_factory):
    drv = driver_factory()
    drv.accept_by_tap()
    drv.until_my_turn(timeout=60, what="my turn")
    legal = drv.legal_tiles()
    tile = sorted(legal)[0]
    end = legal[tile][0]
    # Before the drag the end targets are drawn even with nothing selected.
    version = drv.app.newest.version
    drv.drag(drv.hit(PickTile(tile)), drv.hit(PlaceAt(end)))
    drv.until(lambda: drv.app.newest.version > version, what="the dragged play to land")
    played = [
        e["event"]
        for e in drv.owner.all_events(drv.code, 1)
        if e["type"] == "play" and e["seat"] == 1
    ]
    assert played and played[-1]["tile"] == tile


def test_keyboard_only_play(driver_factory):
    drv = driver_factory()
    drv.until(lambda: drv.screen.kind == "accept", what="the accept screen")
    drv.key(pygame.K_RETURN)  # accept
    drv.until(lambda: drv.screen.kind != "accept", what="the acceptance")
    for _ in range(2):  # two of my turns, keys only
        drv.until_my_turn(timeout=60, what="my turn")
        legal = drv.legal_tiles()
        drv.key(pygame.K_RIGHT)  # first legal tile
        tile = drv.app.selection.tile
        assert tile in legal
        if len(legal[tile]) > 1:
            drv.key(pygame.K_DOWN)  # the right end
            assert drv.app.selection.end == "right"
        played = _plays_of_seat_1(drv)
        version = drv.app.newest.version
        drv.key(pygame.K_RETURN)
        drv.until(lambda: drv.app.newest.version > version, what="the keyed play")
        assert _plays_of_seat_1(drv) == [*played, tile]
        if drv.app.newest.view["phase"] != "play":
            break


def test_hint_previews_and_appends_nothing(driver_factory):
    drv = driver_factory()
    drv.accept_by_tap()
    drv.until_my_turn(timeout=60, what="my turn")
    before = drv.event_count()
    drv.key(pygame.K_h)
    drv.until(lambda: drv.app.selection.hint is not None, what="the hint")
    hint = drv.app.selection.hint.event
    assert hint["type"] == "play" and hint["tile"] in drv.legal_tiles()
    assert drv.app.selection.tile == hint["tile"], "the hint is shown as a preview"
    drv.settle(0.3)
    assert drv.event_count() == before, "a hint appends nothing"


def test_rules_panel_pauses_the_bots_and_shows_russian(driver_factory):
    drv = driver_factory(lang="ru")
    drv.accept_by_tap()
    # Wait until the computers are busy playing (not my turn), then open the rules.
    drv.until(lambda: drv.app.newest.view["phase"] == "play", what="play")
    drv.key(pygame.K_r)
    drv.until(lambda: drv.server_state().paused, what="the pause")
    drv.screenshot("rules-russian")
    paused_at = drv.event_count()
    drv.settle(1.2)
    assert drv.event_count() == paused_at, "no bot action while the rules are open"
    assert drv.app.panel.name == "rules"
    drv.key(pygame.K_ESCAPE)
    drv.until(lambda: not drv.server_state().paused, what="the resume")
    assert drv.app.panel.name is None


def test_log_panel_lists_the_match_in_words(driver_factory):
    drv = driver_factory()
    drv.accept_by_tap()
    drv.key(pygame.K_l)
    drv.until(lambda: drv.app.panel.log_events, what="the log")
    from clients.table.render.panel import view_log_lines

    lines = view_log_lines(drv.app)
    assert any("accepts the deal" in line for line in lines)
    assert any("dealt" in line for line in lines)
    drv.key(pygame.K_l)
    assert drv.app.panel.name is None


def test_undo_takes_back_my_play_and_redo_restores_it(driver_factory):
    drv = driver_factory()
    drv.accept_by_tap()
    drv.until_my_turn(timeout=60, what="my turn")
    hand_before = list(drv.app.view_of(1)["hand"])
    tile = drv.play_one_by_taps()
    drv.until(lambda: tile not in drv.app.view_of(1)["hand"], what="the play")
    # Undo when the bots have answered: an undo sent while they still move meets a
    # stale_version, which the client rightly does not resend (the owner looks first).
    drv.until(
        lambda: drv.my_turn() and drv.app.view_of(1)["can_undo"],
        timeout=60,
        what="the bots' answers and undo to be possible",
    )
    turns_after = drv.server_state().view["turns"]
    drv.key(pygame.K_u)
    drv.until(lambda: tile in drv.app.view_of(1)["hand"], what="the undo")
    assert drv.app.view_of(1)["hand"] == hand_before
    drv.until(lambda: drv.app.view_of(1)["can_redo"], what="redo to be possible")
    drv.key(pygame.K_y)
    drv.until(lambda: tile not in drv.app.view_of(1)["hand"], what="the redo")
    # Redo restores the same plays in the same order (bots may have played on since).
    assert drv.server_state().view["turns"][: len(turns_after)] == turns_after


def test_pass_and_play_hand_off_screens_draw_no_tile(driver_factory):
    drv = driver_factory(humans=(1, 3))
    drv.until(lambda: drv.screen.kind == "handoff", what="the first hand-off")
    assert drv.screen.seat == 1
    assert ivory_pixels(drv.app.window.surface) == 0, "a hand-off shows no tile"
    drv.screenshot("handoff")
    # Its button answers once the hand-off has been on screen a moment (guard.py).
    drv.until(lambda: drv.has_hit(HandOver(1)), what="the hand-off to arm")
    drv.tap(drv.hit(HandOver(1)))
    assert drv.tick().kind == "accept" and drv.screen.seat == 1
    assert ivory_pixels(drv.app.window.surface) > 0  # seat 1 now sees its hand
    drv.tap(drv.hit(Accept))
    drv.until(lambda: drv.screen.kind == "handoff", what="the hand-off to seat 3")
    assert drv.screen.seat == 3
    assert ivory_pixels(drv.app.window.surface) == 0
    drv.until(lambda: drv.has_hit(HandOver(3)), what="the hand-off to arm")
    drv.tap(drv.hit(HandOver(3)))
    assert drv.tick().kind == "accept" and drv.screen.seat == 3
    assert drv.app.view_of(3)["hand"] == drv.owner.seat_view(drv.code, 3).view["hand"]


def test_the_client_shows_the_outage_reconnects_and_plays_on(restartable_server):
    drv = TableDriver(restartable_server.url)
    try:
        drv.accept_by_tap()
        drv.until_my_turn(timeout=60, what="my turn")
        restartable_server.stop()
        drv.until(lambda: drv.app.conn.status == "offline", timeout=30, what="offline shown")
        drv.tick()
        assert any("reconnecting" in t.text for t in drv.app.effects.toasts)
        restartable_server.start()
        drv.until(lambda: drv.app.conn.status == "online", timeout=30, what="back online")
        drv.until_my_turn(timeout=30, what="my turn again")
        version = drv.app.newest.version
        tile = drv.play_one_by_taps()
        drv.until(lambda: drv.app.newest.version > version, timeout=30, what="the play")
        assert tile not in drv.server_state().view["hand"]
    finally:
        drv.close()


def test_two_devices_create_and_join_a_networked_table(live_server_process, capsys):
    """``--create`` on one machine, ``--table CODE`` on the other: one seat per device."""
    import subprocess
    import sys
    import uuid
    from pathlib import Path

    live_server_url = live_server_process.url
    subprocess.run(
        [sys.executable, "manage.py", "createbot", "house"],
        check=True,
        env=live_server_process.env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        timeout=120,
    )  # what `make serve` sets up

    from clients.sdk import DekabesClient
    from clients.table.__main__ import networked_table, parse

    ann, bob = DekabesClient(live_server_url), DekabesClient(live_server_url)
    ann.register(f"ann{uuid.uuid4().hex[:8]}", "a long enough password 42")
    bob.register(f"bob{uuid.uuid4().hex[:8]}", "a long enough password 42")
    code, seats = networked_table(
        parse(["--server", live_server_url, "--token", ann.token, "--create", "--humans", "1,3"])
    )
    assert seats == [1] and code in capsys.readouterr().out
    code_b, seats_b = networked_table(
        parse(["--server", live_server_url, "--token", bob.token, "--table", code])
    )
    assert (code_b, seats_b) == (code, [3])
    table = ann.table(code)
    assert table.seats[1].player == ann.me().username
    assert table.seats[3].player == bob.me().username
    assert table.seats[2].kind == "bot" and table.seats[2].player == "house"
    # Bob comes back later: his seat is found again, nothing new is taken.
    assert networked_table(
        parse(["--server", live_server_url, "--token", bob.token, "--table", code])
    ) == (code, [3])
