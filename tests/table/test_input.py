"""Mouse, finger and keyboard input of the table client (``clients/table/input.py``), headless.

Events are built as ``pygame.event.Event`` objects and fed to ``PointerTracker.feed`` in the
order SDL delivers them; no window is opened.
"""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from clients.table import input as table_input  # noqa: E402
from clients.table.input import DRAG_THRESHOLD, KEYS, PointerTracker, key_action  # noqa: E402

SIZE = (1000, 500)


@pytest.fixture(scope="module", autouse=True)
def pygame_initialised():
    pygame.init()
    yield
    pygame.quit()


@pytest.fixture
def tracker():
    return PointerTracker(lambda: SIZE)


# ---------------------------------------------------------------------------- event builders
def mouse_down(pos, button=1, **extra):
    return pygame.event.Event(
        pygame.MOUSEBUTTONDOWN, pos=pos, button=button, touch=extra.pop("touch", False), **extra
    )


def mouse_up(pos, button=1, **extra):
    return pygame.event.Event(
        pygame.MOUSEBUTTONUP, pos=pos, button=button, touch=extra.pop("touch", False), **extra
    )


def mouse_move(pos, rel=(0, 0), buttons=(1, 0, 0), **extra):
    return pygame.event.Event(
        pygame.MOUSEMOTION,
        pos=pos,
        rel=rel,
        buttons=buttons,
        touch=extra.pop("touch", False),
        **extra,
    )


def finger(kind, finger_id, x, y, dx=0.0, dy=0.0):
    return pygame.event.Event(
        kind, touch_id=1, finger_id=finger_id, x=x, y=y, dx=dx, dy=dy, pressure=1.0
    )


def px(x, y):
    """Window pixels of normalised finger coordinates."""
    return int(x * SIZE[0]), int(y * SIZE[1])


def feed_all(tracker, events):
    out = []
    for event in events:
        out += tracker.feed(event)
    return out


def presses(pointers):
    return [(p.kind, p.source) for p in pointers if p.kind in ("down", "up")]


def synthesised_mouse_of_a_tap(pos, how):
    """What SDL adds for a finger tap: mouse motion, down and up marked as touch."""
    mark = {"touch": True} if how == "touch" else {"touch": False, "which": -1}
    return (
        mouse_move(pos, buttons=(0, 0, 0), **mark),
        mouse_down(pos, **mark),
        mouse_up(pos, **mark),
    )


# ---------------------------------------------------------------------------- pygame-ce
def test_pygame_is_pygame_ce():
    assert getattr(pygame, "IS_CE", False), "the table client ships pygame-ce, not pygame"


# ---------------------------------------------------------------------------- mouse
def test_a_mouse_click_is_a_tap(tracker):
    got = feed_all(tracker, [mouse_down((100, 120)), mouse_up((100, 120))])
    assert [(p.kind, p.source, p.pos, p.dragging) for p in got] == [
        ("down", "mouse", (100, 120), False),
        ("up", "mouse", (100, 120), False),
    ]
    assert got[1].start == (100, 120)
    assert tracker.active is None


