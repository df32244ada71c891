"""One window, two screens: the lobby and the table it opens (``python -m clients.table
--server URL``). The shell owns the window and the loop; it hands the window to the
table when one is opened and takes it back when the player returns to the lobby."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pygame

from clients.table import config
from clients.table.app import IDLE_POLL, TableApp
from clients.table.connection import Connection, TableLink
from clients.table.lobby import Lobby
from clients.table.watch import Watch
from clients.table.window import open_window

VAR = Path(__file__).resolve().parents[2] / "var"


def start_own_runner(server: str, token: str, level: str, delay: float = 0.7):
    """The player's own computer players (a level other than the club's) run here, at
    the computer speed of the settings."""

    from clients.bots.launch import start_runner

    var = Path(os.environ.get("DEKABES_VAR_DIR") or VAR)
    var.mkdir(parents=True, exist_ok=True)
    return start_runner(
        server, token, level=level, delay=delay, log=str(var / f"lobby-bots-{level}.log")
    )


class Shell:
    def __init__(
        self,
        settings: config.Settings,
        lang: str | None = None,
        size=(1280, 800),
        server: str | None = None,
        save_settings: bool = True,
        lobby: Lobby | None = None,
        connection_factory=None,
        watch_factory=None,
    ):
        self.settings = settings
        self.save_settings = save_settings
        self.size = tuple(size)
        self.lobby = lobby or Lobby(
            settings,
            lang=lang,
            size=size,
            server=server,
            save_settings=save_settings,
            start_runner=lambda server, token, level: start_own_runner(
                server, token, level, delay=settings.computer_delay
            ),
        )
        self.lobby.on_open = self.open_table
        self.lobby.on_watch = self.watch_table
        self._connection_factory = connection_factory or (
            lambda url, token, code, seats: Connection(url, token, code, seats=seats).start()
        )
        self._watch_factory = watch_factory or (
            lambda url, token, code, teams: Watch(url, token, code, teams).start()
        )
        self.table: TableApp | None = None
        self.connection: TableLink | None = None
        self.surface: pygame.Surface | None = None
        self.running = True
        self._startup_log = os.environ.get("DEKABES_STARTUP_LOG")

    @property
    def window_size(self) -> tuple[int, int]:
        if self.table is not None:
            return self.table.window.window_size
        return self.lobby.size

    @property
    def active(self):
        return self.table if self.table is not None else self.lobby

    def open_window(self) -> pygame.Surface:
        from clients.table import render

        render.clear_caches()  # fonts die with pygame.quit()
        pygame.display.set_caption(self.lobby.tr("app.title"))
        if pygame.display.get_driver() != "dummy":
            self.size = config.fit_to_display(self.size, pygame.display.get_desktop_sizes())
        self.surface = open_window(self.size)
        self.lobby.screen_surface = self.surface
        self.lobby.size = self.size
        # Text input stays on for the whole window: the table ignores it, and stopping
        # and starting it again (at a table, back in the lobby) lost the lobby's typing
        # under X input methods until a restart (issue 34).
        pygame.key.start_text_input()
        return self.surface

    def watch_table(
        self, server: str, token: str | None, code: str, teams: dict[int, str] | None = None
    ) -> None:
        """A live table of my clubs, read-only (``watch.Watch``); ``teams``: its seats'
        teams from the match's answer."""
        link = self._watch_factory(server, token, code, teams or {})
        self.open_table(server, token, code, [], link=link)

    def open_table(
        self,
        server: str,
        token: str | None,
        code: str,
        seats: list[int],
        link: TableLink | None = None,
    ) -> None:
        connection = link or self._connection_factory(server, token, code, seats)
        self.connection = connection
        app = TableApp(
            connection,
            self.settings,
            size=self.lobby.size,
            save_settings=self.save_settings,
            on_quit=self._table_quit,
        )
        app.tr = self.lobby.tr
        app.window.surface = pygame.display.get_surface() or self.surface
        app.on_lobby = self.back_to_lobby
        # League news while at a table (a round seated me): told on the table too.
        self.lobby.on_notice = lambda text: app.toast(
            text, public=True, lasts="always", seconds=10.0
        )
        self.table = app

    def back_to_lobby(self) -> None:
        table, self.table = self.table, None
        self.lobby.on_notice = None
        if table is not None:
            if table.panel.name:
                table.close_panel()
            self.lobby.size = table.window.window_size
            self.lobby.tr = table.tr
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        self.lobby.screen_surface = pygame.display.get_surface() or self.surface
        self.lobby.back()

    def _log_window(self) -> None:
        """``DEKABES_STARTUP_LOG``: when the window first showed (the app's figures)."""
        import json

        if not self._startup_log:
            return
        with open(self._startup_log, "a", encoding="utf-8") as stream:
            stream.write(json.dumps({"event": "window", "t": time.time()}) + "\n")
        self._startup_log = None

    def _table_quit(self) -> None:
        self.running = False

    def tick(self, events=None, force: bool = True):
        if self.table is not None:
            self.lobby.pump()  # the lobby's league long-poll keeps running behind the table
        screen = self.active.tick(events, force=force)
        if self._startup_log and self.surface is not None:
            self._log_window()
        if not self.lobby.running:
            self.running = False
        return screen

    def run(self) -> None:
        clock = pygame.time.Clock()
        if self.surface is None:
            self.open_window()
        while self.running:
            self.tick(force=False)
            if self.table is not None and not self.table.running:
                break
            if self.active.animating():
                clock.tick(60)
            else:
                time.sleep(IDLE_POLL)

    def close(self) -> None:
        if self.table is not None and self.table.running:
            self.table.quit()
        if self.connection is not None:
            self.connection.close()
        self.lobby.quit()
        self.lobby.close()
