"""The bot ladder's public page (docs/ladder.md): the bots by rating, with their
interval, matches and versions, and the recent matches, each leg watchable live while
it is played and replayed once it is over. A thin view over ``server.web.selectors.ladder``."""

from __future__ import annotations

from django.shortcuts import render

from server.web.selectors import ladder as ladder_reads


def ladder(request):
    return render(
        request,
        "web/ladder.html",
        {"rows": ladder_reads.standings(), "matches": ladder_reads.recent_matches()},
    )
