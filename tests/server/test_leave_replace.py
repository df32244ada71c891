"""Leave and replace at casual tables (issue #22): a player leaves a seat (open for
someone to join, or the owner hands it to a computer player); the owner replaces a seat
away 5 minutes. Each is a ``seat_handover`` server event: the record still replays."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.utils import timezone

from server.tables import projection
from server.tables import services as table_services
from server.tables.models import Event, Seat, Table
from tests.records import replay_summary
from tests.server.conftest import client_for, new_bot, new_member

pytestmark = [pytest.mark.backend, pytest.mark.django_db(transaction=True)]


def casual_table(owner, guests):
    """Seats 1 (owner), 2, 3 (guests) human; seat 4 the owner's bot."""
    bot = new_bot(owner)
    api = client_for(owner)
    answer = api.post(
        "/api/tables",
        {
            "seats": {"1": "human", "2": "human", "3": "human", "4": "bot"},
            "join": [1],
            "bots": {"4": bot.username},
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    code = answer.json()["code"]
    for number, guest in zip((2, 3), guests, strict=True):
        joined = client_for(guest).post(f"/api/tables/{code}/join", {"seat": number}, format="json")
        assert joined.status_code == 200, joined.content
    return Table.objects.get(code=code), bot


def error(answer, status, code):
    assert answer.status_code == status, answer.content
    assert answer.json()["code"] == code, answer.content


def play(table, rng, steps):
    for _ in range(steps):
        state = projection.project(table)
        holders = {
            s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")
        }
        for number in (1, 2, 3, 4):
            legal = state.match.legal_events(number)
            if legal and holders[number] is not None:
                body = {k: v for k, v in rng.choice(legal).items() if k != "seat"}
                body["expected_version"] = state.version
                table_services.do_action(
                    user=holders[number], table=table, seat=number, action=body, key=None
                )
                break
        else:
            return


def test_a_player_leaves_someone_joins_and_the_match_goes_on(tmp_path):
    owner, ann, bob, cid = (
        new_member("own"),
        new_member("ann"),
        new_member("bob"),
        new_member("cid"),
    )
    table, _ = casual_table(owner, [ann, bob])
    play(table, random.Random(1), 10)
    before = projection.project(table)
    error(client_for(bob).post(f"/api/tables/{table.code}/seats/2/leave"), 403, "not_your_seat")
    answer = client_for(ann).post(f"/api/tables/{table.code}/seats/2/leave")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["seats"]["2"]["player"] is None and body["handovers"][-1]["reason"] == "leave"
    assert projection.project(table).match.seat_view(1) == before.match.seat_view(1)
    error(client_for(ann).get(f"/api/tables/{table.code}/seats/2"), 403, "not_your_seat")
    joined = client_for(cid).post(f"/api/tables/{table.code}/join", {"seat": 2}, format="json")
    assert joined.status_code == 200, joined.content
    view = client_for(cid).get(f"/api/tables/{table.code}/seats/2")
    assert view.status_code == 200 and view.json()["view"]["seat"] == 2
    play(table, random.Random(2), 10_000)
    assert projection.project(table).match.phase == "match_over"
    record = client_for(owner).get(f"/api/tables/{table.code}/record").content.decode()
    assert "seat_handover" not in record
    replay_summary(record, tmp_path)


def test_the_owner_replaces_a_seat_only_once_it_has_been_away(monkeypatch):
    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, bot = casual_table(owner, [ann, bob])
    spare = new_bot(owner)
    url = f"/api/tables/{table.code}/seats/3/replace"
    away: dict[int, dt.datetime] = {}
    monkeypatch.setattr(table_services, "away_since", lambda t, seat: away.get(seat))
    error(
        client_for(ann).post(url, {"bot": spare.username}, format="json"), 403, "permission_denied"
    )
    error(client_for(owner).post(url, {"bot": spare.username}, format="json"), 409, "seat_not_away")
    away[3] = timezone.now() - dt.timedelta(minutes=2)
    error(client_for(owner).post(url, {"bot": spare.username}, format="json"), 409, "seat_not_away")
    assert not Event.objects.filter(table=table, type="seat_handover").exists()
    away[3] = timezone.now() - dt.timedelta(minutes=6)
    answer = client_for(owner).post(url, {"bot": spare.username}, format="json")
    assert answer.status_code == 200, answer.content
    seat = Seat.objects.get(table=table, number=3)
    assert seat.player == spare and seat.kind == "bot"
    # a bot's seat and an open seat are the owner's to give at once
    answer = client_for(owner).post(url, {"bot": None}, format="json")
    assert answer.status_code == 200 and answer.json()["seats"]["3"]["player"] is None
    assert Seat.objects.get(table=table, number=3).kind == "human"
    assert [e.payload["reason"] for e in Event.objects.filter(type="seat_handover")] == [
        "computer",
        "replace",
    ]


def test_leave_and_replace_are_for_casual_tables_only():
    from tests.server.conftest import Players

    players = Players(kinds=("human", "human", "human", "human"), rated=True)
    table = Table.objects.get(code=players.code)
    holder = Seat.objects.get(table=table, number=1).player
    error(
        client_for(holder).post(f"/api/tables/{table.code}/seats/1/leave"),
        409,
        "not_allowed_in_rated",
    )


def seat_two_replaced_after_it_was_kept(monkeypatch):
    """A full casual table whose seats this process keeps (``selectors.table_and_seats``),
    then ann's seat 2 handed by the owner to a new bot of theirs. (table, the seats kept
    before, ann, the bot)."""
    from server.tables import selectors

    owner, ann, bob = new_member("own"), new_member("ann"), new_member("bob")
    table, _ = casual_table(owner, [ann, bob])
    kept = selectors.table_and_seats(table.code)
    assert kept is not None and kept[1][1].player_id == ann.pk
    spare = new_bot(owner)
    monkeypatch.setattr(
        table_services, "away_since", lambda t, seat: timezone.now() - dt.timedelta(hours=1)
    )
    answer = client_for(owner).post(
        f"/api/tables/{table.code}/seats/2/replace", {"bot": spare.username}, format="json"
    )
    assert answer.status_code == 200, answer.content
    return table, kept, ann, spare


def test_a_process_that_kept_the_seats_reads_them_again_after_a_handover(monkeypatch):
    """Another process keeps a full table's seats (``selectors.table_and_seats``): after a
    handover written elsewhere, the old holder is refused and the new one served."""
    from server.tables import selectors

    table, kept, ann, spare = seat_two_replaced_after_it_was_kept(monkeypatch)
    with selectors._full_tables_lock:  # as if the handover happened in another process
        selectors._full_tables[table.code] = kept
        selectors._seat_epochs.pop(table.code, None)
    view = client_for(spare).get(f"/api/tables/{table.code}/seats/2")
    assert view.status_code == 200, view.content
    with selectors._full_tables_lock:
        selectors._full_tables[table.code] = kept
        selectors._seat_epochs.pop(table.code, None)
    error(client_for(ann).get(f"/api/tables/{table.code}/seats/2"), 403, "not_your_seat")
    with selectors._full_tables_lock:
        selectors._full_tables[table.code] = kept
        selectors._seat_epochs.pop(table.code, None)
    version = projection.project(table).version
    answer = client_for(ann).post(
        f"/api/tables/{table.code}/seats/2/actions",
        {"type": "pass", "expected_version": version},
        format="json",
    )
    error(answer, 403, "not_your_seat")


def test_a_stale_refusal_never_shows_the_seat_to_its_former_holder(monkeypatch):
    """A stale action's refusal carries the seat's view. Refused after a handover landed
    under it (a lapsed pause lifted, another writer first: ``services._stale`` with the
    seats read before), the former holder is told the seat is not theirs, not shown its
    hand; the new holder gets the view."""
    from server.errors import NotYourSeat

    table, kept, ann, spare = seat_two_replaced_after_it_was_kept(monkeypatch)
    state = projection.project(table)
    with pytest.raises(NotYourSeat):
        table_services._stale(table, 2, state, ann, kept[1])
    refusal = table_services._stale(table, 2, state, spare, kept[1])
    assert refusal.version == state.version and refusal.view["seat"] == 2
