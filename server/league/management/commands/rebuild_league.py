from django.core.management.base import BaseCommand

from server.league.projections import rebuild


class Command(BaseCommand):
    help = (
        "Drop the league's projections (match results, standings, ratings and their "
        "history) and recompute them from the tables' event logs."
    )

    def handle(self, *args, **options):
        counts = rebuild()
        self.stdout.write(
            "rebuilt: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            if counts
            else "rebuilt: no finished matches"
        )
