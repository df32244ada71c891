"""The table client takes every rule from the server's seat view: importing any of its
modules, or its benchmark (``bench.table_frames``, which draws recorded seat views), must
not load the engine or the server."""

from __future__ import annotations

import ast
import pkgutil
import random
import subprocess
import sys
from pathlib import Path

import clients.table

ROOT = Path(__file__).resolve().parents[2]


def test_no_table_module_imports_the_engine_or_the_server():
    modules = ["clients.table", "bench.table_frames"] + [
        f"clients.table.{m.name}"
        for m in pkgutil.walk_packages(clients.table.__path__)
        if m.name != "__main__"
    ]
    script = (
        "import os, sys; os.environ['SDL_VIDEODRIVER'] = 'dummy'\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print(sorted({n.split('.')[0] for n in sys.modules} & {'engine', 'server', 'django'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    # clients.table.bench: the benchmark's old name, a forwarder to bench.table_frames
    assert "clients.table.bench" in modules and "clients.table.app" in modules
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def imported_table_modules(module: str) -> set[str]:
    """The ``clients.table`` modules a module's source imports (anywhere in it)."""
    source = (ROOT / "clients" / "table" / f"{module}.py").read_text(encoding="utf-8")
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n for n in names if n.startswith("clients.table.")}


def test_the_drawing_and_the_screen_choice_do_not_import_the_controller():
    # app imports render and screens; they must not import it back (no cycle).
    assert {"clients.table.render", "clients.table.screens"} <= imported_table_modules("app")
    for module in ("render", "screens", "ui", "layout", "draw"):
        assert "clients.table.app" not in imported_table_modules(module), module


def test_the_drawing_keeps_no_state_of_its_own():
    # A frame's tap targets are gathered in a collector made by ``draw`` and returned,
    # never in a module-level list (only constants, in capitals, live at module level).
    import clients.table.render as render

    mutable = [
        name
        for name, value in vars(render).items()
        if isinstance(value, (list, dict, set)) and not name.isupper() and not name.startswith("__")
    ]
    assert mutable == []


def test_what_the_table_restates_agrees_with_the_engine():
    # The table never loads the engine, so the few facts it must know without a server
    # (the bot levels it offers, a seat's team in the drawing) are checked here instead.
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from clients.table import __main__ as table_main
    from clients.table import lobby
    from clients.table.render import seat_team
    from engine import Match, deal_event
    from engine.bots import LEVELS
    from engine.seats import SEATS, team_of

    assert table_main.LEVELS == LEVELS and lobby.LEVELS == ("house", *LEVELS)
    seats = {str(n): "human" for n in SEATS}
    match = Match.from_events(
        [{"type": "match_started", "seats": seats}, deal_event(random.Random(4))]
    )
    for viewer in SEATS:
        view = match.seat_view(viewer)
        assert [seat_team(view, seat) for seat in SEATS] == [team_of(seat) for seat in SEATS]
