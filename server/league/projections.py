"""The league's projections: a match's result, a season's standings, a club's ratings.

All three are computed from the tables' event logs (through the engine's fold) and the
pure modules ``standings`` and ``ratings``; nothing here decides a rule. The same
functions serve the incremental path (inside the transaction of the event that ended a
match) and ``rebuild`` (``manage.py rebuild_league``), so both give identical rows.
"""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.db.models import F

from engine import Match as EngineMatch
from engine.phases import MATCH_OVER
from engine.replay import Outcome
from engine.seats import TEAM_SEATS, TEAMS
from server.league import ratings as rating_model
from server.league import standings as standings_model
from server.league.match_rows import casual_match
from server.league.models import (
    CheckIn,
    Club,
    LeagueMatch,
    LeagueMatchSeat,
    Rating,
    RatingPoint,
    Round,
    Season,
    StandingRow,
)
from server.tables import projection
from server.tables.models import Event, Table
from server.tables.projection import TableState


# -- one match ------------------------------------------------------------------------------
def apply_result(match: LeagueMatch, state: TableState) -> None:
    """Write the result of the match ``state`` ended (or annulled) with its last event."""
    outcome = Outcome.of(state.match)
    ended = (
        Event.objects.filter(table_id=match.table_id, seq=state.version)
        .values_list("created_at", flat=True)
        .first()
    )
    match.status = "annulled" if state.annulled is not None else "finished"
    match.annul_reason = state.annulled["reason"] if state.annulled is not None else ""
    match.finished_at, match.end_seq = ended, state.version
    match.winner = outcome.winner if match.status == "finished" else None
    match.forfeited_by = None
    if state.forfeited is not None:  # the other team wins; the hands played are kept
        match.forfeited_by = state.forfeited["team"]
        match.winner = "B" if match.forfeited_by == "A" else "A"
    match.score_a, match.score_b = outcome.scores
    match.hands = outcome.hands_played
    match.hands_won_a, match.hands_won_b = outcome.hands_won
    match.points_a, match.points_b = outcome.points
    match.dekabes_a, match.dekabes_b = outcome.dekabes
    match.hands_tied = outcome.hands_tied
    match.save()


def ending_state(table: Table) -> TableState | None:
    """The table's state right after the event that ended or annulled its match."""
    state = TableState(EngineMatch())
    for seq, payload in (
        Event.objects.filter(table=table).order_by("seq").values_list("seq", "payload")
    ):
        state.fold(seq, payload)
        if state.stopped or state.match.phase == MATCH_OVER:
            return state
    return None


# -- standings --------------------------------------------------------------------------------
def match_lines(season: Season) -> list:
    """The season's finished matches as the standings module reads them."""
    seats: dict[int, dict[int, int]] = {}
    for match_id, number, player_id in LeagueMatchSeat.objects.filter(
        match__season=season, match__status="finished"
    ).values_list("match_id", "number", "player_id"):
        seats.setdefault(match_id, {})[number] = player_id
    lines = []
    for m in LeagueMatch.objects.filter(season=season, status="finished").order_by(
        "finished_at", "id"
    ):
        side_a: tuple[int | None, ...]
        side_b: tuple[int | None, ...]
        if season.format == "pairs":
            side_a, side_b = (m.pair_a_id,), (m.pair_b_id,)
        else:
            s = seats[m.pk]
            side_a, side_b = (tuple(s[n] for n in TEAM_SEATS[team]) for team in TEAMS)
        if m.forfeited_by is not None:
            # A forfeit counts its result only: the hands played stay in the record.
            lines.append(
                standings_model.MatchLine(
                    side_a=side_a,
                    side_b=side_b,
                    winner=decided(m),
                    hands_won_a=0,
                    hands_won_b=0,
                    hands_tied=0,
                    points_a=0,
                    points_b=0,
                    dekabes_a=0,
                    dekabes_b=0,
                    forfeited_by=m.forfeited_by,
                )
            )
            continue
        lines.append(
            standings_model.MatchLine(
                side_a=side_a,
                side_b=side_b,
                winner=decided(m),
                hands_won_a=m.hands_won_a,
                hands_won_b=m.hands_won_b,
                hands_tied=m.hands_tied,
                points_a=m.points_a,
                points_b=m.points_b,
                dekabes_a=m.dekabes_a,
                dekabes_b=m.dekabes_b,
            )
        )
    return lines


def season_byes(season: Season) -> Counter:
    field = "pair_id" if season.format == "pairs" else "player_id"
    return Counter(
        CheckIn.objects.filter(round__season=season, bye=True).values_list(field, flat=True)
    )


