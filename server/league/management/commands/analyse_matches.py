"""``manage.py analyse_matches``: analyse every finished match not analysed yet (or by an
older engine analysis version), then exit; ``--watch`` keeps going, looking for new work
every ``--every`` seconds, at a low CPU priority (``os.nice``). ``server.run`` starts and
supervises the watching one beside Daphne (``--no-analyser`` leaves it out).
``--holders`` first rewrites, from the stored reports, the accuracy rows of the analysed
matches whose seats changed hands (each decision for whoever made it; docs/league.md)."""

from __future__ import annotations

import os
import signal
import threading

from django.core.management.base import BaseCommand

from engine.analysis import DEFAULT_ITERATIONS
from server.league import analysis_queue


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--watch", action="store_true", help="keep analysing new matches")
        parser.add_argument("--every", type=float, default=2.0, help="seconds between looks")
        parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
        parser.add_argument("--limit", type=int, default=None, help="stop after N analyses")
        parser.add_argument(
            "--holders",
            action="store_true",
            help="first recount the accuracy of analysed matches whose seats changed hands",
        )
        parser.add_argument(
            "--nice", type=int, default=None, help="niceness increment (default 10 with --watch)"
        )

    def handle(self, *args, **options):
        nice = options["nice"] if options["nice"] is not None else (10 if options["watch"] else 0)
        if nice:
            os.nice(nice)
        stop = threading.Event()
        if options["watch"]:
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, lambda *_: stop.set())
        if options["holders"]:
            split = analysis_queue.do_split_by_holder()
            self.stdout.write(f"recounted {split} match(es) whose seats changed hands")
        total = 0
        while True:
            done = analysis_queue.work(iterations=options["iterations"], limit=options["limit"])
            total += done
            if done:
                self.stdout.write(f"analysed {done} match(es)")
                self.stdout.flush()
            if not options["watch"] or stop.wait(options["every"]):
                break
        if not options["watch"]:
            self.stdout.write(f"analysed {total} match(es)")
