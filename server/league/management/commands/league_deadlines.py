"""``manage.py league_deadlines``: the old name of ``manage.py tick`` (docs name it)."""

from server.league.management.commands.tick import Command as Tick


class Command(Tick):
    help = "The old name of manage.py tick. " + Tick.help
