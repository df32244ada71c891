"""The match list's quick reads render what the plain ones render: a page's seats read
in one query (``selectors.with_seat_rows``) and a player's accuracy summed from their
own rows give the same answers as the match's own seats and a database aggregate."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db.models import Count, Sum

from server.accounts.models import User
from server.league import selectors
from server.league.models import (
    Club,
    LeagueMatch,
    LeagueMatchSeat,
    MatchAnalysis,
    SeatAccuracy,
)
from server.league.serializers import MatchSerializer
from server.tables.models import Table

pytestmark = pytest.mark.django_db


def _users() -> list[User]:
    return [User.objects.create(username=f"reader{i}", is_bot=i == 3) for i in range(5)]


def _matches(users: list[User], n: int, *, visibility: str = "public"):
    club = Club.objects.create(
        slug=f"reads-{visibility}", name="Reads", visibility=visibility, created_by=users[0]
    )
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    matches = []
    for i in range(n):
        table = Table.objects.create(code=f"R{visibility[0]}{i:05d}", owner=users[0], rated=True)
        m = LeagueMatch.objects.create(
            table=table,
            club=club,
            rated=True,
            started_at=start + dt.timedelta(minutes=i),
            status="finished",
            finished_at=start + dt.timedelta(minutes=i + 20),
            winner="AB"[i % 2],
            score_a=4 if i % 2 == 0 else 2,
            score_b=4 if i % 2 else 1,
            hands=5,
        )
        seated = users[i % 2 : i % 2 + 4]
        # seats written out of order: the answer lists them by number all the same
        for number in (3, 1, 4, 2):
            player = seated[number - 1]
            LeagueMatchSeat.objects.create(
                match=m,
                number=number,
                player=player,
                team="A" if number in (1, 3) else "B",
                is_bot=player.is_bot,
                filler=number == 4 and i == 1,
            )
        matches.append(m)
    return club, matches


def test_a_page_with_seat_rows_renders_as_the_matches_own_seats():
    users = _users()
    club, _ = _matches(users, 3)
    listed = selectors.match_list(users[0], club=club.slug)
    own = MatchSerializer(list(listed), many=True).data
    quick = MatchSerializer(
        selectors.with_seat_rows(list(selectors.match_page(listed))), many=True
    ).data
    assert quick == own
    assert [s["seat"] for s in quick[0]["seats"]] == [1, 2, 3, 4]
    assert any(s["filler"] for m in quick for s in m["seats"])
    assert selectors.with_seat_rows([]) == []


def _aggregated(player, matches) -> dict:
    totals = SeatAccuracy.objects.filter(player=player, match__in=matches.values("pk")).aggregate(
        matches=Count("match", distinct=True),
        decisions=Sum("decisions"),
        best=Sum("best_moves"),
        loss=Sum("total_loss"),
        blunders=Sum("blunders"),
    )
    decisions = totals["decisions"] or 0
    return {
        "matches": totals["matches"] or 0,
        "decisions": decisions,
        "mean_loss": round(totals["loss"] / decisions, 4) if decisions else None,
        "best_share": round(totals["best"] / decisions, 4) if decisions else None,
        "blunders": totals["blunders"] or 0,
    }


def test_accuracy_counts_only_the_matches_the_reader_may_see():
    users = _users()
    _, public = _matches(users, 3)
    # a members club nobody joined: its matches are readable by none of them
    _, members_only = _matches(users, 2, visibility="members")
    player, outsider = users[1], users[4]
    assert selectors.accuracy_of(player, selectors.visible_matches(outsider)) == {
        "matches": 0,
        "decisions": 0,
        "mean_loss": None,
        "best_share": None,
        "blunders": 0,
    }
    for k, m in enumerate(public + members_only):
        analysis = MatchAnalysis.objects.create(match=m, status="done")
        for seat in m.seats.all():
            SeatAccuracy.objects.create(
                analysis=analysis,
                match=m,
                player=seat.player,
                seat=seat.number,
                decisions=10 + k,
                best_moves=k,
                total_loss=0.1 * (k + 1),
                blunders=k % 2,
            )
    for reader in (outsider, player, None):
        visible = selectors.visible_matches(reader)
        assert selectors.accuracy_of(player, visible) == _aggregated(player, visible)
    # the public club's analysed matches only
    assert selectors.accuracy_of(player, selectors.visible_matches(outsider))["matches"] == 3
    assert selectors.accuracy_of(player, selectors.visible_matches(None))["matches"] == 3
    assert SeatAccuracy.objects.filter(player=player).count() == 5
