"""A ladder pair from its draw to its rating.

Leg 1: team A at seats 1 and 3, team B at 2 and 4, dealt from the pair's seed (the
tables' duplicate dealing: hand by hand and redeal by redeal, whatever the log). When it
ends, leg 2 opens on the same seed with every bot one seat on (seat s plays from seat
s+1): each bot now holds, hand by hand, the cards its left-hand opponent held in leg 1.
The legs are played one after the other, never at once, so that no bot plays a deal
while it (or anyone watching) could see the same deal being played elsewhere.

When leg 2 ends the pair is rated (``rating``): each team's score difference summed
over both legs. A bot substituted for timing out loses the pair: it ends with that leg
(the second leg would decide nothing). An annulled leg voids the pair (not rated).

``record_leg_end`` runs inside the transaction of the event that ended the leg (the
tables' ``match_ended``, after the league's receiver wrote the leg's result); a failure
there is logged and left to the ticking driver (``tick.advance_pairs``), never raised
into the bot's action.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from server.accounts.models import User
from server.ladder.models import Entry, Ladder, Leg, Pair, PairSeat, Version
from server.ladder.rating import pair_result, rate_pair
from server.ladder.scheduling import Foursome
from server.ladder.setup import the_ladder
from server.league.actions.tell import tell_after_commit
from server.league.match_rows import seat_players
from server.league.models import LeagueMatch
from server.league.ratings import Rating
from server.tables import seeds
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Table

log = logging.getLogger(__name__)

FIRST_SEATS = (1, 3, 2, 4)  # team A's two bots, then team B's, in the first leg


def turned(seat: int) -> int:
    """A bot's seat in the second leg: one on."""
    return seat % 4 + 1


def open_pair(ladder: Ladder, foursome: Foursome, entries: dict[int, Entry], round_: int) -> Pair:
    """Draw ``foursome`` into a pair and open its first leg."""
    shared = foursome.shared_owner
    with writing(), transaction.atomic():
        pair = Pair.objects.create(round=round_, deal_seed=seeds.new_seed(), shared_owner=shared)
        for key, seat in zip(foursome.keys, FIRST_SEATS, strict=True):
            entry = entries[key]
            assert entry.version is not None
            PairSeat.objects.create(
                pair=pair,
                entry=entry,
                version=entry.version,
                team="A" if seat in (1, 3) else "B",
                first_seat=seat,
            )
        open_leg(ladder, pair, 1)
    return pair


def leg_players(pair: Pair, number: int) -> dict[int, User]:
    seats = pair.seats.select_related("entry__bot")
    if number == 1:
        return {s.first_seat: s.entry.bot for s in seats}
    return {turned(s.first_seat): s.entry.bot for s in seats}


def open_leg(ladder: Ladder, pair: Pair, number: int) -> Leg:
    players = leg_players(pair, number)
    # A rated table (no takebacks, one seat per person) unless two bots of one owner
    # had to meet (``scheduling``): then it is a casual table, the ladder rates it all
    # the same.
    table = table_services.do_create_seated_table(
        owner=ladder.account, players=players, rated=not pair.shared_owner, deal_seed=pair.deal_seed
    )
    match = LeagueMatch.objects.create(
        table=table, club=ladder.club, rated=False, started_at=table.created_at
    )
    seat_players(match, players)
    leg = Leg.objects.create(pair=pair, number=number, match=match)
    tell_after_commit([p.pk for p in players.values()], ladder.club_id)
    return leg


# -- a leg's end ---------------------------------------------------------------------------------
def record_leg_end(sender, table: Table, state, annulled: bool, **kwargs) -> None:
    leg = Leg.objects.filter(match__table=table).select_related("pair").first()
    if leg is None:
        return
    try:
        with transaction.atomic():  # a savepoint: the bot's action commits whatever happens
            advance(leg.pair_id)
    except Exception:
        log.exception("ladder pair %s: left to the next tick", leg.pair_id)


def advance(pair_id: int) -> Pair | None:
    """Take the pair on from its leg that ended: open leg 2, rate it, or void it.
    Idempotent: a leg still playing (or a pair already decided) changes nothing."""
    pair = Pair.objects.select_for_update().filter(pk=pair_id).first()
    ladder = the_ladder()
    if pair is None or ladder is None or pair.status not in ("first", "second"):
        return pair
    number = 1 if pair.status == "first" else 2
    leg = Leg.objects.filter(pair=pair, number=number).select_related("match").first()
    if leg is None or leg.match.status == "playing":
        return pair
    if leg.match.status == "annulled":
        return _close(pair, "void", note=f"leg {number} annulled: not rated")
    substituted = pair.seats.filter(substituted=True).exists()
    if number == 1 and not substituted:
        open_leg(ladder, pair, 2)
        pair.status = "second"
        pair.save(update_fields=["status"])
        return pair
    return rate(pair)


