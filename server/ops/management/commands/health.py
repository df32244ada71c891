import json
import sys

from django.core.management import call_command
from django.core.management.base import BaseCommand

from server.ops.health import check_after_upgrade, health


class Command(BaseCommand):
    help = (
        "The server's health as /healthz answers it (JSON). --serve: the checks an upgrade "
        "makes with the server stopped (migrations, system checks, the database, a Daphne "
        "started on a spare port answering). Exit status 1 on a failure."
    )

    def add_arguments(self, parser):
        parser.add_argument("--serve", action="store_true")

    def handle(self, *args, **options):
        if options["serve"]:
            call_command("check", verbosity=0)  # raises (exit 1) on an error
            problems = check_after_upgrade()
            for problem in problems:
                self.stdout.write(f"FAIL: {problem}")
            if problems:
                sys.exit(1)
            self.stdout.write("ok: migrations applied, checks pass, Daphne serves")
            return
        answer = health(fresh=True)
        self.stdout.write(json.dumps(answer.as_json(), indent=2))
        if answer.http_status != 200:
            sys.exit(1)
