import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from server.ops.archive import BackupError
from server.ops.upgrade import do_upgrade


class Command(BaseCommand):
    help = (
        "Upgrade with the server stopped: a backup, then (--to REF) the new code, its "
        "migrations and a health check; back to the backup and the previous code when "
        "a step fails. Exit status 1 after a rollback."
    )

    def add_arguments(self, parser):
        parser.add_argument("--to", help="a git tag, branch or commit to check out first")
        parser.add_argument(
            "--no-install", action="store_true", help="skip pip install -r requirements.txt"
        )
        parser.add_argument("--dir", type=Path, help="where the backup goes (DEKABES_BACKUP_DIR)")

    def handle(self, *args, **options):
        try:
            result = do_upgrade(
                to=options["to"],
                install=not options["no_install"],
                backup_dir=options["dir"],
                say=lambda line: self.stdout.write(line),
            )
        except BackupError as err:
            raise CommandError(f"not upgraded: {err}") from None
        if not result.ok:
            sys.exit(1)
