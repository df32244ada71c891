"""docs/api.md's table of error codes, made from the classes of ``server.errors``.

    python -m server.error_table           # print the table
    python -m server.error_table --write   # rewrite it in docs/api.md (between the markers)
    python -m server.error_table --check   # exit 1 when docs/api.md is not up to date

``tests/server/test_error_catalogue.py`` fails when the document is stale.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

API_DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
BEGIN = "<!-- error table: made by `python -m server.error_table --write`; do not edit -->"
END = "<!-- end of the error table -->"
AREAS = {
    "": "",
    "accounts": "accounts: ",
    "tables": "tables: ",
    "rules": "the engine's rules: ",
    "league": "league: ",
    "matchmaking": "matchmaking: ",
}


def _entry(cls) -> str:
    return f"`{cls.code}` ({cls.note})" if cls.note else f"`{cls.code}`"


def table() -> str:
    """The markdown table: one row per status, its codes grouped by area."""
    from server.errors import codes_by_status

    rows = ["| status | codes |", "|---|---|"]
    for status, classes in codes_by_status().items():
        groups = []
        for area, label in AREAS.items():
            entries = [_entry(cls) for cls in classes if cls.area == area]
            if entries:
                groups.append(label + ", ".join(entries))
        rows.append(f"| {status} | {'; '.join(groups)} |")
    return "\n".join(rows)


def with_table(document: str) -> str:
    """``document`` with the text between the markers replaced by the current table."""
    start, end = document.index(BEGIN) + len(BEGIN), document.index(END)
    return document[:start] + "\n" + table() + "\n" + document[end:]


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    import django

    django.setup()
    document = API_DOC.read_text(encoding="utf-8")
    if "--write" in argv:
        API_DOC.write_text(with_table(document), encoding="utf-8")
        return 0
    if "--check" in argv:
        if with_table(document) != document:
            print("docs/api.md's error table is stale: python -m server.error_table --write")
            return 1
        return 0
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
