from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from server.ops.archive import BackupError
from server.ops.restore import do_restore


class Command(BaseCommand):
    help = (
        "Restore a backup into this server's database, which must be empty (stop the "
        "server first). Refuses a backup of another version, with the reason."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--replace",
            action="store_true",
            help="replace a database that is not empty (what `upgrade` does to roll back; "
            "SQLite keeps the replaced file beside it)",
        )

    def handle(self, *args, **options):
        path = options["file"]
        if not path.is_file():
            raise CommandError(f"no backup file {path}")
        try:
            result = do_restore(
                path=path, database=dict(connection.settings_dict), replace=options["replace"]
            )
        except BackupError as err:
            raise CommandError(f"not restored: {err}") from None
        m = result.manifest
        self.stdout.write(
            f"restored {path.name} ({m.created_at}, Dékabès {m.server_version}, "
            f"{m.counts['tables']:,} tables) in {result.seconds:.1f} s"
        )
        if result.set_aside:
            self.stdout.write(f"the replaced database is kept as {result.set_aside}")
        for note in result.notes:
            self.stdout.write(f"note: {note}")
