"""Short synthesised sounds (a click for a tile, a lower knock for a pass, a two-note
chime for "your turn" while the window is in the background).

Made from samples at start-up, so there are no sound files. A machine without audio
(or SDL's dummy driver) simply gets silence.
"""

from __future__ import annotations

import math
from array import array

import pygame

RATE = 22050


def _tone(freq: float, ms: int, volume: float = 0.35) -> bytes:
    count = int(RATE * ms / 1000)
    samples = array("h")
    for i in range(count):
        fade = 1.0 - i / count
        samples.append(int(32767 * volume * fade * fade * math.sin(2 * math.pi * freq * i / RATE)))
    return samples.tobytes()


class Sounds:
    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.played: list[str] = []  # the names played, newest last (the last 20)
        self._sounds: dict[str, pygame.mixer.Sound] = {}
        try:
            if not pygame.mixer.get_init():
                pygame.mixer.init(RATE, -16, 1, 512)
            self._sounds = {
                "tile": pygame.mixer.Sound(buffer=_tone(880, 60)),
                "click": pygame.mixer.Sound(buffer=_tone(1400, 25, 0.2)),
                "pass": pygame.mixer.Sound(buffer=_tone(220, 120)),
                "turn": pygame.mixer.Sound(buffer=_tone(660, 90) + _tone(990, 160)),
            }
        except (pygame.error, NotImplementedError):
            self._sounds = {}

    def play(self, name: str) -> None:
        if not self.enabled:
            return
        self.played = [*self.played[-19:], name]
        sound = self._sounds.get(name)
        if sound is not None:
            sound.play()
