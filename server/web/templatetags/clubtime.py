"""Times as a club reads them (issue #33): ``{% club_time value club %}`` renders a
deadline, an expiry or a match time in the club's time zone, named, as a ``<time>``
whose ``datetime`` is the instant; ``web/times.js`` adds the reader's own time beside
it when their zone differs. Never a raw ISO string: a far-off expiry reads as a date."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django import template
from django.utils import formats
from django.utils.html import format_html
from django.utils.translation import gettext as _

register = template.Library()


def zone_of(club) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(getattr(club, "time_zone", None) or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def as_instant(value) -> dt.datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            return None
    if not isinstance(value, dt.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


@register.simple_tag
def club_time(value, club=None, empty: str = "—"):
    """``value`` (a datetime or an ISO string; None: ``empty``) in ``club``'s zone."""
    instant = as_instant(value)
    if instant is None:
        return empty
    zone = zone_of(club)
    local = instant.astimezone(zone)
    text = formats.date_format(local, "Y-m-d H:i")
    return format_html(
        '<time datetime="{}" class="club-time" title="{}">{} <small class="zone">{}</small></time>',
        instant.astimezone(dt.UTC).isoformat(),
        _("%(zone)s time") % {"zone": zone.key},
        text,
        local.tzname() or zone.key,
    )


@register.simple_tag
def club_time_input(value, club=None) -> str:
    """A ``datetime-local`` input's value in the club's zone (empty for none)."""
    instant = as_instant(value)
    if instant is None:
        return ""
    return instant.astimezone(zone_of(club)).strftime("%Y-%m-%dT%H:%M")
