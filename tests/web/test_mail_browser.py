"""Members' mail in a browser (issue #33, point 9), on a live server with its mail queue
(``send_mail_queue --watch``) and a real SMTP server in this process: a member sets their
address and kinds on a phone (390 px, in Spanish), the organizer sees who has no address
and sends an invite by mail (390 px and 1280 px), an announcement arrives, and the
mail's unsubscribe link, opened in the browser, stops that kind."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import requests

from tests.conftest import ROOT, LiveServer
from tests.mail.conftest import SmtpServer, body_of
from tests.web.browser import DESKTOP, PHONE, horizontal_overflow, screenshot
from tests.web.conftest import sign_in
from tests.web.seed import PASSWORD


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory):
    """A live server, its mail queue and an SMTP server: (url, inbox)."""
    smtp = SmtpServer().start()
    server = LiveServer(tmp_path_factory.mktemp("mail-live"))
    server.env.update(
        {
            "DEKABES_SMTP_HOST": "127.0.0.1",
            "DEKABES_SMTP_PORT": str(smtp.port),
            "DEKABES_SITE_URL": server.url,
            "DEKABES_MAIL_POLL_SECONDS": "0.2",
            "DEKABES_RATE_LOGIN_NAME": "100000/minute",
        }
    )
    queue = None
    try:
        server.start()
        queue = subprocess.Popen(
            [sys.executable, "manage.py", "send_mail_queue", "--watch"],
            cwd=ROOT,
            env=server.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        yield server.url, smtp.inbox
    finally:
        if queue is not None:
            queue.terminate()
            try:
                queue.wait(20)
            except subprocess.TimeoutExpired:
                queue.kill()
                queue.wait(5)
        server.stop()
        smtp.stop()


def api(url: str, token: str | None, method: str, path: str, body: dict | None = None):
    headers = {"Authorization": f"Token {token}"} if token else {}
    answer = requests.request(method, url + path, json=body, headers=headers, timeout=30)
    assert answer.status_code < 300, answer.text
    return answer.json()


def register(url: str, name: str) -> str:
    return api(url, None, "POST", "/api/auth/register", {"username": name, "password": PASSWORD})[
        "token"
    ]


def test_members_choose_their_mail_and_organizers_see_who_has_no_address(mail_server, open_page):
    url, inbox = mail_server
    olga, ana = register(url, "olga"), register(url, "ana")
    api(url, olga, "POST", "/api/clubs", {"slug": "harbour", "name": "Harbour Dominoes"})
    for token in (ana, register(url, "bruno2")):  # bruno2 never gives an address
        code = api(url, olga, "POST", "/api/clubs/harbour/invites", {})["code"]
        api(url, token, "POST", "/api/clubs/harbour/join", {"code": code})

    # ana, on a phone in Spanish: the header's "Correo", her address, one kind off
    phone = open_page(locale="es-ES", viewport=PHONE)
    sign_in(phone, url, "ana")
    phone.click(".site-nav a[href='/me/mail']")
    assert phone.url == url + "/me/mail"
    assert "Tu correo" in phone.inner_text("h1")
    phone.fill("input[name=email]", "ana@example.org")
    phone.uncheck("input[name=deadline]")
    with phone.expect_navigation():
        phone.click("form.mail-preferences button[type=submit]")
    assert "Tus opciones están guardadas" in phone.inner_text("main")
    assert phone.is_checked("input[name=announcement]")
    assert not phone.is_checked("input[name=deadline]")
    assert horizontal_overflow(phone) == 0
    screenshot(phone, "mail-preferences-phone")

    # the organizer: who has no address (members page), at 1280 and 390 px
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        org = open_page(viewport=viewport)
        sign_in(org, url, "olga")
        org.goto(url + "/clubs/harbour/members")
        section = org.inner_text("section.no-address")
        assert "bruno2" in section and "olga" in section and "ana" not in section
        assert horizontal_overflow(org) == 0
        screenshot(org, f"mail-members-without-address-{name}")
        # an invite sent by mail from the invites page
        org.goto(url + "/clubs/harbour/invites")
        org.fill("section.send-invite input[name=address]", f"friend-{name}@example.org")
        with org.expect_navigation():
            org.click("section.send-invite button[type=submit]")
        assert org.url == url + "/clubs/harbour/invites"
        assert horizontal_overflow(org) == 0
        screenshot(org, f"mail-invites-{name}")
    inbox.wait_for(2)
    assert {r for rs, _m in inbox.messages for r in rs} == {
        "friend-desktop@example.org",
        "friend-phone@example.org",
    }

    # an announcement from the organize page reaches ana, in Spanish
    org.goto(url + "/clubs/harbour/organize")
    org.fill("textarea[name=text]", "Friday: round 2 at eight")
    with org.expect_navigation():
        org.click("form.announcement-form button[type=submit]")
    inbox.wait_for(3)
    [mail] = [m for rs, m in inbox.messages if "ana@example.org" in rs]
    assert "un anuncio nuevo" in mail["Subject"]
    text = body_of(mail)
    assert "Friday: round 2 at eight" in text

    # its unsubscribe link, opened in the browser: one button, then the kind is off
    link = re.search(r"(http://\S+/mail/unsubscribe/\S+)", text).group(1)
    phone.goto(link)
    assert horizontal_overflow(phone) == 0
    screenshot(phone, "mail-unsubscribe-phone")
    with phone.expect_navigation():
        phone.click("section.unsubscribe button[type=submit]")
    assert "Hecho" in phone.inner_text("main")
    phone.goto(url + "/me/mail")
    assert not phone.is_checked("input[name=announcement]")
    assert phone.is_checked("input[name=table_ready]")
