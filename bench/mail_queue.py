"""``python -m bench.mail_queue``: what the members' mail costs (docs/server.md, "Mail").

1. A round's draw (``do_start_round``: ``--tables`` tables of four members who all have an
   address): its CPU time (this thread's), and the part of it the mail app's receiver
   takes to queue one "your table is ready" per seat in the draw's transaction, the
   median of ``--rounds`` draws. This is what a request pays for the mail.
2. The queue: ``--mails`` announcement mails (and the draws' mails) drained (``queue.drain``) to an SMTP server on
   loopback (aiosmtpd, in this process): mails per second, over one connection a batch.

Its own temporary SQLite database (migrated here); nothing else is touched. Wall-clock
figures on a shared machine: CPU time for the draw, wall time for the queue.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import time
from pathlib import Path


def setup(workdir: Path) -> None:
    os.environ["DEKABES_VAR_DIR"] = str(workdir)
    os.environ["DEKABES_SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "server.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def new_people(prefix: str, count: int) -> list:
    from server.accounts.models import User

    people = []
    for number in range(count):
        user = User(username=f"{prefix}{number}", email=f"{prefix}{number}@example.org")
        user.set_unusable_password()  # no password hashing: the draw is measured
        user.save()
        people.append(user)
    return people


def one_draw(trial: str, tables: int, spent: list[float]) -> float:
    """CPU seconds of one ``do_start_round`` of a fresh club of ``4 * tables`` members;
    the mail receiver's own CPU seconds are appended to ``spent``."""
    from server.league.actions import clubs, rounds
    from server.league.models import Membership, Season

    [organizer] = new_people(f"o{trial}x", 1)
    club = clubs.do_create_club(user=organizer, slug=f"c{trial}", name=f"Club {trial}")
    players = new_people(f"p{trial}x", 4 * tables)
    Membership.objects.bulk_create(Membership(club=club, user=p) for p in players)
    season = Season.objects.create(club=club, name="S", format="individual", seed=1)
    round_ = rounds.do_create_round(user=organizer, season=season)
    rounds.do_check_in(user=organizer, round_=round_, players=[p.username for p in players])
    started = time.thread_time()
    rounds.do_start_round(user=organizer, round_=round_)
    return time.thread_time() - started


def draws(label: str, count: int, tables: int) -> tuple[float, float]:
    """Medians of ``count`` draws: the draw's CPU seconds and the mail receiver's part."""
    from server.mail import receivers

    spent: list[float] = []
    queue_draw = receivers.HANDLERS["round.start"]

    def timed(action) -> None:
        started = time.thread_time()
        queue_draw(action)
        spent.append(time.thread_time() - started)

    receivers.HANDLERS["round.start"] = timed
    try:
        totals = [one_draw(f"{label}{n}", tables, spent) for n in range(count)]
    finally:
        receivers.HANDLERS["round.start"] = queue_draw
    return statistics.median(totals), statistics.median(spent)


def drain_rate(count: int) -> tuple[int, float, float]:
    from aiosmtpd.controller import Controller
    from django.conf import settings

    from server.mail import queue
    from server.mail.models import OutboxMail

    received = []

    class Handler:
        async def handle_DATA(self, server, session, envelope):  # noqa: N802 -- aiosmtpd's name
            received.append(len(envelope.content))
            return "250 OK"

    with socket.socket() as probe:  # a free port (aiosmtpd's Controller needs a number)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        people = new_people("reader", count)
        OutboxMail.objects.bulk_create(
            OutboxMail(
                kind="announcement",
                user=p,
                data={
                    "club_name": "Bench",
                    "club_slug": "bench",
                    "text": "Friday at eight",
                    "author": "o",
                },
            )
            for p in people
        )
        count = OutboxMail.objects.filter(status="pending").count()  # the draws' too
        started = time.perf_counter()
        done = queue.drain()
        elapsed = time.perf_counter() - started
    finally:
        controller.stop()
    assert done.sent == count == len(received), (done, len(received))
    return count, count / elapsed, statistics.median(received)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mails", type=int, default=300)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dekabes-mail-bench-") as tmp:
        setup(Path(tmp))
        draws("warm", 1, args.tables)  # first-use costs out of the figures
        total, mail = draws("draw", args.rounds, args.tables)
        print(
            f"round draw, {args.tables} tables ({4 * args.tables} members with an address), "
            f"median of {args.rounds}, CPU: {total * 1000:.1f} ms, of which queueing the "
            f"{4 * args.tables} mails {mail * 1000:.1f} ms ({100 * mail / total:.0f} %)"
        )
        sent, rate, size = drain_rate(args.mails)
        print(
            f"queue: {sent} mails to an SMTP server on loopback, {rate:.0f} mails/s "
            f"(median mail {size:.0f} bytes)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
