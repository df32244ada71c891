"""The table services' own refusals, as domain errors: raised by ``services``, answered
by ``server.errors`` (which gives each its HTTP status and JSON body)."""

from __future__ import annotations


class TableError(Exception):
    """A refusal of the table services that the HTTP layer turns into an answer."""


class StaleVersion(TableError):
    """The action was decided on an older version than the table's: nothing was written.

    ``view`` is the seat's current response (what the caller would get by looking
    again), so a client can decide again without another request.
    """

    def __init__(self, version: int, view: dict):
        super().__init__(f"the table is at version {version}: look again before acting")
        self.version = version
        self.view = view