def rebuild_standings(season: Season) -> None:
    rows = standings_model.compute_standings(match_lines(season), season_byes(season))
    entrant = "pair_id" if season.format == "pairs" else "player_id"
    if season.format == "individual":
        # House bots that only filled seats are substitutes, not entrants: no row.
        entrants = set(
            LeagueMatchSeat.objects.filter(match__season=season, filler=False).values_list(
                "player_id", flat=True
            )
        ) | set(season_byes(season))
        rows = [row for row in rows if row.entrant in entrants]
    StandingRow.objects.filter(season=season).delete()
    StandingRow.objects.bulk_create(
        [
            StandingRow(
                season=season,
                position=position,
                **{entrant: row.entrant},
                played=row.played,
                wins=row.wins,
                byes=row.byes,
                hands_won=row.hands_won,
                hands_lost=row.hands_lost,
                points=row.points,
                dekabes=row.dekabes,
                ties=row.ties,
                forfeits=row.forfeits,
            )
            for position, row in enumerate(rows, start=1)
        ]
    )


# -- ratings ---------------------------------------------------------------------------------
def teams_of(match: LeagueMatch) -> tuple[tuple[int, int], tuple[int, int]]:
    seats = dict(match.seats.values_list("number", "player_id"))
    (a1, a2), (b1, b2) = TEAM_SEATS["A"], TEAM_SEATS["B"]
    return (seats[a1], seats[a2]), (seats[b1], seats[b2])


def decided(match: LeagueMatch) -> str:
    """The winning side of a finished match; anything else is a caller's bug."""
    if match.winner is None:
        raise ValueError(f"match {match.pk} has no result to project")
    return match.winner


def rate(match: LeagueMatch, current: dict | None = None) -> dict:
    """Rate one finished match: update the four players' ``Rating`` rows and add a
    ``RatingPoint`` each. ``current`` (rebuild) holds the club's ratings in memory."""
    club_id = match.club_id
    if club_id is None:
        raise ValueError(f"match {match.pk} is casual: only club matches are rated")
    team_a, team_b = teams_of(match)
    players = (*team_a, *team_b)
    if current is None:
        current = {
            r.player_id: rating_model.Rating(mu=r.mu, sigma=r.sigma)
            for r in Rating.objects.filter(club_id=club_id, player_id__in=players)
        }
    new = rating_model.rate_match(current, team_a, team_b, decided(match))
    for player, value in new.items():
        updated = Rating.objects.filter(club_id=club_id, player_id=player).update(
            mu=value.mu, sigma=value.sigma, ordinal=value.ordinal, matches=F("matches") + 1
        )
        if not updated:
            Rating.objects.create(
                club_id=club_id,
                player_id=player,
                mu=value.mu,
                sigma=value.sigma,
                ordinal=value.ordinal,
                matches=1,
            )
    RatingPoint.objects.bulk_create(
        [
            RatingPoint(
                club_id=club_id,
                player_id=p,
                match=match,
                mu=v.mu,
                sigma=v.sigma,
                ordinal=v.ordinal,
            )
            for p, v in sorted(new.items())
        ]
    )
    current.update(new)
    return current


def rated_in_order(club: Club):
    """The club's rated finished matches in the order they finished (a forfeit is not
    rated: docs/league.md, "Substitutes and forfeits")."""
    return LeagueMatch.objects.filter(
        club=club, rated=True, status="finished", forfeited_by__isnull=True
    ).order_by("finished_at", "id")


# -- rebuild ---------------------------------------------------------------------------------
def rebuild() -> dict:
    """Drop every projection and recompute it from the tables' logs."""
    projection.forget()
    counts: Counter[str] = Counter()
    with transaction.atomic():
        RatingPoint.objects.all().delete()
        Rating.objects.all().delete()
        StandingRow.objects.all().delete()
        LeagueMatch.objects.update(
            status="playing",
            finished_at=None,
            end_seq=None,
            winner=None,
            score_a=0,
            score_b=0,
            hands=0,
            hands_won_a=0,
            hands_won_b=0,
            hands_tied=0,
            points_a=0,
            points_b=0,
            dekabes_a=0,
            dekabes_b=0,
            annul_reason="",
            forfeited_by=None,
        )
        for table in Table.objects.order_by("id"):
            state = ending_state(table)
            match = LeagueMatch.objects.filter(table=table).first()
            if state is None:
                continue
            match = match or casual_match(table)
            apply_result(match, state)
            counts[match.status] += 1
        for season in Season.objects.all():
            rebuild_standings(season)
        for club in Club.objects.all():
            current: dict = {}
            for match in rated_in_order(club):
                rate(match, current)
                counts["rated"] += 1
        for round_ in Round.objects.filter(status__in=("started", "finished")):
            playing = LeagueMatch.objects.filter(round=round_, status="playing").exists()
            Round.objects.filter(pk=round_.pk).update(status="started" if playing else "finished")
    return dict(counts)
