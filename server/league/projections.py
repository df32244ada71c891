"""The league's projections: a match's result, a season's standings, a club's ratings.

All three are computed from the tables' event logs (through the engine's fold) and the
pure modules ``standings`` and ``ratings``; nothing here decides a rule. The same
functions serve the incremental path (inside the transaction of the event that ended a
match) and ``rebuild`` (``manage.py rebuild_league``), so both give identical rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from django.db import connection, transaction
from django.db.models import Case, F, Max, OuterRef, Q, Subquery, When

from engine import Match as EngineMatch
from engine.phases import MATCH_OVER
from engine.replay import Outcome
from engine.seats import TEAM_SEATS, TEAMS
from server.accounts.models import User
from server.league import holders
from server.league import ratings as rating_model
from server.league import standings as standings_model
from server.league.duplicate_scoring import season_scores
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
from server.tables.table_state import TableState


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
def _line(
    m: LeagueMatch, pairs: bool, seats: dict[int, dict[int, int]]
) -> standings_model.MatchLine:
    side_a: tuple[int | None, ...]
    side_b: tuple[int | None, ...]
    if pairs:
        side_a, side_b = (m.pair_a_id,), (m.pair_b_id,)
    else:
        s = seats[m.pk]
        side_a, side_b = (tuple(s[n] for n in TEAM_SEATS[team]) for team in TEAMS)
    if m.forfeited_by is not None:
        # A forfeit counts its result only: the hands played stay in the record.
        return standings_model.MatchLine(
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
    return standings_model.MatchLine(
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


def match_lines(season: Season, involving: Collection[int] | None = None) -> list:
    """The season's finished matches as the standings module reads them (only those of
    the entrants ``involving`` when given)."""
    pairs = season.format == "pairs"
    matches = LeagueMatch.objects.filter(season=season, status="finished")
    if season.duplicate:  # a duplicate round counts once it is over (docs/league.md)
        matches = matches.filter(round__status="finished")
    if involving is not None:
        if pairs:
            matches = matches.filter(Q(pair_a_id__in=involving) | Q(pair_b_id__in=involving))
        else:
            matches = matches.filter(
                pk__in=LeagueMatchSeat.objects.filter(player_id__in=involving).values("match_id")
            )
    seats: dict[int, dict[int, int]] = {}
    if not pairs:
        for match_id, number, player_id in LeagueMatchSeat.objects.filter(
            match__in=matches
        ).values_list("match_id", "number", "player_id"):
            seats.setdefault(match_id, {})[number] = player_id
    return [_line(m, pairs, seats) for m in matches.order_by("finished_at", "id")]


def season_byes(season: Season, involving: Collection[int] | None = None) -> Counter:
    field = "pair_id" if season.format == "pairs" else "player_id"
    checkins = CheckIn.objects.filter(round__season=season, bye=True)
    if involving is not None:
        checkins = checkins.filter(**{f"{field}__in": involving})
    return Counter(checkins.values_list(field, flat=True))


def _entrants(season: Season, among: Collection[int] | None = None) -> set | None:
    """Who gets a row (None: everyone in a match line or with a bye). Individual format:
    house bots that only filled seats are substitutes, not entrants."""
    if season.format != "individual":
        return None
    seated = LeagueMatchSeat.objects.filter(match__season=season, filler=False)
    if among is not None:
        seated = seated.filter(player_id__in=among)
    return set(seated.values_list("player_id", flat=True)) | set(season_byes(season, among))


def _standing_row(
    season: Season, position: int, entrant: str, row, duplicate: float | None = None
) -> StandingRow:
    return StandingRow(
        season=season,
        position=position,
        **{entrant: row.entrant},
        **{f: getattr(row, f) for f in TALLIED},
        duplicate=duplicate,
    )


TALLIED = standings_model.TALLIED


def rebuild_standings(season: Season) -> None:
    """Recompute the season's whole standings (round start, ``rebuild_league``)."""
    rows = standings_model.compute_standings(
        match_lines(season), season_byes(season), _entrants(season)
    )
    entrant = "pair_id" if season.format == "pairs" else "player_id"
    scores = (
        season_scores(
            Round.objects.filter(season=season, status="finished").order_by("number"),
            pairs=season.format == "pairs",
        )
        if season.duplicate
        else None
    )
    StandingRow.objects.filter(season=season).delete()
    StandingRow.objects.bulk_create(
        [
            _standing_row(
                season,
                position,
                entrant,
                row,
                None if scores is None else round(float(scores.get(row.entrant, 0)), 4),
            )
            for position, row in enumerate(rows, 1)
        ]
    )


