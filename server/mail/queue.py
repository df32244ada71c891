"""The outbox's queue: send what is due, after the commit, away from every request.

``drain`` claims the due rows a batch at a time (``claimed_until``, in a short
transaction: no database lock is held while a mail server is talked to), sends each
through Django's mail framework (``EMAIL_BACKEND``), and records the outcome:

- sent: ``sent_at``;
- not sent because there is no address any more, or the member turned the kind off
  after it was queued: ``dropped``;
- a failure: tried again after ``FIRST_RETRY`` seconds, doubling up to
  ``LONGEST_RETRY``; after ``MAX_ATTEMPTS`` tries, or at once when the mail server
  refuses that mail for good (a 5xx to its recipient or its content), ``failed``. When the
  mail server cannot be used at all (not reached, or refusing this server's sign-in or
  sender: a setting to fix) the batch stops at the first mail, which counts a try; the
  rest wait for the next drain, untried.

The log names rows by id and kind, and an error by its class and SMTP code: never an
address, a subject or a body.

``watch`` drains every ``DEKABES_MAIL_POLL_SECONDS`` until stopped: ``manage.py
send_mail_queue --watch``, which ``server.run`` supervises like the analyser. It also
deletes, once an hour, the rows done with for ``KEEP_DAYS`` (``prune``): a row keeps the
names its mail said, which the server holds no longer than needed.
"""

from __future__ import annotations

import datetime as dt
import logging
import smtplib
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import get_connection
from django.db import close_old_connections, connection, transaction
from django.db.models import Q
from django.utils import timezone

from server.mail.compose import compose, recipient_of
from server.mail.kinds import INVITE
from server.mail.models import OutboxMail
from server.mail.selectors import invite_refused, preference_of
from server.tables.locking import writing

log = logging.getLogger(__name__)

BATCH = 50
CLAIM_FOR = dt.timedelta(minutes=10)  # a claim a crashed drain left lapses after this
MAX_ATTEMPTS = 12  # the last try about 20 hours after the first
KEEP_DAYS = 30  # sent, dropped and failed rows are deleted after this long
PRUNE_EVERY = 3600.0  # seconds between two prunes of a watching queue
FIRST_RETRY = 60.0  # seconds
LONGEST_RETRY = 6 * 3600.0


@dataclass
class Drained:
    sent: int = 0
    dropped: int = 0
    retried: int = 0
    failed: int = 0

    def line(self) -> str:
        return (
            f"mail: {self.sent} sent, {self.dropped} dropped, {self.retried} to retry, "
            f"{self.failed} failed"
        )

    @property
    def any(self) -> bool:
        return bool(self.sent or self.dropped or self.retried or self.failed)


class Unreachable(Exception):
    """The mail server could not be reached: stop this batch."""


def retry_after(attempts: int) -> float:
    """Seconds before the next try after ``attempts`` failed tries."""
    return min(FIRST_RETRY * 2 ** max(attempts - 1, 0), LONGEST_RETRY)


def _claim(now: dt.datetime, limit: int) -> list[OutboxMail]:
    with writing(), transaction.atomic():
        due = OutboxMail.objects.filter(status="pending", next_attempt_at__lte=now).filter(
            Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
        )
        if connection.vendor == "postgresql":  # two drains at once take different rows
            due = due.select_for_update(skip_locked=True)
        ids = list(due.order_by("id").values_list("id", flat=True)[:limit])
        OutboxMail.objects.filter(pk__in=ids).update(claimed_until=now + CLAIM_FOR)
    return list(OutboxMail.objects.filter(pk__in=ids).select_related("user").order_by("id"))


def _finish(row: OutboxMail, **fields) -> None:
    with writing(), transaction.atomic():
        OutboxMail.objects.filter(pk=row.pk).update(claimed_until=None, **fields)


def _still_wanted(row: OutboxMail, address: str) -> bool:
    if not address:
        return False
    if row.kind == INVITE:
        return not invite_refused(address)
    assert row.user is not None
    return preference_of(row.user).wants(row.kind)


def _error_text(error: BaseException) -> str:
    """The class of the error and its SMTP codes: never the addresses an SMTP error holds."""
    codes: list[int] = []
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = sorted({code for code, _message in error.recipients.values()})
    elif isinstance(error, smtplib.SMTPResponseException):
        codes = [error.smtp_code]
    return type(error).__name__ + (f" {','.join(map(str, codes))}" if codes else "")


