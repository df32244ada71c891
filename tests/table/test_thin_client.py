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
    assert "bench.table_frames" in modules and "clients.table.app" in modules
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


def imported_table_modules(module: str) -> set[str]:
    """The ``clients.table`` modules a module's source imports (anywhere in it);
    ``module`` is a dotted name under ``clients.table`` ("render.reveal")."""
    path = ROOT / "clients" / "table" / Path(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    source = path.read_text(encoding="utf-8")
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n for n in names if n.startswith("clients.table.")}


def drawing_modules() -> list[str]:
    """``render`` and every module of it ("render", "render.reveal", ...)."""
    import clients.table.render as render

    return ["render"] + [f"render.{m.name}" for m in pkgutil.iter_modules(render.__path__)]


# The collaborators of the controller: they receive it as a ``context.TableContext``.
COLLABORATORS = ("moves", "taps", "toolbar", "keys", "panels", "pointer")


def test_the_drawing_and_the_screen_choice_do_not_import_the_controller():
    # app imports render and screens; they must not import it back (no cycle), and no
    # more does the lobby's drawing, the state or the Protocols the helpers receive.
    assert {"clients.table.render", "clients.table.screens"} <= imported_table_modules("app")
    modules = drawing_modules() + ["screens", "ui", "layout", "draw", "state", "context"]
    assert "render.reveal" in modules and "render.settings" in modules
    for module in modules + list(COLLABORATORS):
        imported = imported_table_modules(module)
        assert "clients.table.app" not in imported, module
        # the lobby's drawing reads the lobby's controller (for its types only)
        lobby_drawing = module in ("render.lobby", "render.league")
        assert "clients.table.lobby" not in imported or lobby_drawing, module


def test_each_screen_is_drawn_by_its_own_module():
    # A newcomer changing the reveal opens render/reveal.py: each screen's drawing
    # function lives in the module named after it, and only there.
    import importlib

    screens = {
        "table": "draw_table",
        "landing": "draw_landing",
        "reveal": "draw_reveal",
        "match_over": "draw_match_over",
        "handoff": "draw_handoff",
        "settings": "draw_settings",
        "starting": "draw_starting",
        "lobby": "draw",
        "league": "draw_league",
    }
    for name, function in screens.items():
        module = importlib.import_module(f"clients.table.render.{name}")
        assert callable(getattr(module, function)), name
        for other in drawing_modules():
            if other in (f"render.{name}", "render"):
                continue
            source = (ROOT / "clients" / "table" / Path(*other.split("."))).with_suffix(".py")
            assert f"def {function}(" not in source.read_text(encoding="utf-8"), (name, other)


def test_the_helpers_receive_the_table_as_a_typed_protocol():
    # Every function of a collaborator that takes the table annotates it with the
    # Protocol (mypy checks what they do with it), never an untyped ``app``.
    for module in COLLABORATORS:
        source = (ROOT / "clients" / "table" / f"{module}.py").read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef):
                for arg in node.args.args:
                    if arg.arg == "app":
                        assert arg.annotation is not None, (module, node.name)
                        assert ast.unparse(arg.annotation) == "TableContext", (module, node.name)
    for module in drawing_modules():
        if module in ("render.lobby", "render.league"):
            continue
        path = ROOT / "clients" / "table" / Path(*module.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                for arg in node.args.args:
                    assert arg.arg != "app", (module, node.name, "the drawing reads a TableView")
                    if arg.arg == "view" and arg.annotation is not None:
                        assert ast.unparse(arg.annotation) == "TableView", (module, node.name)


def test_the_drawing_keeps_no_state_of_its_own():
    # A frame's tap targets are gathered in a collector made by ``draw`` and returned,
    # never in a module-level list (only constants, in capitals, live at module level).
    import importlib

    for module in drawing_modules():
        values = vars(importlib.import_module(f"clients.table.{module}"))
        mutable = [
            name
            for name, value in values.items()
            if isinstance(value, (list, dict, set))
            and not name.isupper()
            and not name.startswith("__")
        ]
        assert mutable == [], module


def test_what_the_table_restates_agrees_with_the_engine():
    # The table never loads the engine, so the few facts it must know without a server
    # (the bot levels it offers, a seat's team in the drawing) are checked here instead.
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    from clients.table import __main__ as table_main
    from clients.table import lobby
    from clients.table.render.results import seat_team
    from engine import Match, deal_event
    from engine.bots import LEVELS
    from engine.seats import SEATS, team_of

    assert table_main.LEVELS == LEVELS and lobby.LEVELS == ("house", *LEVELS)
    from clients.table.watch import SEAT_TEAMS

    assert SEAT_TEAMS == {seat: team_of(seat) for seat in SEATS}
    seats = {str(n): "human" for n in SEATS}
    match = Match.from_events(
        [{"type": "match_started", "seats": seats}, deal_event(random.Random(4))]
    )
    for viewer in SEATS:
        view = match.seat_view(viewer)
        assert [seat_team(view, seat) for seat in SEATS] == [team_of(seat) for seat in SEATS]
