"""A season's rounds: opening one, who is present (check-in), the draw that starts it
(its rated tables, every seat assigned) and its deadline."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from server.accounts.models import User
from server.errors import (
    DeadlineInPast,
    NotEnoughHouseBots,
    NotEnoughPlayers,
    NotFound,
    OneSeatPerPlayer,
    RoundHasMatches,
    RoundInProgress,
    RoundOpen,
    RoundStarted,
    TooManyRounds,
    ValidationError,
    WrongFormat,
)
from server.league import projections
from server.league.action_log import record_action
from server.league.actions import results
from server.league.actions.members import check_members
from server.league.actions.roles import check_organizer, lock_club
from server.league.actions.seasons import check_season_open
from server.league.actions.tell import tell_after_commit
from server.league.match_rows import seat_players
from server.league.models import CheckIn, LeagueMatch, Pair, Round, Season
from server.league.pairing import draw_individual, draw_pairs
from server.tables import seeds
from server.tables import services as table_services
from server.tables.locking import writing
from server.tables.services import controller_of


def do_create_round(*, user: User, season: Season) -> Round:
    check_organizer(season.club, user)
    check_season_open(season)
    with writing(), transaction.atomic():
        lock_club(season.club_id)  # rounds opened at once are numbered in turn
        still_open = season.rounds.filter(status="open").order_by("number").first()
        if still_open is not None:  # a second click, or a round forgotten: one at a time
            raise RoundOpen(number=still_open.number)
        number = (
            season.rounds.order_by("-number").values_list("number", flat=True).first() or 0
        ) + 1
        if number > settings.DEKABES_MAX_ROUNDS:
            raise TooManyRounds(limit=settings.DEKABES_MAX_ROUNDS)
        round_ = Round.objects.create(season=season, number=number)
        record_action(
            club=season.club, actor=user, verb="round.open", season=season.pk, round=number
        )
        return round_


def do_delete_round(*, user: User, round_: Round) -> None:
    """Delete a round opened by mistake: open, so without a table (its check-in goes
    with it). Its number is free again for the next round opened."""
    season = round_.season
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        lock_club(season.club_id)  # the club row, then the round row (as do_start_round)
        round_ = Round.objects.select_for_update().get(pk=round_.pk)
        if round_.status != "open" or LeagueMatch.objects.filter(round=round_).exists():
            raise RoundHasMatches(number=round_.number)
        delete_open_round(round_)
        record_action(
            club=season.club, actor=user, verb="round.delete", season=season.pk, round=round_.number
        )


def delete_open_round(round_: Round) -> None:
    """Remove an open round and its check-in (inside the caller's transaction)."""
    CheckIn.objects.filter(round=round_).delete()
    Round.objects.filter(pk=round_.pk).delete()


def check_round_open(round_: Round) -> None:
    if round_.status != "open":
        raise RoundStarted(number=round_.number)


def do_check_in(
    *,
    user: User,
    round_: Round,
    players: list[str] | None = None,
    pairs: list[int] | None = None,
) -> list[CheckIn]:
    """Set who is present for an open round (the whole list, replacing any earlier one)."""
    season = round_.season
    check_organizer(season.club, user)
    check_season_open(season)
    check_round_open(round_)
    present: dict[str, list] = {}
    if season.format == "individual":
        if pairs:
            raise WrongFormat("an individual season checks in players")
        people = check_members(season.club, list(dict.fromkeys(players or [])))
        controllers = [controller_of(p) for p in people]
        if len(set(controllers)) != len(controllers):
            raise OneSeatPerPlayer("a member and their own bot cannot both play a round")
        rows = [CheckIn(round=round_, player=p) for p in people]
        present["players"] = [p.username for p in people]
    else:
        if players:
            raise WrongFormat("a pairs season checks in pairs")
        ids = list(dict.fromkeys(pairs or []))
        found = {p.pk: p for p in Pair.objects.filter(season=season, pk__in=ids)}
        missing = [str(i) for i in ids if i not in found]
        if missing:
            raise NotFound(f"no pairs {', '.join(missing)} in this season")
        rows = [CheckIn(round=round_, pair=found[i]) for i in ids]
        present["pairs"] = ids
    with writing(), transaction.atomic():
        # The club row, then the round row, as the round's start takes them: a check-in
        # is either before the start (and drawn) or refused (round_started).
        lock_club(season.club_id)
        check_round_open(Round.objects.select_for_update().get(pk=round_.pk))
        CheckIn.objects.filter(round=round_).delete()
        checked_in = CheckIn.objects.bulk_create(rows)
        record_action(
            club=season.club,
            actor=user,
            verb="round.checkin",
            season=season.pk,
            round=round_.number,
            **present,
        )
        return checked_in


def check_may_start(round_: Round) -> None:
    check_season_open(round_.season)
    check_round_open(round_)
    earlier = Round.objects.filter(season=round_.season, number__lt=round_.number)
    if earlier.exclude(status="finished").exists():
        raise RoundInProgress()


def do_start_round(*, user: User, round_: Round) -> list[LeagueMatch]:
    """Draw the round and create its rated tables, every seat assigned."""
    season = round_.season
    check_organizer(season.club, user)
    with writing(), transaction.atomic():
        lock_club(season.club_id)  # the club row, then the round row (as do_check_in)
        round_ = Round.objects.select_for_update().get(pk=round_.pk)
        check_may_start(round_)
        if season.format == "individual":
            seatings, byes = _draw_individual(round_)
        else:
            seatings, byes = _draw_pairs(round_)
        if not seatings:
            raise NotEnoughPlayers()
        # Duplicate rounds: one deal seed for every table of the round (docs/league.md).
        deal_seed = seeds.new_seed() if season.duplicate else ""
        matches = [
            _open_match(user, round_, number, seats, pairs, fillers, deal_seed)
            for number, (seats, pairs, fillers) in enumerate(seatings, start=1)
        ]
        if season.format == "individual":
            CheckIn.objects.filter(round=round_, player_id__in=byes).update(bye=True)
        else:
            CheckIn.objects.filter(round=round_, pair_id__in=byes).update(bye=True)
        round_.status, round_.started_at = "started", timezone.now()
        round_.save(update_fields=["status", "started_at"])
        results.count_byes(season)
        record_action(
            club=season.club,
            actor=user,
            verb="round.start",
            season=season.pk,
            round=round_.number,
            tables=[m.table.code for m in matches],
            byes=_bye_names(season, byes),
        )
        tell_after_commit((s.player_id for m in matches for s in m.seats.all()), season.club_id)
    return matches


def _bye_names(season: Season, byes: list[int]) -> list[str]:
    """Who sits out, by name: usernames (individual) or pair names (pairs)."""
    if season.format == "individual":
        return list(User.objects.filter(pk__in=byes).values_list("username", flat=True))
    return list(Pair.objects.filter(pk__in=byes).values_list("name", flat=True))


def _draw_individual(round_: Round):
    season = round_.season
    present = list(
        CheckIn.objects.filter(round=round_, player__isnull=False)
        .order_by("player_id")
        .values_list("player_id", flat=True)
    )
    checked_in = set(present)
    history = []  # earlier tables of the season, house bots filling seats as None
    for match in LeagueMatch.objects.filter(season=season).prefetch_related("seats").order_by("id"):
        seats = {s.number: None if s.filler else s.player_id for s in match.seats.all()}
        history.append(tuple(seats[n] for n in (1, 2, 3, 4)))
    draw = draw_individual(
        present,
        history,
        seed=_round_seed(round_),
        fill_with_bots=season.fill_with_bots,
        bye_counts=projections.season_byes(season),
    )
    fillers = iter(_house_bots(season, checked_in, sum(t.count(None) for t in draw.tables)))
    players = User.objects.in_bulk(checked_in)
    seatings = [
        (
            {
                n: players[pid] if pid is not None else next(fillers)
                for n, pid in zip((1, 2, 3, 4), table, strict=True)
            },
            (None, None),
            {n for n, pid in zip((1, 2, 3, 4), table, strict=True) if pid is None},
        )
        for table in draw.tables
    ]
    return seatings, list(draw.byes)


def _house_bots(season: Season, present: set[int], needed: int) -> list[User]:
    if not needed:
        return []
    bots = list(
        User.objects.filter(
            memberships__club=season.club,
            memberships__active=True,
            is_bot=True,
            bot_owner__isnull=True,
        )
        .exclude(pk__in=present)
        .order_by("username")[:needed]
    )
    if len(bots) < needed:
        raise NotEnoughHouseBots(needed=needed, free=len(bots))
    return bots


def _draw_pairs(round_: Round):
    season = round_.season
    present = list(
        CheckIn.objects.filter(round=round_, pair__isnull=False)
        .order_by("pair_id")
        .values_list("pair_id", flat=True)
    )
    ranked = [
        pid
        for pid in season.standings.filter(pair__isnull=False)
        .order_by("position")
        .values_list("pair_id", flat=True)
        if pid in present
    ]
    played = [
        frozenset((a, b))
        for a, b in LeagueMatch.objects.filter(season=season).values_list("pair_a_id", "pair_b_id")
    ]
    # Pairs not ranked yet are drawn in a seeded order by the pairing module.
    draw = draw_pairs(
        present,
        ranked,
        played,
        seed=_round_seed(round_),
        bye_counts=projections.season_byes(season),
    )
    pairs = Pair.objects.select_related("player_1", "player_2").in_bulk(present)
    seatings: list[tuple[dict[int, User], tuple[Pair, Pair], set[int]]] = []
    for x, y in draw.tables:
        px, py = pairs[x], pairs[y]
        seatings.append(
            ({1: px.player_1, 2: py.player_1, 3: px.player_2, 4: py.player_2}, (px, py), set())
        )
    return seatings, list(draw.byes)


def _round_seed(round_: Round) -> int:
    return round_.season.seed * 1000 + round_.number


def _open_match(
    user: User,
    round_: Round,
    number: int,
    seats: dict[int, User],
    pairs,
    fillers: set[int],
    deal_seed: str = "",
) -> LeagueMatch:
    table = table_services.do_create_seated_table(
        owner=user, players=seats, rated=True, deal_seed=deal_seed
    )
    match = LeagueMatch.objects.create(
        table=table,
        club=round_.season.club,
        season=round_.season,
        round=round_,
        table_number=number,
        pair_a=pairs[0],
        pair_b=pairs[1],
        rated=True,
        started_at=table.created_at,
    )
    seat_players(match, seats, fillers)
    return match


# -- deadline --------------------------------------------------------------------------------
def do_set_deadline(
    *, user: User, round_: Round, deadline: dt.datetime | None, refuse_past: bool = False
) -> Round:
    """An organizer sets (or, with None, removes) a round's deadline. ``refuse_past``: a
    deadline already gone is refused (``DeadlineInPast``: the web's form, where a time is
    typed); the API takes one, which ends the wait at once (docs/league.md)."""
    check_organizer(round_.season.club, user)
    if round_.status == "finished":
        raise ValidationError("the round is finished: it needs no deadline")
    if refuse_past and deadline is not None and deadline <= timezone.now():
        raise DeadlineInPast()
    with writing(), transaction.atomic():
        round_.deadline = deadline
        round_.save(update_fields=["deadline"])
        record_action(
            club=round_.season.club,
            actor=user,
            verb="round.deadline",
            season=round_.season_id,
            round=round_.number,
            deadline=deadline.isoformat() if deadline is not None else None,
        )
    return round_


def deadline_passed(round_: Round | None, now: dt.datetime | None = None) -> bool:
    return (
        round_ is not None
        and round_.deadline is not None
        and round_.deadline <= (now or timezone.now())
    )
