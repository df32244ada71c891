"""Mouse, finger and keyboard input turned into a few plain actions.

``PointerTracker`` turns SDL events into pointer ``down`` / ``move`` / ``up`` with a
pixel position, and tells a tap from a drag. Touch arrives twice in SDL: as FINGER
events and as mouse events SDL synthesises from them (``event.touch`` is true, or the
mouse id is ``SDL_TOUCH_MOUSEID``). We take the finger events and drop the
synthesised mouse ones, so one tap is one tap. Only one pointer acts at a time; other
fingers are ignored until it lifts.

``key_action`` maps a key press to a command name (see ``KEYS``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

DRAG_THRESHOLD = 12  # px a pointer must move before a press becomes a drag
TOUCH_MOUSE_ID = -1  # SDL_TOUCH_MOUSEID as pygame reports it


@dataclass(frozen=True)
class Pointer:
    kind: str  # "down" | "move" | "up" | "wheel" | "cancel"
    pos: tuple[int, int]
    source: str = "mouse"  # "mouse" | "touch"
    dragging: bool = False  # move/up: the press has become a drag
    start: tuple[int, int] = (0, 0)
    dy: int = 0  # wheel


def is_synthesized_from_touch(event) -> bool:
    return bool(getattr(event, "touch", False)) or getattr(event, "which", None) == TOUCH_MOUSE_ID


class PointerTracker:
    def __init__(self, size_getter):
        self._size = size_getter  # () -> (w, h) of the window, for finger coords
        self.active: tuple[str, object] | None = None  # (source, finger id)
        self.start = (0, 0)
        self.pos = (0, 0)
        self.dragging = False
        self.ignored_synthetic = 0  # how many synthesised mouse events were dropped

    def _finger_pos(self, event) -> tuple[int, int]:
        w, h = self._size()
        return int(event.x * w), int(event.y * h)

    def feed(self, event) -> list[Pointer]:
        t = event.type
        if t in (
            pygame.MOUSEBUTTONDOWN,
            pygame.MOUSEBUTTONUP,
            pygame.MOUSEMOTION,
            pygame.MOUSEWHEEL,
        ):
            if is_synthesized_from_touch(event):
                self.ignored_synthetic += 1
                return []
        if t == pygame.MOUSEWHEEL:
            return [Pointer("wheel", self.pos, dy=int(event.y))]
        if t == pygame.MOUSEBUTTONDOWN:
            if event.button in (4, 5):  # old-style wheel
                return [Pointer("wheel", event.pos, dy=1 if event.button == 4 else -1)]
            if event.button != 1 or self.active is not None:
                return []
            return self._down(("mouse", 0), event.pos, "mouse")
        if t == pygame.MOUSEMOTION:
            if self.active is None or self.active[0] != "mouse":
                self.pos = event.pos
                return [Pointer("move", event.pos, "mouse")]
            return self._move(event.pos, "mouse")
        if t == pygame.MOUSEBUTTONUP:
            if event.button != 1 or self.active is None or self.active[0] != "mouse":
                return []
            return self._up(event.pos, "mouse")
        if t == pygame.FINGERDOWN:
            if self.active is not None:
                return []
            return self._down(("touch", event.finger_id), self._finger_pos(event), "touch")
        if t == pygame.FINGERMOTION:
            if self.active != ("touch", event.finger_id):
                return []
            return self._move(self._finger_pos(event), "touch")
        if t == pygame.FINGERUP:
            if self.active != ("touch", event.finger_id):
                return []
            return self._up(self._finger_pos(event), "touch")
        return []

    def cancel(self) -> None:
        self.active = None
        self.dragging = False

    def _down(self, key, pos, source) -> list[Pointer]:
        self.active = key
        self.start = self.pos = tuple(pos)
        self.dragging = False
        return [Pointer("down", self.pos, source, start=self.start)]

    def _move(self, pos, source) -> list[Pointer]:
        self.pos = tuple(pos)
        if not self.dragging:
            dx, dy = pos[0] - self.start[0], pos[1] - self.start[1]
            if dx * dx + dy * dy >= DRAG_THRESHOLD * DRAG_THRESHOLD:
                self.dragging = True
        return [Pointer("move", self.pos, source, self.dragging, self.start)]

    def _up(self, pos, source) -> list[Pointer]:
        self.pos = tuple(pos)
        out = [Pointer("up", self.pos, source, self.dragging, self.start)]
        self.active = None
        self.dragging = False
        return out


# Key -> command. Letters are matched by key code, so they work with any layout that
# produces Latin letters; arrows, Enter, Esc and F-keys work everywhere.
KEYS = {
    pygame.K_LEFT: "select_prev",
    pygame.K_RIGHT: "select_next",
    pygame.K_TAB: "select_next",
    pygame.K_UP: "end_left",
    pygame.K_DOWN: "end_right",
    pygame.K_LEFTBRACKET: "end_left",
    pygame.K_RIGHTBRACKET: "end_right",
    pygame.K_HOME: "end_left",
    pygame.K_END: "end_right",
    pygame.K_RETURN: "confirm",
    pygame.K_KP_ENTER: "confirm",
    pygame.K_SPACE: "confirm",
    pygame.K_ESCAPE: "cancel",
    pygame.K_BACKSPACE: "cancel",
    pygame.K_h: "hint",
    pygame.K_u: "undo",
    pygame.K_y: "redo",
    pygame.K_r: "rules",
    pygame.K_F1: "rules",
    pygame.K_l: "log",
    pygame.K_F2: "log",
    pygame.K_F3: "settings",
    pygame.K_t: "last_tiles",
    pygame.K_g: "language",
    pygame.K_m: "sound",
    pygame.K_s: "speed",
    pygame.K_c: "claim_redeal",
    pygame.K_a: "accept",
    pygame.K_1: "choose_1",
    pygame.K_2: "choose_2",
    pygame.K_PAGEUP: "page_up",
    pygame.K_PAGEDOWN: "page_down",
}


def key_action(event) -> str | None:
    if event.type != pygame.KEYDOWN:
        return None
    mods = getattr(event, "mod", 0)
    if mods & pygame.KMOD_CTRL:
        if event.key == pygame.K_z:
            return "redo" if mods & pygame.KMOD_SHIFT else "undo"
        if event.key == pygame.K_y:
            return "redo"
        if event.key == pygame.K_q:
            return "quit"
        return None
    if event.key == pygame.K_TAB and mods & pygame.KMOD_SHIFT:
        return "select_prev"
    return KEYS.get(event.key)
