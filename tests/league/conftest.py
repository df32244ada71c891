"""League test helpers: members, bots, clubs, and matches played out in-process."""

from __future__ import annotations

import random

import pytest

from server.league.models import Club
from server.tables import projection, selectors
from server.tables import services as table_services
from server.tables.models import Seat, Table
from tests.server.conftest import PASSWORD, client_for, new_bot, new_member  # noqa: F401


@pytest.fixture(autouse=True)
def fresh_projection_cache():
    # rolled-back tests reuse primary keys: no fold and no table row outlives its test
    projection.forget()
    selectors.forget_full_tables()
    yield
    projection.forget()
    selectors.forget_full_tables()


def new_club(organizer, slug=None, visibility="public") -> tuple[Club, object]:
    api = client_for(organizer)
    slug = slug or f"club-{random.randrange(10**9)}"
    response = api.post(
        "/api/clubs", {"slug": slug, "name": slug.title(), "visibility": visibility}, format="json"
    )
    assert response.status_code == 201, response.content
    return Club.objects.get(slug=slug), api


def add_member(club, organizer_api, user) -> None:
    code = organizer_api.post(f"/api/clubs/{club.slug}/invites", {}, format="json").json()["code"]
    response = client_for(user).post(f"/api/clubs/{club.slug}/join", {"code": code}, format="json")
    assert response.status_code == 201, response.content


def play_out(table: Table, rng: random.Random, stop_after: int | None = None) -> None:
    """Play the table's match to its end (or ``stop_after`` actions) with random legal
    moves, each through the table service as the seat's holder."""
    seats = {s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")}
    done = 0
    while stop_after is None or done < stop_after:
        state = projection.project(table)
        if state.match.phase == "match_over" or state.annulled:
            return
        for number in (1, 2, 3, 4):
            legal = state.match.legal_events(number)
            if legal:
                event = rng.choice(legal)
                body = {k: v for k, v in event.items() if k != "seat"}
                body["expected_version"] = state.version
                table_services.do_action(
                    user=seats[number], table=table, seat=number, action=body, key=None
                )
                done += 1
                break
        else:
            raise AssertionError("nobody can act")
