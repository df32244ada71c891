"""Mail test helpers: a real SMTP server (aiosmtpd) in this process, and the Django
settings that send to it."""

from __future__ import annotations

import email
import email.policy
import threading
from dataclasses import dataclass, field

import pytest
from aiosmtpd.controller import Controller

from tests.conftest import free_port


@dataclass
class Inbox:
    """What the SMTP server received: one parsed message per mail, with its envelope."""

    messages: list = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 -- aiosmtpd's hook name
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.arrived:
            self.messages.append((list(envelope.rcpt_tos), message))
            self.arrived.notify_all()
        return "250 OK"

    def to(self, address: str) -> list:
        return [m for rcpt, m in self.messages if address in rcpt]

    def wait_for(self, count: int, timeout: float = 60.0) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.messages) >= count, timeout), (
                f"{len(self.messages)} of {count} mails arrived"
            )


class SmtpServer:
    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.inbox = Inbox()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()


@pytest.fixture
def smtp(settings):
    """A running SMTP server, and the settings that send every mail to it."""
    server = SmtpServer().start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = server.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_TIMEOUT = 10
    settings.DEKABES_SITE_URL = "http://club.example"
    try:
        yield server
    finally:
        server.stop()


def body_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()
