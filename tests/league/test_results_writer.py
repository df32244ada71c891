"""``server.league.actions.results`` is the one receiver of a match's end and the only
writer of the standings and the ratings: no other product module names the writers of
``server.league.projections`` (the rebuild from the logs, ``manage.py rebuild_league``,
and ``manage.py verify_backup``, which rebuilds inside its scratch copy of a backup to
compare, are the other callers, of ``rebuild``). Read from the source with ``ast``, as the
layering test reads the imports; nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECTIONS = "server.league.projections"
WRITERS = {"apply_result", "update_standings", "rebuild_standings", "rate", "rebuild"}
ALLOWED = {
    "server/league/actions/results.py": WRITERS - {"rebuild"},
    "server/league/management/commands/rebuild_league.py": {"rebuild"},
    "server/ops/verify.py": {"rebuild"},  # inside the scratch database only
}


def writers_named(source: str) -> set[str]:
    """The writers of ``projections`` that ``source`` imports or calls, by any name."""
    tree = ast.parse(source)
    aliases = set()  # the names the module gives ``projections``
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "server.league":
            aliases |= {a.asname or a.name for a in node.names if a.name == "projections"}
        elif isinstance(node, ast.ImportFrom) and node.module == PROJECTIONS:
            found |= {a.name for a in node.names if a.name in WRITERS}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == PROJECTIONS}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in WRITERS:
            if ast.unparse(node.value) in aliases:
                found.add(node.attr)
    return found


def test_only_results_writes_the_standings_and_the_ratings():
    named = {}
    for path in sorted(ROOT.glob("server/**/*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative == "server/league/projections.py" or "/migrations/" in relative:
            continue
        found = writers_named(path.read_text(encoding="utf-8")) - ALLOWED.get(relative, set())
        if found:
            named[relative] = sorted(found)
    assert named == {}


def test_the_check_sees_a_writer_under_any_name():
    assert writers_named("from server.league import projections\nprojections.rate(m)") == {"rate"}
    assert writers_named("from server.league import projections as p\np.update_standings(m)") == {
        "update_standings"
    }
    assert writers_named("from server.league.projections import apply_result") == {"apply_result"}
    assert writers_named("import server.league.projections\nx = 1") == set()
    assert writers_named("from server.league import projections\nprojections.season_byes(s)") == (
        set()
    )
