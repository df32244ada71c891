"""The one way a league action pushes: after its transaction commits, the lobbies of the
players it seated or moved, and the club's live pages (docs/web.md), are told.

``tell_after_commit`` registers the notice on the transaction in progress, so a refused
(rolled back) action tells nobody, and no action calls ``transaction.on_commit`` itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from server.notices.notify import club_changed, league_tables_changed


def tell_after_commit(players: Iterable[int], club_id: int | None = None) -> None:
    """Once the transaction commits: the league tables of ``players`` (account ids)
    changed, and so did the club ``club_id``'s pages, when one is named."""
    seated = list(players)  # read now: the caller's rows may change before the commit
    transaction.on_commit(lambda: tell_now(seated, club_id))


def tell_now(players: list[int], club_id: int | None = None) -> None:
    league_tables_changed(players)
    if club_id is not None:  # the club's live pages (docs/web.md)
        club_changed(club_id)
