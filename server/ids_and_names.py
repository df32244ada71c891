"""One parsing layer for what a request names in its path and query: ids, page numbers,
season ids, usernames, slugs and codes (issue 20). Everything a view turns into a
database value passes here first, so nothing a database refuses reaches it:

- an **id** is 1 to 18 ASCII digits (``str.isdigit`` takes "²", Python's ``int`` takes
  "١"; 19 digits can pass 2**63 - 1, where SQLite overflows and PostgreSQL refuses);
- a **name** (username, code, slug, verb) has no NUL byte nor other control character
  (PostgreSQL refuses NUL in text) and is at most ``NAME_MAX`` characters.

In the path, the converters ``<id:…>`` and ``<name:…>`` (registered by
``register_converters``, called by the URL modules) match only these shapes, so a bad
one is a plain 404 of the resolver. In the query, ``parse_id`` / ``parse_name`` raise
``ValidationError`` (``400 validation_error`` on the API; the web's views answer their
404 page for it)."""

from __future__ import annotations

import re

from server.errors import ValidationError

ID_DIGITS = 18
ID_RE = re.compile(rf"\A[0-9]{{1,{ID_DIGITS}}}\Z")
NAME_MAX = 200
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class IdConverter:
    """``<id:name>``: a database id, 1 to 18 ASCII digits (never past 2**63 - 1)."""

    regex = rf"[0-9]{{1,{ID_DIGITS}}}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


class NameConverter:
    """``<name:name>``: a path segment without control characters (no NUL byte)."""

    regex = r"[^/\x00-\x1f\x7f]{1,200}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value) -> str:
        return str(value)


def register_converters() -> None:
    from django.urls import converters, register_converter

    for label, cls in (("id", IdConverter), ("name", NameConverter)):
        if label not in converters.REGISTERED_CONVERTERS:
            register_converter(cls, label)


def is_id(raw) -> bool:
    return isinstance(raw, str) and bool(ID_RE.match(raw))


def parse_id(raw, what: str) -> int | None:
    """A query's id (None when absent or empty); ``ValidationError`` when it is not one."""
    if raw in (None, ""):
        return None
    if not is_id(raw):
        raise ValidationError(f"{what} is a whole number (an id)")
    return int(raw)


def is_name(raw) -> bool:
    return isinstance(raw, str) and len(raw) <= NAME_MAX and not CONTROL.search(raw)


def parse_name(raw, what: str) -> str | None:
    """A query's name (None when absent or blank); ``ValidationError`` when it holds a
    control character (a NUL byte) or is too long."""
    if raw is None or not raw.strip():
        return None
    if not is_name(raw):
        raise ValidationError(f"{what} is a name: no control characters, at most {NAME_MAX}")
    return raw.strip()
