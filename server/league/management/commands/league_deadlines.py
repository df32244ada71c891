from django.core.management.base import BaseCommand

from server.league.actions.deadlines import apply_due_substitutions


class Command(BaseCommand):
    help = (
        "Automatic substitutes (the season option auto_substitute_after): in every started "
        "round whose deadline has passed, hand each seat away longer than the season's "
        "minutes to a strong hosted computer player. Safe to run as often as you like."
    )

    def handle(self, *args, **options):
        done = apply_due_substitutions()
        self.stdout.write(
            "; ".join(f"match {m} seat {s}" for m, s in done) if done else "no seat to substitute"
        )
