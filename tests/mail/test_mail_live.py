"""The mail path end to end across processes, as ``make serve`` runs it: a Daphne server
and ``manage.py send_mail_queue --watch`` (the queue server.run supervises) on one
database, a real SMTP server in this process. An organizer's web request queues an
invite; the queue process sends it; its links work on the live server. And /healthz
reports the queue."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.test import Client, override_settings
from django.utils import timezone

from server.mail.models import OutboxMail
from server.ops import health
from tests.conftest import ROOT, LiveServer, free_port
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


def test_make_serve_runs_the_mail_queue_and_ctrl_c_stops_it(tmp_path):
    """``server.run`` (make serve) starts ``send_mail_queue --watch`` as a supervised
    child, reports it to /healthz, and stops it with everything else on Ctrl-C."""
    from tests.server.test_hardening_serve import alive, command_line, descendants

    smtp = SmtpServer().start()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        {
            "DEKABES_VAR_DIR": str(tmp_path),
            "PYTHONUNBUFFERED": "1",
            "DEKABES_SMTP_HOST": "127.0.0.1",
            "DEKABES_SMTP_PORT": str(smtp.port),
        }
    )
    env.pop("DEKABES_SITE_URL", None)
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115 -- closed in the finally
    serve = subprocess.Popen(
        [sys.executable, "-m", "server.run", "--port", str(port), "--no-bots", "--no-analyser"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    queues: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        body: dict = {}
        while time.monotonic() < deadline:
            assert serve.poll() is None, (tmp_path / "serve.log").read_text()
            queues |= {p for p in descendants(serve.pid) if b"send_mail_queue" in command_line(p)}
            try:
                body = requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()
            except (requests.RequestException, ValueError):
                body = {}
            if body.get("checks", {}).get("mail_queue", {}).get("status") == "ok" and queues:
                break
            time.sleep(0.5)
        assert body["checks"]["mail_queue"]["status"] == "ok", body
        assert "waiting" in body["checks"]["mail_queue"]["detail"]
        # the mails' links lead to this server when the operator set no address
        (queue_pid,) = queues
        environ = (Path(f"/proc/{queue_pid}/environ")).read_bytes().split(b"\0")
        assert f"DEKABES_SITE_URL=http://127.0.0.1:{port}".encode() in environ
        os.killpg(serve.pid, signal.SIGINT)  # Ctrl-C
        serve.wait(90)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(alive(p) for p in queues):
            time.sleep(0.2)
        assert not [p for p in queues if alive(p)]
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(30)
        for pid in queues:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        log.close()
        smtp.stop()