def test_a_small_wobble_is_still_a_tap(tracker):
    small = DRAG_THRESHOLD - 2  # well inside the threshold, diagonally too
    got = feed_all(
        tracker,
        [
            mouse_down((200, 200)),
            mouse_move((200 + small // 2, 200 + small // 2)),
            mouse_move((200 + small, 200)),
            mouse_up((200 + small, 200)),
        ],
    )
    assert [p.kind for p in got] == ["down", "move", "move", "up"]
    assert not any(p.dragging for p in got)
    assert got[-1].pos == (200 + small, 200) and got[-1].start == (200, 200)


def test_a_move_beyond_the_threshold_is_a_drag(tracker):
    far = DRAG_THRESHOLD + 8
    got = feed_all(
        tracker,
        [
            mouse_down((50, 60)),
            mouse_move((50 + far, 60)),
            mouse_move((50 + 2 * far, 60 + far)),
            mouse_up((50 + 2 * far, 60 + far)),
        ],
    )
    assert [p.kind for p in got] == ["down", "move", "move", "up"]
    assert [p.dragging for p in got[1:]] == [True, True, True]
    assert got[-1].start == (50, 60) and got[-1].pos == (50 + 2 * far, 60 + far)


def test_a_drag_stays_a_drag_when_it_comes_back(tracker):
    far = DRAG_THRESHOLD * 3
    got = feed_all(
        tracker,
        [
            mouse_down((300, 300)),
            mouse_move((300, 300 + far)),
            mouse_move((301, 300)),
            mouse_up((300, 300)),
        ],
    )
    assert got[-1].kind == "up" and got[-1].dragging, "released on its start, still a drag"


def test_the_next_press_starts_fresh_after_a_drag(tracker):
    feed_all(tracker, [mouse_down((0, 0)), mouse_move((100, 0)), mouse_up((100, 0))])
    got = feed_all(tracker, [mouse_down((400, 40)), mouse_up((400, 40))])
    assert presses(got) == [("down", "mouse"), ("up", "mouse")]
    assert not got[-1].dragging and got[-1].start == (400, 40)


def test_hovering_without_a_button_is_a_plain_move(tracker):
    got = tracker.feed(mouse_move((10, 20), buttons=(0, 0, 0)))
    assert [(p.kind, p.pos, p.dragging) for p in got] == [("move", (10, 20), False)]


def test_other_mouse_buttons_do_not_press(tracker):
    assert tracker.feed(mouse_down((5, 5), button=3)) == []
    assert tracker.feed(mouse_up((5, 5), button=3)) == []
    assert tracker.feed(mouse_down((5, 5), button=2)) == []
    assert tracker.active is None
    # An up without a down is nothing either.
    assert tracker.feed(mouse_up((5, 5))) == []


def test_the_wheel_scrolls(tracker):
    got = tracker.feed(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=2, flipped=False, touch=False))
    assert [(p.kind, p.dy) for p in got] == [("wheel", 2)]
    up = tracker.feed(mouse_down((7, 7), button=4))
    down = tracker.feed(mouse_down((7, 7), button=5))
    assert [(p.kind, p.dy) for p in up + down] == [("wheel", 1), ("wheel", -1)]
    assert tracker.active is None, "a wheel notch is not a press"


def test_cancel_drops_the_press(tracker):
    tracker.feed(mouse_down((10, 10)))
    tracker.cancel()
    assert tracker.active is None
    assert tracker.feed(mouse_up((10, 10))) == []


# ---------------------------------------------------------------------------- fingers
def test_a_finger_tap_is_a_tap_in_window_pixels(tracker):
    got = feed_all(
        tracker, [finger(pygame.FINGERDOWN, 7, 0.25, 0.5), finger(pygame.FINGERUP, 7, 0.25, 0.5)]
    )
    assert [(p.kind, p.source, p.pos, p.dragging) for p in got] == [
        ("down", "touch", px(0.25, 0.5), False),
        ("up", "touch", px(0.25, 0.5), False),
    ]


@pytest.mark.parametrize("how", ["touch", "which"])
@pytest.mark.parametrize("order", ["mouse_after", "mouse_interleaved", "mouse_first"])
def test_a_finger_tap_counts_once_with_the_synthesised_mouse_events(tracker, how, order):
    x, y = 0.4, 0.3
    move, down, up = synthesised_mouse_of_a_tap(px(x, y), how)
    fdown, fup = finger(pygame.FINGERDOWN, 1, x, y), finger(pygame.FINGERUP, 1, x, y)
    events = {
        "mouse_after": [fdown, move, down, fup, up],
        "mouse_interleaved": [fdown, move, down, up, fup],
        "mouse_first": [move, down, fdown, up, fup],
    }[order]
    got = feed_all(tracker, events)
    assert presses(got) == [("down", "touch"), ("up", "touch")], got
    assert not any(p.source == "mouse" for p in got), "the synthesised mouse is dropped"
    assert tracker.ignored_synthetic == 3
    assert tracker.active is None


@pytest.mark.parametrize("how", ["touch", "which"])
def test_many_finger_taps_count_once_each(tracker, how):
    taps = 0
    for i in range(5):
        x, y = 0.1 + 0.15 * i, 0.6
        move, down, up = synthesised_mouse_of_a_tap(px(x, y), how)
        got = feed_all(
            tracker,
            [
                finger(pygame.FINGERDOWN, 10 + i, x, y),
                move,
                down,
                finger(pygame.FINGERUP, 10 + i, x, y),
                up,
            ],
        )
        taps += sum(1 for p in got if p.kind == "up" and not p.dragging)
        assert sum(1 for p in got if p.kind == "down") == 1
    assert taps == 5


def test_a_finger_drag_is_a_drag(tracker):
    x0, y0 = 0.5, 0.5
    step = (DRAG_THRESHOLD + 10) / SIZE[0]
    move_mark = {"touch": True}
    got = feed_all(
        tracker,
        [
            finger(pygame.FINGERDOWN, 3, x0, y0),
            mouse_down(px(x0, y0), **move_mark),
            finger(pygame.FINGERMOTION, 3, x0 + step, y0, dx=step),
            mouse_move(px(x0 + step, y0), **move_mark),
            finger(pygame.FINGERMOTION, 3, x0 + 2 * step, y0, dx=step),
            finger(pygame.FINGERUP, 3, x0 + 2 * step, y0),
            mouse_up(px(x0 + 2 * step, y0), **move_mark),
        ],
    )
    assert [p.kind for p in got] == ["down", "move", "move", "up"]
    assert all(p.source == "touch" for p in got)
    assert got[-1].dragging and got[-1].start == px(x0, y0)
    assert got[-1].pos == px(x0 + 2 * step, y0)


def test_a_second_finger_is_ignored_while_the_first_is_down(tracker):
    got = tracker.feed(finger(pygame.FINGERDOWN, 1, 0.2, 0.2))
    assert presses(got) == [("down", "touch")]
    assert tracker.feed(finger(pygame.FINGERDOWN, 2, 0.8, 0.8)) == []
    assert tracker.feed(finger(pygame.FINGERMOTION, 2, 0.7, 0.7, dx=-0.1, dy=-0.1)) == []
    assert tracker.feed(finger(pygame.FINGERUP, 2, 0.7, 0.7)) == []
    assert tracker.active == ("touch", 1), "the first finger still owns the pointer"
    got = tracker.feed(finger(pygame.FINGERUP, 1, 0.2, 0.2))
    assert [(p.kind, p.pos, p.dragging) for p in got] == [("up", px(0.2, 0.2), False)]
    # Once the first finger has lifted, a new finger acts again.
    got = feed_all(
        tracker, [finger(pygame.FINGERDOWN, 2, 0.6, 0.6), finger(pygame.FINGERUP, 2, 0.6, 0.6)]
    )
    assert presses(got) == [("down", "touch"), ("up", "touch")]


def test_a_real_mouse_does_not_press_while_a_finger_is_down(tracker):
    tracker.feed(finger(pygame.FINGERDOWN, 1, 0.5, 0.5))
    assert tracker.feed(mouse_down((10, 10))) == []
    assert tracker.feed(mouse_up((10, 10))) == []
    assert tracker.active == ("touch", 1)
    got = tracker.feed(finger(pygame.FINGERUP, 1, 0.5, 0.5))
    assert presses(got) == [("up", "touch")]


def test_a_finger_is_ignored_while_the_mouse_button_is_down(tracker):
    tracker.feed(mouse_down((10, 10)))
    assert tracker.feed(finger(pygame.FINGERDOWN, 4, 0.5, 0.5)) == []
    assert tracker.feed(finger(pygame.FINGERUP, 4, 0.5, 0.5)) == []
    got = tracker.feed(mouse_up((10, 10)))
    assert presses(got) == [("up", "mouse")]


def test_finger_positions_follow_the_window_size():
    size = [800, 600]
    tracker = PointerTracker(lambda: tuple(size))
    first = tracker.feed(finger(pygame.FINGERDOWN, 1, 0.5, 0.5))
    tracker.feed(finger(pygame.FINGERUP, 1, 0.5, 0.5))
    size[:] = [1600, 900]  # the window was resized
    second = tracker.feed(finger(pygame.FINGERDOWN, 1, 0.5, 0.5))
    assert first[0].pos == (400, 300) and second[0].pos == (800, 450)


def test_synthesised_events_are_recognised():
    assert table_input.is_synthesized_from_touch(mouse_down((1, 1), touch=True))
    assert table_input.is_synthesized_from_touch(mouse_down((1, 1), which=-1))
    assert not table_input.is_synthesized_from_touch(mouse_down((1, 1)))
    assert not table_input.is_synthesized_from_touch(mouse_down((1, 1), which=0))
    bare = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(1, 1), button=1)
    assert not table_input.is_synthesized_from_touch(bare)


