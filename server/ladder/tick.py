"""The ladder's step of the one ticking driver (``server.league.tick``): what happens to
the ladder because time passed. In turn:

1. pairs whose leg ended but were not taken on (``pairs.advance`` failed in the leg's
   transaction) are taken on;
2. a ladder bot that keeps a leg waiting longer than ``DEKABES_LADDER_MOVE_SECONDS`` (its
   turn, or away from the table where presence is seen) is substituted by the house
   player of its level (the anchor level nearest its rating), and counted as
   ``pairs.rate`` says; it is drawn again once it says it is there (its next opt-in);
3. a round is drawn (``scheduling.draw_round``) among the entrants ready (seen within
   ``DEKABES_LADDER_SEEN_SECONDS``), free and under their daily quota, and their pairs'
   first legs open.
"""

from __future__ import annotations

import datetime as dt
import logging
import random

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q

from engine import spectator_view
from engine.table_commands import seats_to_act
from server.ladder import pairs
from server.ladder.models import Entry, Ladder, Leg, Pair, PairSeat
from server.ladder.rating import ANCHOR_MU
from server.ladder.scheduling import Candidate, draw_round
from server.ladder.setup import ensure_anchors, the_ladder
from server.league.actions.hosted import hosted_player_for
from server.notices import presence
from server.tables import projection
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.models import Event, Seat

log = logging.getLogger(__name__)

IN_PLAY = ("first", "second")
RECENT_PARTNERS = 6  # the last pairs whose partners a bot does not get again if avoidable
DAY = dt.timedelta(days=1)
NOT_SEEN = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)  # a substituted bot's ``seen_at``


def ladder_step(now: dt.datetime, rng: random.Random | None = None) -> list[str]:
    ladder = the_ladder()
    if ladder is None:
        return []
    lines: list[str] = []
    for pair_id in advance_pairs():
        lines.append(f"ladder pair {pair_id}: taken on")
    for pair_id, seat in substitute_stalled(ladder, now):
        lines.append(f"ladder pair {pair_id} seat {seat}: substituted")
    for pair in schedule_round(ladder, now, rng):
        lines.append(f"ladder pair {pair.pk}: drawn (round {pair.round})")
    return lines


def advance_pairs() -> list[int]:
    moved = []
    stuck = Pair.objects.filter(status__in=IN_PLAY).filter(
        Q(status="first", legs__number=1) | Q(status="second", legs__number=2),
        legs__match__status__in=("finished", "annulled"),
    )
    for pair_id in stuck.values_list("pk", flat=True):
        with writing(), transaction.atomic():
            pairs.advance(pair_id)
        moved.append(pair_id)
    return moved


# -- substitutes ---------------------------------------------------------------------------------
def level_of(mu: float) -> str:
    """The house level whose anchor is nearest ``mu``."""
    levels = settings.DEKABES_LADDER_LEVELS or tuple(ANCHOR_MU)
    return min(levels, key=lambda level: (abs(ANCHOR_MU[level] - mu), ANCHOR_MU[level]))


def stalled_seats(leg: Leg, now: dt.datetime) -> list[int]:
    """The seats of a playing leg whose holder keeps it waiting past the limit."""
    table = leg.match.table
    state = projection.project(table)
    if state.stopped:
        return []
    limit = dt.timedelta(seconds=settings.DEKABES_LADDER_MOVE_SECONDS)
    stalled: set[int] = set()
    last = (
        Event.objects.filter(table=table, seq=state.version)
        .values_list("created_at", flat=True)
        .first()
    )
    if last is not None and now - last > limit and not state.paused:
        stalled |= set(seats_to_act(spectator_view(state.match)))
    if presence.seen_here():
        for seat in (1, 2, 3, 4):
            since = presence.away_since(table=table, seat=seat, now=now.timestamp())
            if since is not None and now - since > limit:
                stalled.add(seat)
    return sorted(stalled)


def substitute_stalled(ladder: Ladder, now: dt.datetime) -> list[tuple[int, int]]:
    done = []
    legs = Leg.objects.filter(match__status="playing", pair__status__in=IN_PLAY).select_related(
        "match__table", "pair"
    )
    for leg in legs:
        for seat in stalled_seats(leg, now):
            try:
                if substitute(ladder, leg, seat):
                    done.append((leg.pair_id, seat))
            except Exception:  # one table's trouble never stops the others
                log.warning(
                    "ladder pair %s seat %s: no substitute", leg.pair_id, seat, exc_info=True
                )
    return done


