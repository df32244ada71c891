"""Substitutes, forfeits and round deadlines (issue #22), through the REST API in-process:
a round where one human never moves finishes by substitution, another by forfeit; the
standings and ratings equal ``rebuild_league``; the records replay; the action log
holds every one; the automatic substitute of the season option."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.utils import timezone

from server.league.actions import deadlines
from server.league.models import ClubAction, LeagueMatch, Rating, RatingPoint, StandingRow
from server.league.projections import rebuild
from server.league.tick import tick
from server.notices import presence
from server.tables import projection
from server.tables import services as table_services
from server.tables.models import Event, Seat
from tests.league.conftest import client_for, new_member, play_out
from tests.league.test_league_api import League, error, snapshot
from tests.records import replay_summary

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def play_on(table, rng: random.Random, stop_after: int | None = None) -> None:
    """Random legal moves, each by the seat's holder *now* (seats change hands)."""
    done = 0
    while stop_after is None or done < stop_after:
        state = projection.project(table)
        if state.match.phase == "match_over" or state.stopped:
            return
        holders = {
            s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")
        }
        for number in (1, 2, 3, 4):
            legal = state.match.legal_events(number)
            if legal:
                body = {k: v for k, v in rng.choice(legal).items() if k != "seat"}
                body["expected_version"] = state.version
                table_services.do_action(
                    user=holders[number], table=table, seat=number, action=body, key=None
                )
                done += 1
                break
        else:
            raise AssertionError("nobody can act")


def full_snapshot() -> dict:
    return {
        **snapshot(),
        "forfeits": sorted(
            LeagueMatch.objects.values_list("table_id", "forfeited_by", "winner", "status")
        ),
        "forfeit_columns": sorted(
            StandingRow.objects.values_list("season_id", "position", "forfeits")
        ),
    }


def the_match(league, number=1) -> LeagueMatch:
    return LeagueMatch.objects.filter(season_id=league.season, round__number=number).get()


