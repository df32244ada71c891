import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from server.ops import archive
from server.ops.archive import BackupError
from server.ops.verify import check_this_database, child_answer, render, verify_backup


class Command(BaseCommand):
    help = (
        "Restore a backup into a scratch database and prove it: every table's log replays "
        "through the engine to the stored state, rebuild_league equals the stored "
        "standings and ratings, every finished match's record verifies. Prints a verdict "
        "on one screen; exit status 1 when it is not proven."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("extra", nargs="?", type=Path, help="(internal)")
        parser.add_argument(
            "--here",
            action="store_true",
            help="(internal) check the database this process is configured with: the "
            "scratch copy; FILE is then the digests, EXTRA the backup",
        )
        parser.add_argument("--json", action="store_true", help="the verdict as JSON")

    def handle(self, *args, **options):
        if options["here"]:
            try:
                expected = json.loads(Path(options["file"]).read_text())
                manifest = archive.read_manifest(options["extra"])
            except (OSError, ValueError, BackupError) as err:
                raise CommandError(str(err)) from None
            self.stdout.write(child_answer(check_this_database(expected, manifest)))
            return
        path = options["file"]
        if not path.is_file():
            raise CommandError(f"no backup file {path}")
        verdict = verify_backup(path)
        if options["json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "file": str(path),
                        "proven": verdict.ok,
                        "refused": verdict.refused,
                        "checks": json.loads(child_answer(verdict.checks))["checks"],
                        "seconds": verdict.seconds,
                        "restore_seconds": verdict.restore_seconds,
                    }
                )
            )
        else:
            self.stdout.write(render(verdict))
        if not verdict.ok:
            sys.exit(1)
