"""The absolute links a mail carries: the site's address (``DEKABES_SITE_URL``) and a
page's path. A mail is written by the queue, away from any request, so the address is a
setting (server.run sets it from ``--host``/``--port`` when the operator did not)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse


def absolute(path: str) -> str:
    return settings.DEKABES_SITE_URL + path


def play_path(code: str) -> str:
    """The browser table where the seat holder plays ``code`` (``web:table_play``)."""
    return reverse("web:table_play", args=[code])


def round_path(data: dict) -> str:
    return reverse("web:round", args=[data["club_slug"], data["season"], data["round"]])


def club_path(slug: str) -> str:
    return reverse("web:club", args=[slug])


def join_path(slug: str, code: str) -> str:
    return reverse("web:join_link", args=[slug, code])


def preferences_path() -> str:
    return reverse("web:mail_preferences")


def unsubscribe_path(token: str) -> str:
    return reverse("web:mail_unsubscribe", args=[token])
