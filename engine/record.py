"""Record I/O: a match record as JSON Lines text, one event per line (docs/records.md).

Reading never refuses: an unreadable line becomes an ``UnreadableLine`` marker, which
the fold refuses as ``bad_event`` at that line's index, so an error names its place.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


class UnreadableLine:
    """Stands in for a record line that is not JSON; folding it is ``bad_event``."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"UnreadableLine({self.text!r})"


def load_record(text: str) -> list[Any]:
    """JSON Lines to events; blank lines are skipped, unreadable ones kept as markers."""
    events = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError:
            events.append(UnreadableLine(line))
    return events


def dump_record(events: Iterable[dict[str, Any]]) -> str:
    """Events as JSON Lines: compact separators, UTF-8 as it is, one line each."""
    return "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in events)


__all__ = ["UnreadableLine", "dump_record", "load_record"]