def test_substitute_by_a_hosted_player_mid_match_the_result_stands_for_the_team(tmp_path):
    league = League(members=4)
    league.start_round()
    match = the_match(league)
    table = match.table
    play_out(table, random.Random(1), stop_after=12)
    before = projection.project(table)
    absent = Seat.objects.get(table=table, number=2).player
    answer = league.org_api.post(
        f"/api/matches/{match.pk}/substitute",
        {"seat": 2, "by": {"level": "strong"}, "reason": "no show"},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    seat = Seat.objects.select_related("player").get(table=table, number=2)
    assert seat.player.is_hosted
    assert seat.kind == "bot" and seat.player.hosted_level == "strong"
    # the same state: one server event more, no new deal
    after = projection.project(table)
    assert after.version == before.version + 1
    assert after.match.seat_view(1) == before.match.seat_view(1)
    handover = Event.objects.filter(table=table, type="seat_handover").get()
    assert handover.payload == {
        "type": "seat_handover",
        "seat": 2,
        "from": absent.username,
        "to": seat.player.username,
        "kind": "bot",
        "reason": "substitute",
        "note": "no show",
    }
    # the drawn player answers not_your_seat now; the table tells everyone what happened
    error(client_for(absent).get(f"/api/tables/{table.code}/seats/2"), 403, "not_your_seat")
    holder = league.members[0] if league.members[0] != absent else league.members[1]
    number = Seat.objects.get(table=table, player=holder).number
    view = client_for(holder).get(f"/api/tables/{table.code}/seats/{number}").json()
    assert view["table"]["handovers"][0]["to"] == seat.player.username
    assert view["table"]["seats"]["2"]["player"] == seat.player.username
    entry = ClubAction.objects.filter(verb="match.substitute").get()
    assert entry.actor == league.organizer and entry.details["player"] == absent.username
    assert entry.details["substitute"] == seat.player.username

    play_on(table, random.Random(2))
    match.refresh_from_db()
    assert match.status == "finished"
    # the drawn four are in the standings; the seat is rated for whoever played at
    # least half of the hands (docs/league.md), here the substitute from hand 1 on
    standing = StandingRow.objects.filter(season_id=league.season)
    assert set(standing.values_list("player_id", flat=True)) == {u.pk for u in league.members}
    held = [
        h
        for h in client_for(holder).get(f"/api/matches/{match.pk}").json()["seat_holders"]
        if h["seat"] == 2
    ]
    assert [h["player"] for h in held] == [absent.username, seat.player.username]
    assert held[1]["from_hand"] == 1 and 2 * held[1]["hands"] >= match.hands
    assert held[1]["rated"] and not held[0]["rated"]
    assert Rating.objects.filter(player=seat.player).exists()
    assert not RatingPoint.objects.filter(match=match, player=absent).exists()
    # the record replays (server events left out) and rebuild gives the same rows
    record = client_for(holder).get(f"/api/matches/{match.pk}/record")
    assert record.status_code == 200
    assert "seat_handover" not in record.content.decode()
    summary = replay_summary(record.content.decode(), tmp_path)
    assert summary
    kept = full_snapshot()
    rebuild()
    assert full_snapshot() == kept


def test_substitute_by_a_member_not_seated_in_the_round_and_the_refusals():
    league = League(members=5)  # four seated, one bye
    league.start_round()
    match = the_match(league)
    seated = set(Seat.objects.filter(table=match.table).values_list("player_id", flat=True))
    bye = next(u for u in league.members if u.pk not in seated)
    other = next(u for u in league.members if u.pk in seated)
    url = f"/api/matches/{match.pk}/substitute"
    error(
        league.org_api.post(url, {"seat": 1, "by": {"username": other.username}}, format="json"),
        409,
        "not_substitutable",
    )
    outsider = new_member("out")
    error(
        league.org_api.post(url, {"seat": 1, "by": {"username": outsider.username}}, format="json"),
        409,
        "not_substitutable",
    )
    error(
        client_for(other).post(url, {"seat": 1, "by": {"level": "strong"}}, format="json"),
        403,
        "organizer_only",
    )
    error(league.org_api.post(url, {"seat": 1, "by": {}}, format="json"), 400, "validation_error")
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()
    assert not ClubAction.objects.filter(verb="match.substitute").exists()
    ok = league.org_api.post(url, {"seat": 1, "by": {"username": bye.username}}, format="json")
    assert ok.status_code == 200, ok.content
    assert Seat.objects.get(table=match.table, number=1).player == bye
    # the new holder plays on; the drawn seat stays the drawn player's in the match rows
    play_on(match.table, random.Random(5))
    match.refresh_from_db()
    assert match.status == "finished"
    assert bye.pk not in set(match.seats.values_list("player_id", flat=True))
    assert not StandingRow.objects.filter(season_id=league.season, player=bye, played__gt=0)
    error(
        league.org_api.post(url, {"seat": 2, "by": {"level": "strong"}}, format="json"),
        409,
        "match_over",
    )


def test_forfeit_after_the_deadline_only(tmp_path):
    league = League(members=4)
    league.start_round()
    match = the_match(league)
    table = match.table
    play_out(table, random.Random(3), stop_after=40)
    url = f"/api/matches/{match.pk}/forfeit"
    body = {"seat": 3, "reason": "never came"}
    error(league.org_api.post(url, body, format="json"), 409, "deadline_not_passed")
    round_url = league.season_url("/rounds/1")
    later = (timezone.now() + dt.timedelta(hours=1)).isoformat()
    answer = league.org_api.patch(round_url, {"deadline": later}, format="json")
    assert answer.status_code == 200 and answer.json()["deadline"], answer.content
    error(league.org_api.post(url, body, format="json"), 409, "deadline_not_passed")
    earlier = (timezone.now() - dt.timedelta(minutes=1)).isoformat()
    assert league.org_api.patch(round_url, {"deadline": earlier}, format="json").status_code == 200
    assert ClubAction.objects.filter(verb="round.deadline").count() == 2
    answer = league.org_api.post(url, body, format="json")
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["status"] == "finished" and data["winner"] == "B" and data["forfeited_by"] == "A"
    entry = ClubAction.objects.filter(verb="match.forfeit").get()
    assert entry.details["team"] == "A" and entry.details["seat"] == 3
    # the table is stopped; nobody plays there any more
    state = projection.project(table)
    assert state.forfeited is not None
    holder = Seat.objects.get(table=table, number=1).player
    answer = client_for(holder).post(
        f"/api/tables/{table.code}/seats/1/actions",
        {"type": "pass", "expected_version": state.version},
        format="json",
    )
    error(answer, 409, "match_forfeited")
    # standings: a forfeit column, no hands or points; not rated; the round is over
    rows = {r.player_id: r for r in StandingRow.objects.filter(season_id=league.season)}
    team_a = set(match.seats.filter(team="A").values_list("player_id", flat=True))
    for player, row in rows.items():
        assert row.played == 1 and row.points == 0 and row.hands_won == 0
        assert row.forfeits == (1 if player in team_a else 0)
        assert row.wins == (0 if player in team_a else 1)
    assert not RatingPoint.objects.filter(match=match).exists()
    assert league.org_api.get(round_url).json()["status"] == "finished"
    standings = league.org_api.get(league.season_url("/standings")).json()
    assert {r["forfeits"] for r in standings["results"]} == {0, 1}
    # the hands played stay in the record, which replays
    record = client_for(holder).get(f"/api/matches/{match.pk}/record").content.decode()
    assert "forfeit" not in record
    replay_summary(record, tmp_path)
    kept = full_snapshot()
    rebuild()
    assert full_snapshot() == kept


def test_a_round_with_one_absentee_finishes_by_substitution_and_another_by_forfeit(tmp_path):
    """Two rounds; in each, one human never moves. Round 1 finishes by substitution,
    round 2 by forfeit; the next round starts; rebuild gives the same projections."""
    league = League(members=4)
    for number, remedy in ((1, "substitute"), (2, "forfeit")):
        league.start_round()
        match = the_match(league, number)
        table = match.table
        # everyone but the absentee's seat plays until the match waits for seat 4
        rng = random.Random(number)
        for _ in range(500):
            state = projection.project(table)
            if state.match.legal_events(4) or state.match.phase == "match_over":
                break
            play_on(table, rng, stop_after=1)
        assert state.match.legal_events(4), "the match never waited for seat 4"
        if remedy == "substitute":
            answer = league.org_api.post(
                f"/api/matches/{match.pk}/substitute",
                {"seat": 4, "by": {"level": "strong"}},
                format="json",
            )
            assert answer.status_code == 200, answer.content
            play_on(table, rng)
        else:
            past = (timezone.now() - dt.timedelta(seconds=1)).isoformat()
            league.org_api.patch(
                league.season_url(f"/rounds/{number}"), {"deadline": past}, format="json"
            )
            answer = league.org_api.post(
                f"/api/matches/{match.pk}/forfeit", {"seat": 4, "reason": "gone"}, format="json"
            )
            assert answer.status_code == 200, answer.content
        match.refresh_from_db()
        assert match.status == "finished"
        reader = Seat.objects.get(table=table, number=1).player
        replay_summary(
            client_for(reader).get(f"/api/matches/{match.pk}/record").content.decode(), tmp_path
        )
    league.start_round()  # round 3 starts: nothing stalls
    kept = full_snapshot()
    rebuild()
    assert full_snapshot() == kept


def test_a_forfeit_in_a_duplicate_round_is_not_rated(tmp_path):
    """A duplicate round rates its matches together at its end: the forfeited one is left
    out there too, as everywhere (docs/league.md), and a rebuild agrees."""
    league = League(members=8)
    answer = league.org_api.post(
        league.url("/seasons"),
        {"name": "Same deals", "format": "individual", "seed": 5, "duplicate": True},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    league.season = answer.json()["id"]
    league.start_round()
    played, forfeited = LeagueMatch.objects.filter(season_id=league.season).order_by("table_number")
    past = (timezone.now() - dt.timedelta(seconds=1)).isoformat()
    league.org_api.patch(league.season_url("/rounds/1"), {"deadline": past}, format="json")
    answer = league.org_api.post(
        f"/api/matches/{forfeited.pk}/forfeit", {"seat": 2, "reason": "gone"}, format="json"
    )
    assert answer.status_code == 200, answer.content
    play_out(played.table, random.Random(4))  # the round ends: its matches are rated now
    assert league.org_api.get(league.season_url("/rounds/1")).json()["status"] == "finished"
    assert RatingPoint.objects.filter(match=played).count() == 4
    assert not RatingPoint.objects.filter(match=forfeited).exists()
    absent = forfeited.seats.values_list("player_id", flat=True)
    assert not Rating.objects.filter(player_id__in=absent).exists()
    kept = full_snapshot()
    rebuild()
    assert full_snapshot() == kept


@pytest.fixture
def served_here(monkeypatch):
    """This process has served seats (it took their leases), as the server process that
    ticks has: presence is seen here. Its own store, whatever other tests left."""
    leases = presence.MemoryLeases()
    leases.taken = True
    monkeypatch.setattr(presence, "_store", leases)
    return leases


def auto_league(minutes: int) -> League:
    """Four members, a season with ``auto_substitute_after`` = ``minutes``, its first
    round started."""
    league = League(members=4)
    answer = league.org_api.post(
        league.url("/seasons"),
        {"name": "Auto", "format": "individual", "seed": 3, "auto_substitute_after": minutes},
        format="json",
    )
    assert answer.status_code == 201 and answer.json()["auto_substitute_after"] == minutes
    league.season = answer.json()["id"]
    league.start_round()
    return league


def test_the_season_option_substitutes_a_seat_away_after_the_deadline(monkeypatch, served_here):
    """A deadline passes: the tick substitutes (a read does not, however often)."""
    league = auto_league(minutes=5)
    match = the_match(league)
    now = timezone.now()
    away = {1: now - dt.timedelta(minutes=10), 3: now - dt.timedelta(minutes=2)}
    monkeypatch.setattr(
        deadlines,
        "away_since",
        lambda table, seat: away.get(seat) if table == match.table else None,
    )
    round_url = league.season_url("/rounds/1")
    assert tick().substituted == []  # no deadline: nothing is due
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()
    past = (now - dt.timedelta(minutes=1)).isoformat()
    league.org_api.patch(round_url, {"deadline": past}, format="json")
    done = tick()
    assert done.substituted == [(match.pk, 1)]
    handover = Event.objects.filter(table=match.table, type="seat_handover").get()
    assert handover.payload["seat"] == 1 and handover.payload["reason"] == "auto_substitute"
    assert Seat.objects.get(table=match.table, number=1).player.hosted_level == "strong"
    entry = ClubAction.objects.filter(verb="match.substitute").get()
    assert entry.actor is None and entry.details["automatic"] is True
    assert tick().substituted == []  # once only: the seat is a bot's now
    assert Event.objects.filter(table=match.table, type="seat_handover").count() == 1


def test_a_read_after_the_deadline_changes_nothing(monkeypatch, served_here):
    """The round's API answer and its web page, read after the deadline by the organizer
    and a member, write nothing: no handover, no log entry, the table's version as it
    was. The tick that follows does the substitution."""
    from django.test import Client

    league = auto_league(minutes=1)
    match = the_match(league)
    monkeypatch.setattr(
        deadlines,
        "away_since",
        lambda table, seat: timezone.now() - dt.timedelta(minutes=30) if seat == 4 else None,
    )
    round_url = league.season_url("/rounds/1")
    past = (timezone.now() - dt.timedelta(minutes=5)).isoformat()
    league.org_api.patch(round_url, {"deadline": past}, format="json")
    version = projection.project(match.table).version
    entries = ClubAction.objects.count()
    page = Client()
    page.force_login(league.organizer)
    for _ in range(2):
        assert league.org_api.get(round_url).status_code == 200
        assert client_for(league.members[0]).get(round_url).status_code == 200
        assert (
            page.get(f"/clubs/{league.club.slug}/seasons/{league.season}/rounds/1").status_code
            == 200
        )
    projection.forget()
    assert projection.project(match.table).version == version
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()
    assert ClubAction.objects.count() == entries
    assert tick().substituted == [(match.pk, 4)]


def test_the_management_command_runs_every_due_round(monkeypatch, served_here):
    from django.core.management import call_command

    league = auto_league(minutes=1)
    match = the_match(league)
    away = {2: timezone.now() - dt.timedelta(minutes=3)}
    monkeypatch.setattr(
        deadlines,
        "away_since",
        lambda table, seat: away.get(seat),
    )
    past = (timezone.now() - dt.timedelta(minutes=1)).isoformat()
    league.org_api.patch(league.season_url("/rounds/1"), {"deadline": past}, format="json")
    call_command("tick")
    assert Seat.objects.get(table=match.table, number=2).player.is_hosted
    away[3] = away[2]  # the old name, which the docs named, runs the same tick
    call_command("league_deadlines")
    assert Seat.objects.get(table=match.table, number=3).player.is_hosted


def test_the_season_option_reads_real_presence(served_here):
    """No stand-in for presence: three seats have been seen lately, one never since the
    table was made (ten minutes ago): that one gets the automatic substitute."""
    from server.tables.models import Table

    league = auto_league(minutes=5)
    match = the_match(league)
    Table.objects.filter(pk=match.table_id).update(
        created_at=timezone.now() - dt.timedelta(minutes=10)
    )
    projection.forget()
    presence.touch(table=match.table, seats=[1, 2, 4])
    past = (timezone.now() - dt.timedelta(minutes=1)).isoformat()
    league.org_api.patch(league.season_url("/rounds/1"), {"deadline": past}, format="json")
    tick()
    handovers = Event.objects.filter(table=match.table, type="seat_handover")
    assert [h.payload["seat"] for h in handovers] == [3]


def test_a_tick_where_presence_is_not_seen_substitutes_no_one(monkeypatch):
    """A command started beside a server without Redis sees none of its leases: every
    seat would look away there, so it hands no seat to anyone (the server's own tick
    does, where presence is seen)."""
    league = auto_league(minutes=1)
    match = the_match(league)
    elsewhere = presence.MemoryLeases()  # another process's: it never took a lease
    monkeypatch.setattr(presence, "_store", elsewhere)
    assert presence.away_since(table=match.table, seat=1) is not None  # all look away
    past = (timezone.now() - dt.timedelta(minutes=30)).isoformat()
    league.org_api.patch(league.season_url("/rounds/1"), {"deadline": past}, format="json")
    from server.tables.models import Table

    Table.objects.filter(pk=match.table_id).update(
        created_at=timezone.now() - dt.timedelta(minutes=60)
    )
    assert tick().substituted == []
    assert not Event.objects.filter(table=match.table, type="seat_handover").exists()
