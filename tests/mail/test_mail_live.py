"""The mail path end to end across processes, as ``make serve`` runs it: a Daphne server
and ``manage.py send_mail_queue --watch`` (the queue server.run supervises) on one
database, a real SMTP server in this process. An organizer's web request queues an
invite; the queue process sends it; its links work on the live server. And /healthz
reports the queue."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import time

import pytest
import requests
from django.test import Client, override_settings
from django.utils import timezone

from server.mail.models import OutboxMail
from server.ops import health
from tests.conftest import ROOT, LiveServer
from tests.mail.conftest import SmtpServer, body_of

PASSWORD = "a long enough password 42"


def register(server: LiveServer, name: str) -> str:
    answer = requests.post(
        server.url + "/api/auth/register", json={"username": name, "password": PASSWORD}, timeout=30
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["token"]


def web_session(server: LiveServer, name: str, language: str) -> requests.Session:
    session = requests.Session()
    session.headers["Accept-Language"] = language
    session.get(server.url + "/signin", timeout=30)
    answer = session.post(
        server.url + "/signin",
        data={
            "username": name,
            "password": PASSWORD,
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        headers={"Referer": server.url + "/signin"},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code == 302, answer.text[-2000:]
    return session


def test_a_web_request_queues_and_the_queue_process_sends_with_links_that_work(tmp_path):
    smtp = SmtpServer().start()
    server = LiveServer(tmp_path)
    server.env.update(
        {
            "DEKABES_SMTP_HOST": "127.0.0.1",
            "DEKABES_SMTP_PORT": str(smtp.port),
            "DEKABES_SITE_URL": server.url,
            "DEKABES_MAIL_POLL_SECONDS": "0.2",
        }
    )
    queue: subprocess.Popen | None = None
    log = tmp_path / "mail.log"
    try:
        server.start()
        with open(log, "ab") as out:
            queue = subprocess.Popen(
                [sys.executable, "manage.py", "send_mail_queue", "--watch"],
                cwd=ROOT,
                env=server.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        token = register(server, "secretary")
        answer = requests.post(
            server.url + "/api/clubs",
            json={"slug": "riverside", "name": "Riverside Dominoes"},
            headers={"Authorization": f"Token {token}"},
            timeout=30,
        )
        assert answer.status_code == 201, answer.text
        web = web_session(server, "secretary", "es")
        sent = web.post(
            server.url + "/clubs/riverside/invites/send",
            data={
                "address": "neighbour@example.org",
                "csrfmiddlewaretoken": web.cookies["csrftoken"],
            },
            headers={"Referer": server.url + "/clubs/riverside/invites"},
            allow_redirects=False,
            timeout=30,
        )
        assert sent.status_code == 302, sent.text[-2000:]

        smtp.inbox.wait_for(1)
        [(recipients, message)] = smtp.inbox.messages
        assert recipients == ["neighbour@example.org"]
        assert "te invita" in message["Subject"]  # the organizer's language (Spanish)
        text = body_of(message)
        join = re.search(r"(http://\S+/join/\S+)", text).group(1)
        assert join.startswith(server.url)
        page = requests.get(join, timeout=30)
        assert page.status_code == 200 and "Riverside Dominoes" in page.text
        unsubscribe = re.search(r"<([^>]+)>", str(message["List-Unsubscribe"])).group(1)
        one_click = requests.post(
            unsubscribe,
            data="List-Unsubscribe=One-Click",
            timeout=30,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert one_click.status_code == 200
        again = web.post(
            server.url + "/clubs/riverside/invites/send",
            data={
                "address": "neighbour@example.org",
                "csrfmiddlewaretoken": web.cookies["csrftoken"],
            },
            headers={"Referer": server.url + "/clubs/riverside/invites"},
            allow_redirects=False,
            timeout=30,
        )
        assert again.status_code == 400  # the address asked for no more invites
        # the queue's log names the mail by id and kind, never its address
        deadline = time.monotonic() + 30
        while "sent" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        logged = log.read_text()
        assert "(invite): sent" in logged and "neighbour" not in logged
    finally:
        if queue is not None:
            queue.terminate()
            try:
                assert queue.wait(20) == 0  # SIGTERM: the watch ends cleanly
            finally:
                if queue.poll() is None:
                    queue.kill()
                    queue.wait(5)
        server.stop()
        smtp.stop()


@pytest.mark.django_db
def test_healthz_reports_the_mail_queue_and_warns_when_mail_waits_long(tmp_path):
    report = {
        "at": time.time(),
        "pid": 1,
        "children": {
            "mail": {"running": True, "running_for": 30, "restarts": 0, "last_exit": None}
        },
    }
    (tmp_path / "supervisor.json").write_text(json.dumps(report))

    def mail_check() -> dict:
        health._kept = None
        with override_settings(VAR_DIR=tmp_path, DEKABES_BACKUP_DIR=tmp_path / "b"):
            return json.loads(Client().get("/healthz").content)["checks"]["mail_queue"]

    fact = mail_check()
    assert fact["status"] == "ok" and "0 waiting" in fact["detail"]
    OutboxMail.objects.create(
        kind="invite",
        address="late@example.org",
        created_at=timezone.now() - dt.timedelta(hours=2),
    )
    fact = mail_check()
    assert fact["status"] == "warn" and "1 waiting" in fact["detail"]
    assert "late@" not in json.dumps(fact)
