from django.core.management.base import BaseCommand

from server.league.tick import tick


class Command(BaseCommand):
    help = (
        "One tick of the ticking driver (server/league/tick.py): in every started round whose "
        "deadline has passed, hand each seat away longer than the season's "
        "auto_substitute_after to a strong hosted computer player. The server process "
        "ticks by itself under server.run; run this by hand or from cron only where "
        "presence is shared through Redis (REDIS_URL). Safe to run as often as you like."
    )

    def handle(self, *args, **options):
        lines = tick().lines()
        self.stdout.write("\n".join(lines) if lines else "nothing due")
