"""We ship pygame-ce (``import pygame``); plain pygame must never be installed over it."""

from importlib import metadata

import pygame


def test_pygame_is_pygame_ce():
    assert getattr(pygame, "IS_CE", False)
    distributions = {d.metadata["Name"].lower() for d in metadata.distributions()}
    assert "pygame-ce" in distributions and "pygame" not in distributions