def substitute(ladder: Ladder, leg: Leg, seat: int) -> bool:
    """Hand ``seat`` of the leg to the house player of its bot's level; False when its
    holder is no drawn entrant (an anchor, a substitute already)."""
    table = leg.match.table
    holder = (
        Seat.objects.filter(table=table, number=seat).values_list("player_id", flat=True).first()
    )
    drawn = (
        PairSeat.objects.filter(pair=leg.pair, entry__bot_id=holder, entry__house_level="")
        .select_related("version")
        .first()
    )
    if drawn is None:
        return False
    with writing(), transaction.atomic():
        players = Seat.objects.filter(table=table, player__isnull=False).values_list(
            "player_id", flat=True
        )
        house = hosted_player_for(
            club=ladder.club, level=level_of(drawn.version.mu), exclude=list(players)
        )
        table_services.do_hand_over(
            actor=None,
            table=table,
            seat=seat,
            to=house,
            reason="auto_substitute",
            note="ladder: the bot timed out or went away",
        )
        PairSeat.objects.filter(pk=drawn.pk).update(substituted=True)
        # Not drawn again until it says it is there (its next opt-in): a bot that died
        # is not seated, and substituted, round after round.
        Entry.objects.filter(pk=drawn.entry_id).update(seen_at=NOT_SEEN)
    return True


# -- scheduling ----------------------------------------------------------------------------------
def schedule_round(
    ladder: Ladder, now: dt.datetime, rng: random.Random | None = None
) -> list[Pair]:
    """Draw a round among the entrants that may play now and open its pairs."""
    in_play = Pair.objects.filter(status__in=IN_PLAY)
    room = settings.DEKABES_LADDER_MAX_PAIRS - in_play.count()
    if room <= 0:
        return []
    seen = now - dt.timedelta(seconds=settings.DEKABES_LADDER_SEEN_SECONDS)
    busy = PairSeat.objects.filter(pair__status__in=IN_PLAY).values("entry_id")
    ready = (
        Entry.objects.filter(active=True, house_level="", seen_at__gte=seen, version__isnull=False)
        .exclude(pk__in=busy)
        .select_related("bot", "version")
        .annotate(today=Count("pair_seats", filter=Q(pair_seats__pair__created_at__gt=now - DAY)))
    )
    # A pair is two matches: a bot is drawn only while both fit in its day.
    entrants = [e for e in ready if 2 * (e.today + 1) <= e.matches_per_day]
    if not entrants:
        return []
    ensure_anchors(ladder)
    anchors = list(
        Entry.objects.filter(active=True, version__isnull=False)
        .exclude(house_level="")
        .filter(house_level__in=settings.DEKABES_LADDER_LEVELS)
        .select_related("bot", "version")
    )
    partners = recent_partners([e.pk for e in entrants])
    candidates = [
        Candidate(
            key=e.pk,
            mu=e.version.mu,  # type: ignore[union-attr]  # filtered: a version
            owner=e.bot.bot_owner_id,
            played_today=e.today,
            recent_partners=frozenset(partners.get(e.pk, ())),
        )
        for e in entrants
    ]
    fixed = [Candidate(key=a.pk, mu=a.version.mu, anchor=True) for a in anchors]  # type: ignore[union-attr]
    foursomes = draw_round(candidates, fixed, rng or random.Random())[:room]
    if not foursomes:
        return []
    by_key = {e.pk: e for e in (*entrants, *anchors)}
    Ladder.objects.filter(pk=ladder.pk).update(rounds=ladder.rounds + 1)
    ladder.rounds += 1
    opened = []
    for foursome in foursomes:
        try:
            opened.append(pairs.open_pair(ladder, foursome, by_key, ladder.rounds))
        except Exception:
            log.warning("ladder: a pair of round %s not opened", ladder.rounds, exc_info=True)
    return opened


def recent_partners(entry_ids: list[int]) -> dict[int, set[int]]:
    """Each entry's partners in its last ``RECENT_PARTNERS`` pairs."""
    mine = (
        PairSeat.objects.filter(entry_id__in=entry_ids)
        .order_by("entry_id", "-pair_id")
        .values_list("entry_id", "pair_id", "team")
    )
    last: dict[int, list[tuple[int, str]]] = {}
    for entry_id, pair_id, team in mine:
        kept = last.setdefault(entry_id, [])
        if len(kept) < RECENT_PARTNERS:
            kept.append((pair_id, team))
    wanted = {(p, t) for kept in last.values() for p, t in kept}
    teams: dict[tuple[int, str], list[int]] = {}
    for entry_id, pair_id, team in PairSeat.objects.filter(
        pair_id__in={p for p, _ in wanted}
    ).values_list("entry_id", "pair_id", "team"):
        teams.setdefault((pair_id, team), []).append(entry_id)
    return {
        e: {o for p, t in kept for o in teams.get((p, t), ()) if o != e} for e, kept in last.items()
    }