def _close(pair: Pair, status: str, note: str = "") -> Pair:
    pair.status, pair.finished_at, pair.note = status, timezone.now(), note
    pair.save(update_fields=["status", "finished_at", "note"])
    return pair


def margins(pair: Pair) -> tuple[int, int]:
    """Team A's score and points margins summed over the pair's finished legs (in leg 2
    team A sits at seats 2 and 4: the table's team B)."""
    score = points = 0
    for leg in pair.legs.select_related("match"):
        m = leg.match
        sign = 1 if leg.number == 1 else -1
        score += sign * (m.score_a - m.score_b)
        points += sign * (m.points_a - m.points_b)
    return score, points


def decide(
    seats: list[PairSeat], ratings: dict[int, Rating], score: int, points: int
) -> tuple[str, dict[int, Rating]] | None:
    """The pair's result and the new ratings of the versions that move, from team A's
    margins and who timed out; None: not rated (bots of both teams timed out). Pure: the
    ladder's rating and its rebuild (``rebuild``) both come through here."""
    out_teams = {s.team for s in seats if s.substituted}
    if len(out_teams) == 2:
        return None
    if out_teams:
        result = "B" if out_teams == {"A"} else "A"
    else:
        result = pair_result(score, points)
    team = {t: tuple(s.version_id for s in seats if s.team == t) for t in ("A", "B")}
    out = {s.version_id for s in seats if s.substituted}
    fixed = {s.version_id for s in seats if s.entry.anchor}
    moved = rate_pair(ratings, team["A"], team["B"], result, fixed=fixed, substituted=out)  # type: ignore[arg-type]  # two ids a team
    return result, moved


def apply_rating(
    seats: list[PairSeat],
    versions: dict[int, Version],
    ratings: dict[int, Rating],
    decided: tuple[str, dict[int, Rating]],
) -> list[Version]:
    """Write each seat's rating before and after the pair (saved), and move the versions
    that moved, with their counts (in memory: returned for the caller to save)."""
    result, moved = decided
    changed = []
    for seat in seats:
        before = ratings[seat.version_id]
        after = moved.get(seat.version_id, before)
        seat.mu_before, seat.sigma_before = before.mu, before.sigma
        seat.mu_after, seat.sigma_after = after.mu, after.sigma
        seat.save(update_fields=SEAT_FIELDS)
        if seat.entry.anchor or seat.version_id not in moved:
            continue
        version = versions[seat.version_id]
        version.mu, version.sigma, version.ordinal = after.mu, after.sigma, after.ordinal
        version.pairs += 1
        if result == "tie":
            version.ties += 1
        elif result == seat.team:
            version.wins += 1
        else:
            version.losses += 1
        version.substituted += int(seat.substituted)
        changed.append(version)
    return changed


VERSION_FIELDS = ["mu", "sigma", "ordinal", "pairs", "wins", "losses", "ties", "substituted"]
SEAT_FIELDS = ["mu_before", "sigma_before", "mu_after", "sigma_after"]


def rate(pair: Pair) -> Pair:
    seats = list(pair.seats.select_related("entry", "version"))
    versions = {
        # locked in one order (ids), so two pairs ending at once never deadlock
        v.pk: v
        for v in Version.objects.select_for_update()
        .filter(pk__in=[s.version_id for s in seats])
        .order_by("pk")
    }
    ratings = {k: Rating(mu=v.mu, sigma=v.sigma) for k, v in versions.items()}
    score, points = margins(pair)
    decided = decide(seats, ratings, score, points)
    if decided is None:
        return _close(pair, "void", note="bots of both teams timed out: not rated")
    for version in apply_rating(seats, versions, ratings, decided):
        version.save(update_fields=VERSION_FIELDS)
    result = decided[0]
    pair.result, pair.margin, pair.rated = result, score, True
    pair.save(update_fields=["result", "margin", "rated"])
    note = "a bot timed out: its team loses the pair" if any(s.substituted for s in seats) else ""
    return _close(pair, "done", note=note)
