"""The server's layers, read from the source: every import of every module under
``server/`` (at module level and inside functions, parsed with ``ast``, nothing imported),
and the imports of ``engine/``, ``clients/`` and ``bench/`` that cross into other parts.

- no import cycles among server modules (strongly connected components of the graph);
- ``engine`` imports nothing of ``server``, ``clients``, ``django`` or ``bench``;
- ``server`` imports ``clients`` only in the process launcher (``LAUNCHERS``);
- ``clients`` imports nothing of ``server``; product code never imports ``bench``;
- each server module sits in one of ``LAYERS`` and imports only its own layer and those
  below it;
- views are the top of their app (``views`` modules, the web's ``pages``): only URL modules
  import them (what two views share lives below both).

An import names the module it names: ``from server.tables import projection`` is an edge
to ``server.tables.projection``, ``from engine import Match`` one to ``engine`` (the
package's ``__init__``). The parent packages Python runs on the way are not edges: they
are empty in ``server/``, and a package that re-exports its submodules would otherwise
sit in a cycle with each of them. Migrations are left out (their imports are Django's).
Layers and rules are data: docs/architecture.md explains them; move a module between
layers here, on purpose, when the design changes.
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("server", "engine", "clients", "bench")

# Top to bottom: a module may import its own layer and the layers below it, never one
# above. A module belongs to the layer of its most specific (longest) matching pattern:
# a name covers the module and everything under it; ``*`` matches any part.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "entry points: what Daphne runs and how a request reaches a view",
        (
            "server.asgi",
            "server.urls",
            "server.http_bridge",
            "server.http_parking",
            "server.http_refusals",
            # a command line: writes docs/api.md's error table from the classes
            "server.error_table",
        ),
    ),
    ("web pages (read the league and the tables)", ("server.web",)),
    (
        "keeping the server and members' data (read and write over the league and the tables)",
        (
            "server.ops",  # backups, restores, their proof, upgrades, health
            "server.member_data",  # a member's data: the download, closing the account
        ),
    ),
    (
        "members' mail (follows the league through its signals; the web's pages read it), "
        "the bot ladder (schedules and rates league matches of its own club)",
        ("server.mail", "server.ladder"),
    ),
    (
        "WebSockets (push what the tables and the league let a seat see)",
        (
            "server.sockets.consumers",
            "server.sockets.routing",
            "server.sockets.auth",
            "server.sockets.pushes",
            "server.sockets.actions",  # actions sent on a seat socket
            "server.sockets.action_thread",  # the thread that runs them
            "server.sockets.wire",  # Daphne's WebSocket wire, per-frame costs cut
            "server.sockets.pings",  # the process's ping round, its after-ping work batched
        ),
    ),
    (
        "the league and matchmaking (create tables through the table services; the league's "
        "tick closes matchmaking's seeks and challenges, matchmaking reads the league's ratings)",
        ("server.league", "server.matchmaking"),
    ),
    ("tables: services, projection, selectors, views", ("server.tables",)),
    ("the tables' rows and signals", ("server.tables.models", "server.tables.signals")),
    (
        "notices, long-polls and presence (what the services tell after a commit)",
        ("server.notices",),
    ),
    ("accounts", ("server.accounts",)),
    (
        "foundation: error answering, request checking, per-process caps, settings",
        (
            "server.errors",
            "server.*.errors",  # each app's domain errors and the error pages
            "server.api_schema",
            "server.json_body",
            "server.ids_and_names",  # ids and names of the path and the query
            "server.limits",
            "server.redis_clients",  # the server's own Redis clients wait out a stall
            "server.settings",
        ),
    ),
    ("process launcher: starts Daphne and the bot runner", ("server.run",)),
)

LAUNCHERS = {"server.run"}  # the only server modules that may import clients
ENGINE_MUST_NOT_IMPORT = ("server", "clients", "django", "bench")
# Packages whose every module is views (the web's pages, one module per audience).
VIEWS_PACKAGES = ("server.web.pages.",)


def module_files() -> dict[str, Path]:
    modules = {}
    for part in PARTS:
        for path in (ROOT / part).rglob("*.py"):
            relative = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in relative:
                continue
            name = ".".join(relative[:-1] if relative[-1] == "__init__" else relative)
            modules[name] = path
    return modules


MODULES = module_files()


def imports_of(name: str) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import statement of module ``name``."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in MODULES else base), node.lineno


def known(imported: str) -> str | None:
    """The project module an import names (its longest known prefix), if any."""
    while imported and imported not in MODULES:
        imported = imported.rpartition(".")[0]
    return imported or None


def server_graph() -> dict[str, dict[str, list[int]]]:
    graph: dict[str, dict[str, list[int]]] = {}
    for name in MODULES:
        if not name.startswith("server"):
            continue
        edges = graph.setdefault(name, {})
        for imported, line in imports_of(name):
            target = known(imported)
            if target and target.startswith("server") and target != name:
                edges.setdefault(target, []).append(line)
    return graph


def cycles(graph: dict[str, dict[str, list[int]]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None  # (pattern length, layer index)
    for number, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if (
                module == pattern
                or module.startswith(pattern + ".")
                or ("*" in pattern and fnmatch.fnmatchcase(module, pattern))
            ):
                if best is None or len(pattern) > best[0]:
                    best = (len(pattern), number)
    return None if best is None else best[1]


def crossings(prefix: str, into: tuple[str, ...]) -> list[str]:
    """Imports by modules under ``prefix`` of anything under the top-level names ``into``."""
    found = []
    for name in MODULES:
        if name != prefix and not name.startswith(prefix + "."):
            continue
        for imported, line in imports_of(name):
            if imported.split(".")[0] in into:
                found.append(f"{name}:{line} imports {imported}")
    return found


def test_no_import_cycles_among_server_modules():
    graph = server_graph()
    described = [
        " <-> ".join(component)
        + "".join(
            f"\n    {a} -> {b} (line {', '.join(map(str, graph[a][b]))})"
            for a in component
            for b in sorted(graph[a])
            if b in component
        )
        for component in cycles(graph)
    ]
    assert described == [], "\n".join(described)


def test_the_cycle_check_finds_a_cycle():
    # The check itself: a cycle through a function-level import is found.
    graph = {"a": {"b": [1]}, "b": {"c": [2]}, "c": {"a": [9]}, "d": {"a": [3]}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_engine_imports_nothing_of_the_server_the_clients_django_or_bench():
    assert crossings("engine", ENGINE_MUST_NOT_IMPORT) == []


def test_the_server_imports_clients_only_in_the_launcher():
    outside = [c for c in crossings("server", ("clients",)) if c.split(":")[0] not in LAUNCHERS]
    assert outside == []
    assert all(name in MODULES for name in LAUNCHERS)


def test_the_clients_never_import_the_server():
    assert crossings("clients", ("server",)) == []


def test_product_code_never_imports_bench():
    assert crossings("server", ("bench",)) + crossings("clients", ("bench",)) == []


def test_every_server_module_imports_only_its_own_layer_and_those_below():
    graph = server_graph()
    layers = {m: layer_of(m) for a, edges in graph.items() for m in (a, *edges)}
    unplaced = sorted(
        {m for a, edges in graph.items() if edges for m in (a, *edges) if layers[m] is None}
    )
    assert unplaced == [], f"place these modules in LAYERS: {unplaced}"
    upward = [
        f"{a}:{lines[0]} imports {b} ({LAYERS[layers[b]][0]!r} is above {LAYERS[layers[a]][0]!r})"
        for a, edges in sorted(graph.items())
        for b, lines in sorted(edges.items())
        if layers[a] is not None and layers[b] is not None and layers[b] < layers[a]
    ]
    assert upward == [], "\n".join(upward)


def is_views(module: str) -> bool:
    """An app's HTTP endpoints: its ``views`` modules, and the web's pages."""
    return module.rpartition(".")[2].endswith("views") or module.startswith(VIEWS_PACKAGES)


def test_only_url_modules_import_views():
    shared = [
        f"{a}:{lines[0]} imports {b}"
        for a, edges in sorted(server_graph().items())
        for b, lines in sorted(edges.items())
        if is_views(b) and not a.endswith("urls")
    ]
    assert shared == [], "\n".join(shared)


def test_the_layers_place_the_modules_they_are_meant_to():
    # A few fixed points, so a pattern typed wrong cannot empty a layer unnoticed.
    expected = {
        "server.tables.services": "tables",
        "server.tables.models": "the tables' rows",
        "server.tables.errors": "foundation",
        "server.notices.notify": "notices",
        "server.sockets.consumers": "WebSockets",
        "server.league.actions.rounds": "the league",
        "server.web.pages.league": "web pages",
        "server.run": "process launcher",
        "server.ops.verify": "keeping the server",
        "server.member_data.services": "keeping the server",
        "server.mail.receivers": "members' mail",
    }
    numbers = {m: layer_of(m) for m in expected}
    placed = {m: None if n is None else LAYERS[n][0] for m, n in numbers.items()}
    assert all((placed[m] or "").startswith(v) for m, v in expected.items()), placed