# Positions are unique per season: rows that move park above these while they do.
_MOVING = 100_000_000
_ARRIVING = 2 * _MOVING


def _key(row) -> tuple[int, int, int]:
    return (row.wins, row.hands_won - row.hands_lost, row.points)


# Levels 1-3 as one SQL row value (SQLite and PostgreSQL compare row values in order).
_KEY_SQL = "(wins, hands_won - hands_lost, points)"


def update_standings(match: LeagueMatch) -> None:
    """Add the match that just finished to its season's stored standings.

    Only its entrants' rows change, and the positions that move: the rows between an
    entrant's old and new place shift in one UPDATE, and the groups tied on levels 1-3
    that an entrant leaves or joins are ordered again (head-to-head reads the matches of
    that group only). A handful of statements whatever the number of entrants in the
    season; the rows and positions equal ``rebuild_standings``'s
    (tests/league/test_standings_update.py compares them after every match)."""
    season = match.season
    if season is None:
        raise ValueError(f"match {match.pk} is not a season's")
    pairs = season.format == "pairs"
    entrant = "pair_id" if pairs else "player_id"
    seats = {match.pk: dict(match.seats.values_list("number", "player_id"))} if not pairs else {}
    line = _line(match, pairs, seats)
    involved = [e for e in (*line.side_a, *line.side_b) if e is not None]
    stored = {
        r[0]: r[1:]
        for r in StandingRow.objects.filter(
            season=season, **{f"{entrant}__in": involved}
        ).values_list(entrant, "pk", *TALLIED)
    }
    old_keys = {}
    new_rows: dict[int, standings_model.Row] = {}
    for e, (_pk, *tally) in stored.items():
        before = standings_model.Row(e, *tally)
        old_keys[e] = _key(before)
        new_rows[e] = standings_model.add_line(before, line)
    missing = [e for e in involved if e not in stored]
    if missing:
        # listed for the first time: this entrant's whole season (its matches only)
        listed = _entrants(season, missing)
        newcomers = [e for e in missing if listed is None or e in listed]
        if newcomers:
            for row in standings_model.compute_standings(
                match_lines(season, newcomers), season_byes(season, newcomers), newcomers
            ):
                new_rows[row.entrant] = row  # type: ignore[index]  # an entrant id
    if not new_rows:
        return
    table = connection.ops.quote_name(StandingRow._meta.db_table)
    with connection.cursor() as cursor:
        if stored:
            cursor.executemany(
                f"UPDATE {table} SET {', '.join(f'{f} = %s' for f in TALLIED)} WHERE id = %s",
                [
                    [*(getattr(new_rows[e], f) for f in TALLIED), row[0]]
                    for e, row in stored.items()
                ],
            )
        StandingRow.objects.bulk_create(
            [
                _standing_row(season, _ARRIVING + i, entrant, new_rows[e])
                for i, e in enumerate(sorted(e for e in new_rows if e not in stored))
            ]
        )
        new_keys = {e: _key(r) for e, r in new_rows.items()}
        keys = sorted(set(old_keys.values()) | set(new_keys.values()))
        tied_sql = " OR ".join(f"{_KEY_SQL} = (%s, %s, %s)" for _ in keys)
        tied_params = [v for key in keys for v in key]
        # the tied groups an entrant left or joined, as they are now
        cursor.execute(
            f"SELECT id, {entrant}, wins, hands_won - hands_lost, points FROM {table}"
            f" WHERE season_id = %s AND ({tied_sql})",
            [season.pk, *tied_params],
        )
        groups: dict[tuple[int, int, int], list[int]] = {}
        pk_of = {}
        for pk, e, *key in cursor.fetchall():
            groups.setdefault(tuple(key), []).append(e)
            pk_of[e] = pk
        cursor.execute(
            "SELECT "
            + ", ".join(f"SUM(CASE WHEN {_KEY_SQL} > (%s, %s, %s) THEN 1 ELSE 0 END)" for _ in keys)
            + f" FROM {table} WHERE season_id = %s",
            [*tied_params, season.pk],
        )
        above = [n or 0 for n in cursor.fetchone()]
        h2h = _head_to_head(cursor, season, entrant, tied_sql, tied_params)
        positions = []
        for key, start in zip(keys, above, strict=True):
            group = groups.get(key, [])
            ordered = standings_model.order_tied(group, h2h)
            positions += [(_MOVING + start + 1 + i, pk_of[e]) for i, e in enumerate(ordered)]
        # every other row moves by the entrants that passed it (down) or left it behind (up)
        shift_sql, shift_params = ["0"], list[int]()
        for e, key in new_keys.items():
            shift_sql.append(f"+ CASE WHEN {_KEY_SQL} < (%s, %s, %s) THEN 1 ELSE 0 END")
            shift_params += key
            if e in old_keys:
                shift_sql.append(f"- CASE WHEN {_KEY_SQL} < (%s, %s, %s) THEN 1 ELSE 0 END")
                shift_params += old_keys[e]
        shift = f"({' '.join(shift_sql)})"
        cursor.execute(
            f"UPDATE {table} SET position = position + %s + {shift}"
            f" WHERE season_id = %s AND NOT ({tied_sql}) AND {shift} <> 0",
            [_MOVING, *shift_params, season.pk, *tied_params, *shift_params],
        )
        cursor.executemany(f"UPDATE {table} SET position = %s WHERE id = %s", positions)
        cursor.execute(
            f"UPDATE {table} SET position = position - %s WHERE season_id = %s AND position >= %s",
            [_MOVING, season.pk, _MOVING],
        )


