from django.core.management.base import BaseCommand

from server.accounts.services import new_invite


class Command(BaseCommand):
    help = (
        "Print one-time registration codes, for a server started with "
        'DEKABES_REGISTRATION=invite (a newcomer sends one as "invite" when registering).'
    )

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, default=1)

    def handle(self, *args, count=1, **options):
        for _ in range(max(1, count)):
            self.stdout.write(new_invite())
