"""The ways in beside a browser table (issue #32): on the play page, the links that offer
a casual table's open seats to friends, the owner's "let people watch" switch, and the
desktop app, optional; on the round page, each table's Play or Watch link."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

from server.league.selectors import league_match_of
from server.tables import projection
from server.web.selectors import doors

register = template.Library()


@register.inclusion_tag("web/play_doors.html", takes_context=True)
def play_doors(context, table):
    """Below the play page's table: share links of its open seats (anyone signed in who
    opens one takes that seat), the owner's watch switch (a casual table), and the app."""
    request = context["request"]
    casual = league_match_of(table) is None
    join = reverse("web:table_join", kwargs={"code": table.code})
    return {
        "table": table,
        "shares": [
            (n, request.build_absolute_uri(f"{join}?seat={n}")) for n in doors.open_seats(table)
        ]
        if casual
        else [],
        "owner": casual and request.user.pk == table.owner_id,
        "watchable": casual and projection.project(table).watchable,
        "watch_url": request.build_absolute_uri(reverse("web:table_watch", args=[table.code])),
        "csrf_token": context.get("csrf_token"),
    }


@register.simple_tag
def table_door(table_doors: dict, code: str):
    """The round page's link for one table: Play (the viewer's own seat) or Watch."""
    door = table_doors.get(code)
    if door == doors.PLAY:
        return format_html(
            '<a class="button play-now" href="{}">{}</a>',
            reverse("web:table_play", args=[code]),
            _("Play now"),
        )
    if door == doors.WATCH:
        return format_html(
            '<a class="watch-link" href="{}">{}</a>',
            reverse("web:table_watch", args=[code]),
            _("Watch"),
        )
    return ""
