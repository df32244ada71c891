"""Results: the one receiver of a match's end and the only writer of the standings and
the ratings (``tests/league/test_results_writer.py`` holds every other module to it).

``record_match_end`` receives ``tables.signals.match_ended`` (connected in ``apps``),
sent inside the transaction of the event that ended the match (its last hand, an
``annul`` or a ``forfeit``): it writes the match's result, the season's standings and the
club's ratings there, through ``projections``, which ``manage.py rebuild_league``
recomputes from the logs to identical rows. ``count_byes`` is the other write: a round's
byes count in the standings from the moment it is drawn.
"""

from __future__ import annotations

from server.league import projections
from server.league.actions.tell import tell_after_commit
from server.league.match_rows import casual_match
from server.league.models import Club, LeagueMatch, Round, Season
from server.tables.models import Table


def record_match_end(sender, table: Table, state, annulled: bool, **kwargs) -> None:
    match = LeagueMatch.objects.filter(table=table).select_related("season", "club").first()
    if match is None:
        match = casual_match(table)
    elif match.status != "playing":
        # A casual table may play on after its match ended (undo, new match): its history
        # keeps the first finished match, as a rebuild from the log does.
        return
    if match.club_id is not None:
        # One club's results are written one at a time (PostgreSQL: the club row's lock),
        # so each sees the others' committed rows: standings, ratings, the round's end.
        Club.objects.select_for_update().filter(pk=match.club_id).first()
    projections.apply_result(match, state)
    round_over = match.round_id is not None and _finish_round_if_done(match.round_id)
    duplicate = match.season is not None and match.season.duplicate
    if match.season is not None:
        if duplicate:
            # A duplicate round's results count once the whole round is over (docs/league.md).
            if not annulled or round_over:
                projections.rebuild_standings(match.season)
        elif not annulled:
            projections.update_standings(match)
    if duplicate and round_over and match.round_id is not None:
        for finished in projections.round_rated_in_order(match.round_id):
            projections.rate(finished)
    elif (
        match.club_id is not None
        and match.rated
        and not annulled
        and not duplicate
        and match.forfeited_by is None
    ):
        projections.rate(match)
    tell_after_commit(match.seats.values_list("player_id", flat=True), match.club_id)


def _finish_round_if_done(round_id: int) -> bool:
    """Mark the round finished once no match of it is played; whether it just ended."""
    if not LeagueMatch.objects.filter(round_id=round_id, status="playing").exists():
        return (
            Round.objects.filter(pk=round_id).exclude(status="finished").update(status="finished")
            > 0
        )
    return False


def count_byes(season: Season) -> None:
    """A round was drawn (inside its transaction): its byes count in the season's
    standings from now on."""
    projections.rebuild_standings(season)