def _unreachable(error: BaseException) -> bool:
    """The mail server cannot take mail now, whatever the mail: not reached, cut off,
    or refusing this server itself (its sign-in, its sender, its greeting): a setting or
    the server to fix, so the batch stops and every mail waits, none given up."""
    if isinstance(error, smtplib.SMTPRecipientsRefused | smtplib.SMTPDataError):
        return False  # about this mail
    return isinstance(error, OSError)  # smtplib's errors are OSErrors too


def _permanent(error: BaseException) -> bool:
    """The mail server answered that this very mail will never be taken (a 5xx to its
    recipient or its content)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _m in error.recipients.values())
    return isinstance(error, smtplib.SMTPDataError) and error.smtp_code >= 500


def _send_one(row: OutboxMail, mail_connection, now: dt.datetime, done: Drained) -> None:
    address = recipient_of(row)
    if not _still_wanted(row, address):
        _finish(row, status="dropped", last_error="no address or unsubscribed")
        log.info("mail %s (%s): dropped, no address or unsubscribed", row.pk, row.kind)
        done.dropped += 1
        return
    try:
        message = compose(row, address)
        mail_connection.open()  # once per batch: an open connection is kept
        mail_connection.send_messages([message])
    except Exception as error:
        attempts = row.attempts + 1
        text = _error_text(error)
        if _permanent(error) or attempts >= MAX_ATTEMPTS:
            _finish(row, status="failed", attempts=attempts, last_error=text)
            log.warning(
                "mail %s (%s): failed for good after %s tries: %s", row.pk, row.kind, attempts, text
            )
            done.failed += 1
        else:
            wait = retry_after(attempts)
            _finish(
                row,
                attempts=attempts,
                last_error=text,
                next_attempt_at=now + dt.timedelta(seconds=wait),
            )
            log.warning(
                "mail %s (%s): try %s failed (%s); next in %.0f s",
                row.pk,
                row.kind,
                attempts,
                text,
                wait,
            )
            done.retried += 1
        try:
            mail_connection.close()  # the next mail opens a fresh one
        except Exception:
            pass  # closing a broken connection: nothing more to do
        if _unreachable(error):
            raise Unreachable() from error
        return
    _finish(row, status="sent", attempts=row.attempts + 1, sent_at=timezone.now(), last_error="")
    log.info("mail %s (%s): sent", row.pk, row.kind)
    done.sent += 1


def drain(now: dt.datetime | None = None, batches: int | None = None) -> Drained:
    """Send every due row (``batches`` batches at most), and say what became of them."""
    done = Drained()
    number = 0
    while batches is None or number < batches:
        number += 1
        moment = now or timezone.now()
        rows = _claim(moment, BATCH)
        if not rows:
            break
        mail_connection = get_connection()
        try:
            for index, row in enumerate(rows):
                try:
                    _send_one(row, mail_connection, moment, done)
                except Unreachable:
                    for untried in rows[index + 1 :]:
                        _finish(untried)  # unclaimed, not counted as a try
                    return done
        finally:
            try:
                mail_connection.close()
            except Exception:
                pass  # closing a broken connection: nothing more to do
    return done


def prune(now: dt.datetime | None = None) -> int:
    """Delete the rows done with (sent, dropped, failed) more than ``KEEP_DAYS`` ago."""
    before = (now or timezone.now()) - dt.timedelta(days=KEEP_DAYS)
    with writing(), transaction.atomic():
        deleted, _ = OutboxMail.objects.filter(
            status__in=("sent", "dropped", "failed"), created_at__lt=before
        ).delete()
    return deleted


def watch(stop: threading.Event, every: float | None = None) -> None:
    """Drain until ``stop`` is set, looking again every ``every`` seconds."""
    every = settings.DEKABES_MAIL_POLL_SECONDS if every is None else every
    pruned_at = 0.0
    while not stop.is_set():
        try:
            if time.monotonic() - pruned_at >= PRUNE_EVERY:
                pruned_at = time.monotonic()
                if gone := prune():
                    log.info("mail: %s old row(s) deleted", gone)
            done = drain()
            if done.any:
                log.info(done.line())
        except Exception:  # the next look tries again
            log.exception("mail: the queue failed")
        finally:
            close_old_connections()
        stop.wait(every)