def _head_to_head(cursor, season: Season, entrant: str, tied_sql: str, params: list) -> dict:
    """Level 4 for the rows tied with the keys in ``tied_sql``: per entrant, +1 for each
    match won and -1 for each lost against another entrant with the same levels 1-3 (one
    query; it reads the matches of those entrants only)."""
    rows = connection.ops.quote_name(StandingRow._meta.db_table)
    matches = connection.ops.quote_name(LeagueMatch._meta.db_table)
    same = (
        "r2.season_id = r1.season_id AND r2.id <> r1.id AND (r2.wins, r2.hands_won -"
        " r2.hands_lost, r2.points) = (r1.wins, r1.hands_won - r1.hands_lost, r1.points)"
    )
    mine = tied_sql.replace(
        "(wins, hands_won - hands_lost, points)",
        "(r1.wins, r1.hands_won - r1.hands_lost, r1.points)",
    )
    if entrant == "pair_id":
        sql = (
            f"SELECT r1.pair_id, SUM(CASE WHEN (m.pair_a_id = r1.pair_id) = (m.winner = 'A')"
            f" THEN 1 ELSE -1 END) FROM {rows} r1 JOIN {rows} r2 ON {same}"
            f" JOIN {matches} m ON m.season_id = r1.season_id AND m.status = 'finished' AND"
            f" ((m.pair_a_id = r1.pair_id AND m.pair_b_id = r2.pair_id) OR"
            f" (m.pair_b_id = r1.pair_id AND m.pair_a_id = r2.pair_id))"
            f" WHERE r1.season_id = %s AND ({mine}) GROUP BY r1.pair_id"
        )
    else:
        seats = connection.ops.quote_name(LeagueMatchSeat._meta.db_table)
        sql = (
            f"SELECT r1.player_id, SUM(CASE WHEN m.winner = s1.team THEN 1 ELSE -1 END)"
            f" FROM {rows} r1 JOIN {rows} r2 ON {same}"
            f" JOIN {seats} s1 ON s1.player_id = r1.player_id"
            f" JOIN {seats} s2 ON s2.match_id = s1.match_id AND s2.player_id = r2.player_id"
            f" AND s2.team <> s1.team"
            f" JOIN {matches} m ON m.id = s1.match_id AND m.season_id = r1.season_id"
            f" AND m.status = 'finished'"
            f" WHERE r1.season_id = %s AND ({mine}) GROUP BY r1.player_id"
        )
    cursor.execute(sql, [season.pk, *params])
    return dict(cursor.fetchall())


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


