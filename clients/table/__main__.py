"""``python -m clients.table``: the desktop table.

python -m clients.table --local [--humans 1,3] [--level strong] [--lang ru]
    starts the embedded server and the house bots on this machine, creates a table
    with you at the human seats (several: pass-and-play) and opens the window;
    quitting the window stops what it started.
python -m clients.table [--server URL]
    opens the lobby for that club server: sign in or register, then your tables,
    a new casual table, a table by its code, your league table, recent matches.
    The address and your sign-in are remembered (the settings file, owner-only).
python -m clients.table --server URL --token T --table CODE [--seat N]
    sits at a networked table: takes your seat there (or the free human seat N).
python -m clients.table --server URL --token T --create [--humans 1,3]
    creates a networked table: you at the first human seat, the other human seats
    free for the people you give the code to, house bots at the rest.
"""

from __future__ import annotations

import argparse
import os
import sys

from clients.table.stopping import stop_on_signals

LEVELS = ("random", "greedy", "medium", "strong", "expert")


def seat_list(text: str) -> list[int]:
    try:
        seats = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError("seats are numbers 1-4, like 1,3") from None
    if not seats or any(not 1 <= s <= 4 for s in seats):
        raise argparse.ArgumentTypeError("seats are numbers 1-4, like 1,3")
    return seats


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m clients.table",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--local", action="store_true", help="server and bots on this machine")
    where.add_argument("--server", help="URL of a club server, e.g. http://192.168.1.20:8000")
    parser.add_argument(
        "--token",
        default=os.environ.get("DEKABES_TOKEN"),
        help="your account's token (or DEKABES_TOKEN)",
    )
    parser.add_argument("--table", help="the table code to sit at")
    parser.add_argument("--seat", type=int, choices=(1, 2, 3, 4), help="the seat to take")
    parser.add_argument("--create", action="store_true", help="create a networked table")
    parser.add_argument(
        "--humans", type=seat_list, default=[1], help="human seats, e.g. 1,3 (default 1)"
    )
    parser.add_argument("--level", choices=LEVELS, default="strong", help="computer players")
    parser.add_argument(
        "--delay",
        type=float,
        default=None,
        help="seconds before each computer action (local; default: the settings' speed)",
    )
    parser.add_argument("--lang", choices=("en", "es", "ru", "ms"), help="language")
    parser.add_argument("--size", default=None, help="window size, e.g. 1280x800")
    args = parser.parse_args(argv)
    if args.server and (args.table or args.create) and not args.token:
        parser.error(
            "--table/--create need --token (or DEKABES_TOKEN); "
            "without them --server opens the lobby"
        )
    if (args.table or args.create) and not args.server:
        parser.error("--table/--create need --server URL")
    # No --local and no table: the lobby (for --server, or the server remembered).
    args.lobby = not args.local and not (args.table or args.create)
    return args


def networked_table(args) -> tuple[str, list[int] | None]:
    """Find or take the seat of this account at the table; returns (code, seats)."""
    from clients.sdk import DekabesClient

    with DekabesClient(args.server, args.token) as client:
        me = client.me()
        if args.create:
            humans = args.humans
            table = client.create_table(
                {n: ("human" if n in humans else "bot") for n in (1, 2, 3, 4)},
                join=[humans[0]],
                bots={n: "house" for n in (1, 2, 3, 4) if n not in humans},
            )
            print(f"table {table.code}: give this code to the other players", flush=True)
            return table.code, [humans[0]]
        table = client.table(args.table)
        held = table.seats_held_by(me.username)
        if args.seat and args.seat in held:
            return table.code, [args.seat]
        if held and not args.seat:
            return table.code, held
        free = [
            n
            for n, info in sorted(table.seats.items())
            if info.kind == "human" and info.player is None
        ]
        seat = args.seat or (free[0] if free else None)
        if seat is None:
            raise SystemExit(f"table {table.code} has no free human seat")
        client.join(table.code, seat)
        return table.code, [seat]


def main(argv=None) -> int:
    args = parse(argv)
    stop_on_signals()  # SIGTERM and Ctrl-C end the loop as closing the window does
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from clients.table import config

    settings = config.load()
    size: tuple[int, int] = (int(settings.window[0]), int(settings.window[1]))
    if args.size:
        w, _, h = args.size.lower().partition("x")
        size = (max(480, int(w)), max(360, int(h)))
    if args.lobby:
        return run_lobby(args, settings, size)
    if args.local:
        return run_local(args, settings, size)
    return run_networked(args, settings, size)


def run_networked(args, settings, size) -> int:
    import pygame

    from clients.sdk import ApiError, ConnectionLost
    from clients.table.app import TableApp
    from clients.table.connection import Connection
    from clients.table.sound import RATE

    try:
        code, seats = networked_table(args)
    except (ApiError, ConnectionLost) as problem:
        print(f"cannot sit at the table: {problem}", file=sys.stderr)
        return 2
    pygame.mixer.pre_init(RATE, -16, 1, 512)
    pygame.init()
    connection = Connection(args.server, args.token, code, seats=seats).start()
    app = TableApp(connection, settings, lang=args.lang, size=size)
    try:
        app.open_window()
        app.run()
    except KeyboardInterrupt:
        app.quit()  # as if the window was closed: settings are kept
    finally:
        connection.close()
        pygame.quit()
    return 0


def run_local(args, settings, size) -> int:
    """``--local``: the window first, with the start screen; the embedded server and the
    computer players start behind it (``startup.LocalLink``), the deal follows."""
    import pygame

    from clients.table.app import TableApp
    from clients.table.local import start_local
    from clients.table.sound import RATE
    from clients.table.startup import LocalLink
    from clients.table.state import Startup

    delay = args.delay if args.delay is not None else settings.computer_delay
    link = LocalLink(
        lambda progress, cancelled: start_local(
            args.humans, level=args.level, delay=delay, progress=progress, cancelled=cancelled
        ),
        args.humans,
    )
    pygame.mixer.pre_init(RATE, -16, 1, 512)
    pygame.init()
    app = TableApp(link, settings, lang=args.lang, size=size)
    app.startup = Startup()
    app.on_computer_speed = link.set_delay
    try:
        app.open_window()
        app.tick([])  # the window shows now; the server starts behind it
        print("starting the server and the computer players…", flush=True)
        link.start()
        app.run()
    except KeyboardInterrupt:
        app.quit()  # as if the window was closed: settings are kept
    finally:
        link.close()
        pygame.quit()
        link.stop()
    return 0


def run_lobby(args, settings, size) -> int:
    import pygame

    from clients.table.shell import Shell
    from clients.table.sound import RATE

    pygame.mixer.pre_init(RATE, -16, 1, 512)
    pygame.init()
    shell = Shell(settings, lang=args.lang, size=size, server=args.server)
    try:
        shell.open_window()
        shell.run()
    except KeyboardInterrupt:
        pass
    finally:
        settings.window = tuple(shell.window_size)
        shell.close()
        pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
