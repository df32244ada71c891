import signal
import threading

from django.core.management.base import BaseCommand

from server.mail import queue


class Command(BaseCommand):
    help = (
        "Send the members' mail waiting in the outbox (docs/server.md, 'Mail'): what is due "
        "now, then exit; --watch keeps looking every DEKABES_MAIL_POLL_SECONDS until stopped "
        "(make serve runs it so, supervised). Safe beside another drain."
    )

    def add_arguments(self, parser):
        parser.add_argument("--watch", action="store_true", help="keep sending until stopped")

    def handle(self, *args, **options):
        if not options["watch"]:
            self.stdout.write(queue.drain().line())
            return
        stop = threading.Event()
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, lambda *_: stop.set())
        self.stdout.write("mail queue: watching the outbox", ending="\n")
        self.stdout.flush()
        queue.watch(stop)
