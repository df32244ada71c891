"""A finished league match whose seat 3 went to a server-hosted computer player during
hand 2, made through the league's services in the database the environment names:
``python -m tests.web.substitution_seed OUT`` (the browser test of "who played" runs it
against its live server's database). A club of its own (``harbour``), so the seeded
league the other page tests read is left as it was."""

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
from server.league.actions.matches import do_substitute
from server.league.actions.members import do_create_invite, do_join_club
from server.league.actions.rounds import do_check_in, do_create_round, do_start_round
from server.league.actions.seasons import do_create_season
from server.league.models import LeagueMatch
from server.tables import projection
from server.tables import services as table_services
from server.tables.models import Seat, Table
from tests.web.league_seed import PASSWORD, play

SEAT = 3
PLAYERS = ("hana", "ivo", "jun", "kofi")


def play_out(table: Table, rng: random.Random) -> None:
    """Random legal moves to the match's end, each by the seat's holder now."""
    while True:
        state = projection.project(table)
        if state.match.phase == "match_over":
            return
        holders = {
            s.number: s.player for s in Seat.objects.filter(table=table).select_related("player")
        }
        number = next(n for n in (1, 2, 3, 4) if state.match.legal_events(n))
        event = rng.choice(state.match.legal_events(number))
        body = {k: v for k, v in event.items() if k != "seat"}
        body["expected_version"] = state.version
        table_services.do_action(
            user=holders[number], table=table, seat=number, action=body, key=None
        )


def seed_substitution(seed: int = 21) -> dict:
    rng = random.Random(seed)
    organizer = accounts.do_register(username="sol", password=PASSWORD)
    club = do_create_club(
        user=organizer, slug="harbour", name="Harbour Club", description="", visibility="public"
    )
    for name in PLAYERS:
        user = accounts.do_register(username=name, password=PASSWORD)
        do_join_club(user=user, club=club, code=do_create_invite(user=organizer, club=club).code)
    season = do_create_season(
        user=organizer, club=club, name="Winter", format="individual", seed=seed
    )
    round_ = do_create_round(user=organizer, season=season)
    do_check_in(user=organizer, round_=round_, players=list(PLAYERS))
    (match,) = do_start_round(user=organizer, round_=round_)
    drawn = Seat.objects.select_related("player").get(table=match.table, number=SEAT).player
    play(match.table, rng, until_hand=2)
    do_substitute(user=organizer, match=match, seat=SEAT, level="strong", reason="gone home")
    substitute = Seat.objects.select_related("player").get(table=match.table, number=SEAT).player
    play_out(match.table, rng)
    match = LeagueMatch.objects.get(pk=match.pk)
    assert match.status == "finished"
    return {"match": match.pk, "drawn": drawn.username, "substitute": substitute.username}


def main(argv: list[str]) -> int:
    facts = seed_substitution()
    with open(argv[0], "w", encoding="utf-8") as handle:
        json.dump(facts, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
