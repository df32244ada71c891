"""The clients' import rules, read from the source like the server's
(``tests/server/test_layering.py``: every import of every module, at module level,
under ``if TYPE_CHECKING:`` and inside functions alike, parsed with ``ast``):

- no import cycles among the modules under ``clients/`` (what two modules share lives in
  a third that both import, or is passed down as data);
- ``clients`` imports nothing of ``server`` or ``django``;
- the SDK (``clients.sdk``) imports nothing of the table, the bots or the engine: it is
  the library the others are built on, and what the installed desktop app ships;
- the desktop table imports the bots (which load the engine) only inside the functions
  that start or stop a runner on this machine, never at module level, so the installed
  app (the table and the SDK, no bots, no engine) imports cleanly.
"""

from __future__ import annotations

import ast

from tests.server.test_layering import MODULES, crossings, cycles, imports_of, known

CLIENT_MODULES = sorted(m for m in MODULES if m == "clients" or m.startswith("clients."))


def clients_graph() -> dict[str, dict[str, list[int]]]:
    graph: dict[str, dict[str, list[int]]] = {}
    for name in CLIENT_MODULES:
        edges = graph.setdefault(name, {})
        for imported, line in imports_of(name):
            target = known(imported)
            if target and target.startswith("clients") and target != name:
                edges.setdefault(target, []).append(line)
    return graph


def test_no_import_cycles_among_client_modules():
    graph = clients_graph()
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


def test_the_graph_counts_type_checking_and_function_level_imports():
    # The rules above would miss a cycle hidden behind either: both are edges here.
    graph = clients_graph()
    assert "clients.sdk.push" in graph["clients.sdk.client"]  # under ``if TYPE_CHECKING:``
    assert "clients.bots.launch" in graph["clients.table.shell"]  # inside a function


def test_the_clients_import_nothing_of_the_server_or_django():
    assert crossings("clients", ("server", "django")) == []


def test_the_sdk_imports_nothing_of_the_table_the_bots_or_the_engine():
    found = [
        f"{name}:{line} imports {imported}"
        for name in CLIENT_MODULES
        if name.startswith("clients.sdk")
        for imported, line in imports_of(name)
        if imported.split(".")[0] == "engine"
        or imported.startswith(("clients.table", "clients.bots"))
    ]
    assert found == []


def module_level_imports(name: str) -> list[tuple[str, int]]:
    """The imports a module runs when it is imported: its top level, ``if``/``try``
    blocks included, functions and classes' methods left out."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: list[tuple[str, int]] = []

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                found.extend((alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.append((node.module, node.lineno))
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(tree.body)
    return found


def test_the_desktop_table_loads_the_bots_and_the_engine_only_when_it_starts_a_runner():
    found = [
        f"{name}:{line} imports {imported}"
        for name in CLIENT_MODULES
        if name.startswith("clients.table")
        for imported, line in module_level_imports(name)
        if imported.split(".")[0] == "engine" or imported.startswith("clients.bots")
    ]
    assert found == []