def rated_players(match: LeagueMatch) -> tuple[tuple[int, int], tuple[int, int], set[int]]:
    """Who a rated match rates (docs/league.md, "Ratings when a seat changed hands"):
    the two teams as openskill sees them, and the players whose rating it changes.

    A seat that never changed hands stands for its holder, who is rated. A seat that
    changed hands stands for the holder who finished the most of its hands (the earlier
    on a tie), rated only if that is at least half of the match's hands; otherwise that
    holder's rating only stands in for the team's strength and nobody is rated for the
    seat. Only a match whose seats changed hands reads its log (``holders``)."""
    team_a, team_b = teams_of(match)
    held = holders.match_holdings(match)
    if not held.changed_hands:
        return team_a, team_b, {*team_a, *team_b}
    names = {h.player for h in held.all if h.player}
    ids = dict(User.objects.filter(username__in=names).values_list("username", "pk"))
    standing: dict[int, int] = {}
    rated: set[int] = set()
    for seat in (1, 2, 3, 4):
        main = held.main_holder(seat)
        player = ids.get(main.player or "")
        if player is None or player in standing.values():
            # nobody known, or someone standing for another seat already: the drawn player
            player = dict(match.seats.values_list("number", "player_id"))[seat]
        standing[seat] = player
        if held.rated_holder(seat) is main and player == ids.get(main.player or ""):
            rated.add(player)
    (a1, a2), (b1, b2) = TEAM_SEATS["A"], TEAM_SEATS["B"]
    if len(set(standing.values())) < 4:  # one person at two seats: the drawn four stand
        return team_a, team_b, rated & {*team_a, *team_b}
    return (standing[a1], standing[a2]), (standing[b1], standing[b2]), rated


def rate(match: LeagueMatch, current: dict | None = None) -> dict:
    """Rate one finished match: update the ``Rating`` rows of the players it rates
    (``rated_players``: all four unless a seat changed hands) and add a ``RatingPoint``
    each. ``current`` (rebuild) holds the club's ratings in memory."""
    club_id = match.club_id
    if club_id is None:
        raise ValueError(f"match {match.pk} is casual: only club matches are rated")
    team_a, team_b, rated = rated_players(match)
    players = (*team_a, *team_b)
    if current is None:
        current = {
            r.player_id: rating_model.Rating(mu=r.mu, sigma=r.sigma)
            for r in Rating.objects.filter(club_id=club_id, player_id__in=players)
        }
    new = {
        player: value
        for player, value in rating_model.rate_match(
            current, team_a, team_b, decided(match)
        ).items()
        if player in rated
    }
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
    """The club's rated finished matches in the order they were rated: as they finished,
    except a duplicate round's, rated together when the round's last match finished
    (docs/league.md), in the order they finished."""
    round_end = (
        LeagueMatch.objects.filter(round_id=OuterRef("round_id"))
        .values("round_id")
        .annotate(last=Max("finished_at"))
        .values("last")
    )
    return (
        LeagueMatch.objects.filter(
            club=club, rated=True, status="finished", forfeited_by__isnull=True
        )
        .annotate(
            rated_at=Case(
                When(season__duplicate=True, round__isnull=False, then=Subquery(round_end)),
                default=F("finished_at"),
            )
        )
        .exclude(season__duplicate=True, round__status="started")
        .order_by("rated_at", "finished_at", "id")
    )


def round_rated_in_order(round_id: int):
    """A finished duplicate round's rated matches, as they finished (rated at its end).
    A forfeit is not rated, here as in ``rated_in_order`` (a rebuild's order)."""
    return LeagueMatch.objects.filter(
        round_id=round_id, rated=True, status="finished", forfeited_by__isnull=True
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
