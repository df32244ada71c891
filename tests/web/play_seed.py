"""A club with one league round started at one rated table of four members, for the
browser table's tests (``python -m tests.web.play_seed OUT`` before the live server
starts, like ``league_seed``): ``OUT`` gets the table's code and who sits where."""

from __future__ import annotations

import json
import os
import sys

if __name__ == "__main__":  # run as a script: Django first, then the models
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    django.setup()

from server.accounts import services as accounts
from server.league.actions.clubs import do_create_club
from server.league.actions.members import do_create_invite, do_join_club
from server.league.actions.rounds import do_check_in, do_create_round, do_start_round
from server.league.actions.seasons import do_create_season
from server.tables.models import Seat

PASSWORD = "a long enough password 42"
ORGANIZER = "otto"
PLAYERS = ("pia", "quin", "rosa", "sam")
HOUSE_BOT = "house-play"


def seed_round() -> dict:
    organizer = accounts.do_register(username=ORGANIZER, password=PASSWORD)
    people = [accounts.do_register(username=name, password=PASSWORD) for name in PLAYERS]
    club = do_create_club(
        user=organizer,
        slug="harbour",
        name="Harbour Dominoes",
        description="Friday nights.",
        visibility="members",
    )
    for user in people:
        code = do_create_invite(user=organizer, club=club).code
        do_join_club(user=user, club=club, code=code)
    season = do_create_season(user=organizer, club=club, name="Winter", format="individual")
    round_ = do_create_round(user=organizer, season=season)
    do_check_in(user=organizer, round_=round_, players=list(PLAYERS))
    (match,) = do_start_round(user=organizer, round_=round_)
    seats = {
        s.number: s.player.username
        for s in Seat.objects.filter(table=match.table).select_related("player")
    }
    # The computer player of the casual tables (a house bot: any member may seat it).
    bot = accounts.do_create_bot(name=HOUSE_BOT, owner=None)
    token = accounts.issue_token(bot, "play tests")
    return {"code": match.table.code, "seats": seats, "club": club.slug, "bot_token": token}


def main(argv: list[str]) -> int:
    with open(argv[0], "w", encoding="utf-8") as handle:
        json.dump(seed_round(), handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
