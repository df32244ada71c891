"""The table client takes every rule from the server's seat view: importing any of its
modules (the benchmark included) must not load the engine or the server."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import clients.table

ROOT = Path(__file__).resolve().parents[2]


def test_no_table_module_imports_the_engine_or_the_server():
    modules = ["clients.table"] + [
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
    assert "clients.table.bench" in modules and "clients.table.app" in modules
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
