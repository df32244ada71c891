"""``dekabes``: the desktop app a member installs (the table and the SDK only: no server,
no engine, no terminal needed).

    dekabes                                    the lobby of the server remembered
                                               (the sign-in the first time)
    dekabes dekabes://HOST:PORT/table/CODE     that table, signed in with the account
                                               remembered for that server (``links.py``)
    dekabes --server URL                       the lobby of that server

The address and the account are remembered (``config``; the token where the platform
keeps secrets, ``tokens``). On Linux each start makes the app the user's handler of
``dekabes://`` links (``links.install_handler``). ``python -m clients.table`` stays the
developers' command (``--local``: the embedded server and bots of a checkout).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from clients.table.stopping import stop_on_signals

ICON = Path(__file__).resolve().parents[1] / "assets" / "icon.png"


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="dekabes",
        description="Dékabès: the club's tables, league and lobby.",
    )
    parser.add_argument("link", nargs="?", help="a dekabes://HOST:PORT/table/CODE link")
    parser.add_argument("--server", help="the club server's address, e.g. http://192.168.1.20:8000")
    parser.add_argument("--lang", choices=("en", "es", "ru", "ms"), help="language")
    parser.add_argument("--size", default=None, help="window size, e.g. 1280x800")
    return parser.parse_args(argv)


def build_shell(args: argparse.Namespace):
    """The window's shell (lobby and table) for these arguments, before its window opens:
    the link's server and table, or the server asked for, or the one remembered."""
    from clients.table import config, links
    from clients.table.shell import Shell

    settings = config.load()
    size = (int(settings.window[0]), int(settings.window[1]))
    if args.size:
        w, _, h = args.size.lower().partition("x")
        size = (max(480, int(w)), max(360, int(h)))
    link = links.parse(args.link) if args.link else None
    server = link.server if link else args.server
    shell = Shell(settings, lang=args.lang, size=size, server=server)
    if args.link and link is None:
        shell.lobby.say(shell.lobby.tr("lobby.err.bad_link"), error=True)
    if link is not None:
        shell.lobby.open_when_signed_in(link.code)
    return shell


def first_window() -> None:
    """The window, empty, before anything slow (the keyring, the lobby's modules): the
    size remembered, the icon, the felt."""
    import json
    import time

    import pygame

    from clients.table import config
    from clients.table.window import open_window

    settings = config.load(with_tokens=False)
    size = config.fit_to_display(settings.window, pygame.display.get_desktop_sizes())
    pygame.display.set_caption("Dékabès")
    try:
        pygame.display.set_icon(pygame.image.load(str(ICON)))
    except (pygame.error, FileNotFoundError):
        pass  # an icon is a comfort
    surface = open_window(size)
    surface.fill((22, 92, 62))  # the felt (draw.PALETTES["standard"].felt)
    pygame.display.flip()
    log = os.environ.get("DEKABES_STARTUP_LOG")  # the figures of ``make app-test``
    if log:
        with open(log, "a", encoding="utf-8") as stream:
            stream.write(json.dumps({"event": "window", "t": time.time()}) + "\n")


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    stop_on_signals()  # SIGTERM and Ctrl-C end the loop as closing the window does
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    os.environ.setdefault("SDL_VIDEO_X11_WMCLASS", "dekabes")  # the desktop entry's
    if os.environ.get("DEKABES_NO_LINK_HANDLER") != "1":
        from clients.table import links

        links.install_handler(icon=ICON)
    import pygame

    from clients.table.sound import RATE

    pygame.mixer.pre_init(RATE, -16, 1, 512)
    pygame.init()
    first_window()  # at once: the keyring and the lobby come behind it
    shell = build_shell(args)
    shell._startup_log = None  # the window was logged by ``first_window``
    try:
        shell.open_window()
        shell.run()
    except KeyboardInterrupt:
        pass
    finally:
        shell.settings.window = tuple(shell.window_size)
        shell.close()
        pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
