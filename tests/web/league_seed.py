"""A seeded club league for the web page tests, made through the league's services.

``seed_league()`` (inside a test's database) or ``python -m tests.web.league_seed OUT``
(against the database the environment names, before the live server starts) creates:

- ``olga`` organizer of the public club ``riverside`` and of the members-only ``cellar``;
- seven human members and one house bot (``house-1``, flagged as a bot) in ``riverside``;
- a season "Autumn" (individual) with two rounds played to the end and a third started,
  its matches still in their second hand (live: score only);
- ``ana`` member of ``cellar`` too; ``zed`` in no club.
"""

from __future__ import annotations

import json
import os
import random
import sys

if __name__ == "__main__":  # run as a script: Django first, then the models
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    django.setup()

from server.accounts import services as accounts
from server.league.actions.clubs import do_create_club
from server.league.actions.members import do_create_invite, do_enter_bot, do_join_club
from server.league.actions.rounds import do_check_in, do_create_round, do_start_round
from server.league.actions.seasons import do_create_season
from server.league.models import LeagueMatch, Round, Season
from server.tables import projection
from server.tables import services as table_services
from server.tables.models import Seat, Table

PASSWORD = "a long enough password 42"
MEMBERS = ("ana", "ben", "carl", "dina", "eve", "fred", "gina")
ORGANIZER = "olga"
HOUSE_BOT = "house-1"


def play(table: Table, rng: random.Random, until_hand: int | None = None) -> None:
    """Random legal moves through the table service, each by the seat's holder, to the
    end of the match (or until hand ``until_hand`` has its first tile down)."""
    seats = {s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")}
    while True:
        state = projection.project(table)
        match = state.match
        if match.phase == "match_over":
            return
        if (
            until_hand is not None
            and match.hand_no == until_hand
            and match.phase == "play"
            and match.seat_view(1)["line"]
        ):
            return
        number = next(n for n in (1, 2, 3, 4) if match.legal_events(n))
        event = rng.choice(match.legal_events(number))
        body = {k: v for k, v in event.items() if k != "seat"}
        body["expected_version"] = state.version
        table_services.do_action(
            user=seats[number], table=table, seat=number, action=body, key=None
        )


def play_round(
    organizer, season: Season, players: list[str], rng: random.Random, until_hand: int | None = None
) -> Round:
    round_ = do_create_round(user=organizer, season=season)
    do_check_in(user=organizer, round_=round_, players=players)
    for match in do_start_round(user=organizer, round_=round_):
        play(match.table, rng, until_hand)
    return Round.objects.get(pk=round_.pk)


def seed_league(seed: int = 11, members: tuple[str, ...] = MEMBERS, rounds: int = 2) -> dict:
    """``members`` plus the house bot make the field (a multiple of four)."""
    rng = random.Random(seed)
    organizer = accounts.do_register(username=ORGANIZER, password=PASSWORD)
    people = {name: accounts.do_register(username=name, password=PASSWORD) for name in members}
    accounts.do_register(username="zed", password=PASSWORD)
    accounts.do_create_bot(name=HOUSE_BOT, owner=None)
    club = do_create_club(
        user=organizer,
        slug="riverside",
        name="Riverside Dominoes",
        description="Thursday nights at the boathouse.",
        visibility="public",
    )
    cellar = do_create_club(
        user=organizer,
        slug="cellar",
        name="The Cellar",
        description="Members only.",
        visibility="members",
    )
    for user in people.values():
        code = do_create_invite(user=organizer, club=club).code
        do_join_club(user=user, club=club, code=code)
    code = do_create_invite(user=organizer, club=cellar).code
    do_join_club(user=people["ana"], club=cellar, code=code)
    do_enter_bot(user=organizer, club=club, bot_name=HOUSE_BOT)
    season = do_create_season(
        user=organizer, club=club, name="Autumn", format="individual", seed=seed
    )
    field = list(members) + [HOUSE_BOT]
    for _ in range(rounds):
        play_round(organizer, season, field, rng)
    live = play_round(organizer, season, field, rng, until_hand=2)
    finished = list(
        LeagueMatch.objects.filter(season=season, status="finished")
        .order_by("id")
        .values_list("id", flat=True)
    )
    playing = list(
        LeagueMatch.objects.filter(season=season, status="playing")
        .order_by("id")
        .values_list("id", flat=True)
    )
    return {
        "club": club.slug,
        "members_club": cellar.slug,
        "season": season.pk,
        "organizer": ORGANIZER,
        "members": list(members),
        "house_bot": HOUSE_BOT,
        "stranger": "zed",
        "finished": finished,
        "playing": playing,
        "live_round": live.number,
    }


def main(argv: list[str]) -> int:
    facts = seed_league()
    with open(argv[0], "w", encoding="utf-8") as handle:
        json.dump(facts, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
