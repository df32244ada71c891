from django.core.management.base import BaseCommand

from server.ladder.rebuild import rebuild


class Command(BaseCommand):
    help = (
        "Recompute the bot ladder's ratings: every version from its start, every rated "
        "pair replayed in the order it was rated (after rebuild_league when the league's "
        "results were rebuilt: a pair's margins are its legs' results)."
    )

    def handle(self, *args, **options):
        counts = rebuild()
        self.stdout.write(f"rebuilt: {counts['versions']} versions, {counts['pairs']} pairs")
