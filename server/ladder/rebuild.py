"""The ladder's ratings as a projection: every version back at its start, then every
rated pair replayed in the order it was rated, through the same ``pairs.decide`` and
``pairs.apply_rating`` as the ladder's own rating. ``rebuild_ladder`` (the command) and
``verify-backup`` run it after ``rebuild_league`` (a pair's margins are the league
results of its two legs); ``stored_rows`` keys the rows so a difference names its row.
"""

from __future__ import annotations

from django.db import transaction

from server.ladder.models import Pair, PairSeat, Version
from server.ladder.pairs import SEAT_FIELDS, VERSION_FIELDS, apply_rating, decide, margins
from server.league.ratings import Rating
from server.tables.locking import writing


def stored_rows() -> dict[str, dict]:
    """The ladder's stored ratings: each version's and each rated pair's seats."""
    return {
        "ladder version": {
            f"version {row[0]}": row[1:]
            for row in Version.objects.values_list("pk", *VERSION_FIELDS)
        },
        "ladder pair": {
            f"pair {row[0]} seat {row[1]}": row[2:]
            for row in PairSeat.objects.filter(pair__rated=True).values_list(
                "pair_id", "first_seat", *SEAT_FIELDS
            )
        },
        "ladder result": {
            f"pair {row[0]}": row[1:]
            for row in Pair.objects.filter(rated=True).values_list("pk", "result", "margin")
        },
    }


def rebuild() -> dict[str, int]:
    """Recompute every version's rating and counts and every rated pair's result and
    seat ratings; returns how many of each were written."""
    with writing(), transaction.atomic():
        versions = {v.pk: v for v in Version.objects.select_for_update().order_by("pk")}
        for version in versions.values():
            version.mu, version.sigma = version.start_mu, version.start_sigma
            version.ordinal = Rating(mu=version.start_mu, sigma=version.start_sigma).ordinal
            version.pairs = version.wins = version.losses = version.ties = 0
            version.substituted = 0
        pairs = Pair.objects.filter(rated=True).order_by("finished_at", "pk")
        rated = 0
        for pair in pairs.prefetch_related("seats__entry"):
            seats = list(pair.seats.all())
            ratings = {
                s.version_id: Rating(
                    mu=versions[s.version_id].mu, sigma=versions[s.version_id].sigma
                )
                for s in seats
            }
            score, points = margins(pair)
            decided = decide(seats, ratings, score, points)
            if decided is None:  # never for a rated pair: who timed out is stored, not derived
                continue
            apply_rating(seats, versions, ratings, decided)
            Pair.objects.filter(pk=pair.pk).update(result=decided[0], margin=score)
            rated += 1
        Version.objects.bulk_update(list(versions.values()), VERSION_FIELDS)
    return {"versions": len(versions), "pairs": rated}