def test_unrelated_events_produce_nothing(tracker):
    for event in (
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0),
        pygame.event.Event(pygame.USEREVENT),
        pygame.event.Event(pygame.ACTIVEEVENT),
    ):
        assert tracker.feed(event) == []


# ---------------------------------------------------------------------------- keys
def key(k, mod=0, kind=pygame.KEYDOWN):
    return key_action(pygame.event.Event(kind, key=k, mod=mod, unicode="", scancode=0))


@pytest.mark.parametrize("code, command", sorted(KEYS.items()))
def test_every_listed_key_maps_to_its_command(code, command):
    assert key(code) == command
    # Caps Lock / Num Lock do not change the meaning of a key.
    assert key(code, pygame.KMOD_CAPS | pygame.KMOD_NUM) == command
    # A key release never acts.
    assert key(code, kind=pygame.KEYUP) is None


def test_the_documented_key_map():
    assert KEYS[pygame.K_LEFT] == "select_prev" and KEYS[pygame.K_RIGHT] == "select_next"
    assert KEYS[pygame.K_UP] == "end_left" and KEYS[pygame.K_DOWN] == "end_right"
    assert KEYS[pygame.K_RETURN] == "confirm" and KEYS[pygame.K_KP_ENTER] == "confirm"
    assert KEYS[pygame.K_ESCAPE] == "cancel"
    assert [
        KEYS[k]
        for k in (
            pygame.K_h,
            pygame.K_u,
            pygame.K_y,
            pygame.K_r,
            pygame.K_l,
            pygame.K_g,
            pygame.K_m,
            pygame.K_s,
        )
    ] == ["hint", "undo", "redo", "rules", "log", "language", "sound", "speed"]
    assert KEYS[pygame.K_F1] == "rules" and KEYS[pygame.K_F2] == "log"


def test_control_shortcuts():
    ctrl = pygame.KMOD_LCTRL
    assert key(pygame.K_z, ctrl) == "undo"
    assert key(pygame.K_z, pygame.KMOD_RCTRL) == "undo"
    assert key(pygame.K_z, ctrl | pygame.KMOD_LSHIFT) == "redo"
    assert key(pygame.K_y, ctrl) == "redo"
    assert key(pygame.K_q, ctrl) == "quit"
    # Other Ctrl combinations do nothing (Ctrl+H is not the hint, Ctrl+S not the speed).
    assert key(pygame.K_h, ctrl) is None
    assert key(pygame.K_s, ctrl) is None
    assert key(pygame.K_RETURN, ctrl) is None


def test_shift_tab_goes_back_and_unlisted_keys_do_nothing():
    assert key(pygame.K_TAB) == "select_next"
    assert key(pygame.K_TAB, pygame.KMOD_LSHIFT) == "select_prev"
    assert key(pygame.K_h, pygame.KMOD_LSHIFT) == "hint"
    for code in (pygame.K_F12, pygame.K_x, pygame.K_9, pygame.K_LSHIFT, pygame.K_q, pygame.K_z):
        assert code not in KEYS
        assert key(code) is None
