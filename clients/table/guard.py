"""Input that acts only on what the player saw (pass-and-play privacy).

A key press or a tap means something on the screen that was on display when it was
given. Two rules keep input given for one screen from acting on the next:

- **The frame on display** (``TableApp.command`` / ``TableApp.tap``): input meets the
  screen last drawn; when what the player would act on now is another screen (the
  server's answer changed it, or an earlier event of the same frame did), the input is
  dropped and the new screen is drawn first. Two Enter presses in one frame cannot
  accept a deal that was never on screen.
- **The hand-off** (``HandoffGuard``): "Pass the device to Seat 3" is passed only by
  input given after it has been on screen ``arm_seconds`` (a double press, a key held
  down, a tap queued while the screen changed come sooner): a key that went down after
  it was armed (not one held down from before, whose repeats do not count), and a tap
  whose press began after it was armed. Until then its button is drawn dimmed and
  answers nothing.

Plain data and a clock: no pygame, no drawing (``render/handoff.py`` reads ``armed``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

# A person who reads "Pass the device to Seat 3", passes the device and taps takes far
# longer; a double press (~80-200 ms apart) or a key held down comes sooner.
HANDOFF_ARM = 0.6


class HandoffGuard:
    def __init__(
        self, clock: Callable[[], float] = time.monotonic, arm_seconds: float = HANDOFF_ARM
    ) -> None:
        self.clock = clock
        self.arm_seconds = arm_seconds
        self.seat: int | None = None  # the hand-off on display (None: none)
        self.drawn_at: float | None = None  # when it was first on display
        self.key_down_at: dict[int, float] = {}  # keys held down: when each went down
        self.last_key: int | None = None
        self.press_at: float | None = None  # when the pointer's current press began

    # ------------------------------------------------------------------ what happens
    def shown(self, handoff_seat: int | None) -> None:
        """A frame is on display; ``handoff_seat``: the hand-off it shows (None: none)."""
        if handoff_seat is None:
            self.seat = self.drawn_at = None
            return
        if handoff_seat != self.seat:
            self.seat, self.drawn_at = handoff_seat, self.clock()

    def key_down(self, key: int) -> None:
        """A key press (a repeat of a key held down keeps the time it went down)."""
        self.key_down_at.setdefault(key, self.clock())
        self.last_key = key

    def key_up(self, key: int) -> None:
        self.key_down_at.pop(key, None)

    def pressed(self) -> None:
        """The pointer went down (mouse button or finger)."""
        self.press_at = self.clock()

    # ------------------------------------------------------------------ what may pass
    def armed(self, seat: int) -> bool:
        """Has the hand-off for ``seat`` been on display long enough to be answered?"""
        return (
            seat == self.seat
            and self.drawn_at is not None
            and self.clock() - self.drawn_at >= self.arm_seconds
        )

    def arming(self) -> bool:
        """A hand-off is on display and not armed yet (frames must come to show it arm)."""
        return self.seat is not None and not self.armed(self.seat)

    def passes_key(self, seat: int) -> bool:
        """Does the key just pressed pass the hand-off for ``seat``?"""
        went_down = self.key_down_at.get(self.last_key) if self.last_key is not None else None
        return self._after_arming(seat, went_down)

    def passes_tap(self, seat: int) -> bool:
        """Does the tap just made (released now) pass the hand-off for ``seat``?"""
        return self._after_arming(seat, self.press_at)

    def _after_arming(self, seat: int, began: float | None) -> bool:
        return (
            self.armed(seat)
            and self.drawn_at is not None
            and began is not None
            and began >= self.drawn_at + self.arm_seconds
        )
