import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from server.ops.archive import BackupError
from server.ops.backup import backup_due, do_backup


class Command(BaseCommand):
    help = (
        "Back up the database to a dated file (DEKABES_BACKUP_DIR, var/backups by default) "
        "that records this server's version and migrations; play goes on meanwhile."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dir", type=Path, help="the folder (default: DEKABES_BACKUP_DIR)")
        parser.add_argument(
            "--label", default="", help="kept out of rotation, in the name (e.g. before-move)"
        )
        parser.add_argument(
            "--keep-daily",
            type=int,
            default=settings.DEKABES_BACKUP_KEEP_DAILY,
            help="scheduled backups: the newest of this many days are kept",
        )
        parser.add_argument(
            "--keep-weekly",
            type=int,
            default=settings.DEKABES_BACKUP_KEEP_WEEKLY,
            help="scheduled backups: the newest of this many weeks are kept",
        )
        parser.add_argument(
            "--scheduled",
            action="store_true",
            help="server.run's schedule: only when DEKABES_BACKUP_HOURS have passed since "
            "the last backup, then rotate",
        )
        parser.add_argument("--no-nice", action="store_true", help="keep the normal CPU priority")

    def handle(self, *args, **options):
        folder = options["dir"] or Path(settings.DEKABES_BACKUP_DIR)
        if options["scheduled"]:
            hours = settings.DEKABES_BACKUP_HOURS
            if hours <= 0 or not backup_due(hours, folder):
                return
        if not options["no_nice"]:
            try:
                os.nice(10)  # as the analyser: the server's requests go first
            except OSError:
                pass
        rotate = options["scheduled"] or not options["label"]
        try:
            result = do_backup(
                folder=folder,
                label=options["label"],
                keep_daily=options["keep_daily"] if rotate else 0,
                keep_weekly=options["keep_weekly"] if rotate else 0,
            )
        except BackupError as err:
            raise CommandError(str(err)) from None
        m = result.manifest
        self.stdout.write(
            f"backup: {result.path} ({result.size / 1e6:.1f} MB, {m.seconds:.1f} s): "
            f"Dékabès {m.server_version}, {m.vendor}, {len(m.migrations)} migrations, "
            f"{m.counts['tables']:,} tables, {m.counts['events']:,} events"
        )
        for path in result.deleted:
            self.stdout.write(f"rotated out: {path.name}")
