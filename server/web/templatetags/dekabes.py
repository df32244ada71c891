"""Tiles drawn by the server as inline SVG: seven pip faces defined once per page
(``{% tile_defs %}``), each tile two ``<use>`` of them (``{% tile "3-5" %}``).

A half is a unit square; pips sit on a 3x3 grid as on the desktop table.
"""

from __future__ import annotations

from urllib.parse import quote

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, ngettext

register = template.Library()

_LO, _MID, _HI = 0.27, 0.5, 0.73
PIP_SPOTS = {
    0: (),
    1: ((_MID, _MID),),
    2: ((_LO, _LO), (_HI, _HI)),
    3: ((_LO, _LO), (_MID, _MID), (_HI, _HI)),
    4: ((_LO, _LO), (_HI, _LO), (_LO, _HI), (_HI, _HI)),
    5: ((_LO, _LO), (_HI, _LO), (_MID, _MID), (_LO, _HI), (_HI, _HI)),
    6: ((_LO, _LO), (_LO, _MID), (_LO, _HI), (_HI, _LO), (_HI, _MID), (_HI, _HI)),
}


@register.simple_tag
def tile_defs():
    symbols = format_html_join(
        "",
        '<symbol id="pips-{}" viewBox="0 0 1 1">{}</symbol>',
        (
            (n, format_html_join("", '<circle cx="{}" cy="{}" r="0.09"/>', spots))
            for n, spots in PIP_SPOTS.items()
        ),
    )
    return format_html(
        '<svg class="defs" aria-hidden="true" width="0" height="0">{}</svg>', symbols
    )


def tile_svg(a: int, b: int, vertical: bool = False, extra_class: str = "") -> str:
    """One tile: ``a`` on its left (top when vertical), ``b`` on its right (bottom)."""
    width, height = (1, 2) if vertical else (2, 1)
    bx, by = (0, 1) if vertical else (1, 0)
    divider = (
        '<line x1="0.12" y1="1" x2="0.88" y2="1"/>'
        if vertical
        else '<line x1="1" y1="0.12" x2="1" y2="0.88"/>'
    )
    return format_html(
        '<svg class="tile {} {}" viewBox="0 0 {} {}" data-tile="{}-{}" role="img" aria-label="{}-{}">'
        '<rect class="face" x="0.03" y="0.03" width="{}" height="{}" rx="0.14"/>{}'
        '<use class="half-a" href="#pips-{}" width="1" height="1"/>'
        '<use class="half-b" href="#pips-{}" x="{}" y="{}" width="1" height="1"/></svg>',
        "v" if vertical else "h",
        extra_class,
        width,
        height,
        a,
        b,
        a,
        b,
        width - 0.06,
        height - 0.06,
        mark_safe(divider),
        a,
        b,
        bx,
        by,
    )


@register.simple_tag
def tile(text: str, vertical: bool = True):
    a, b = (int(n) for n in text.split("-"))
    return tile_svg(a, b, vertical)


@register.simple_tag
def tile_prototypes():
    """Blank tiles the replay script clones and numbers (it draws nothing itself)."""
    return format_html(
        '<template id="tile-h">{}</template><template id="tile-v">{}</template>',
        tile_svg(0, 0, False),
        tile_svg(0, 0, True),
    )


# -- replay log lines: one per event, hundreds per page, so built here rather than by
# -- template includes (ten times slower). Same msgids as the catalogues' entries.
def _log_text(entry) -> str:
    s = entry.seat
    kind = entry.type
    if kind == "match_started":
        return gettext("The match begins")
    if kind == "deal":
        return gettext("Deal of hand %(n)s") % {"n": entry.hand_no}
    if kind == "play":
        if entry.end == "left":
            return gettext("Seat %(s)s plays %(t)s on the left") % {"s": s, "t": entry.tile}
        if entry.end == "right":
            return gettext("Seat %(s)s plays %(t)s on the right") % {"s": s, "t": entry.tile}
        return gettext("Seat %(s)s plays %(t)s") % {"s": s, "t": entry.tile}
    if kind == "choose_opener":
        return gettext("Seat %(s)s chooses seat %(o)s to open") % {"s": s, "o": entry.opener}
    texts = {
        "accept": gettext("Seat %(s)s accepts the deal"),
        "claim_redeal": gettext("Seat %(s)s claims a redeal"),
        "pass": gettext("Seat %(s)s passes"),
        "undo": gettext("Seat %(s)s takes a move back"),
        "redo": gettext("Seat %(s)s redoes the move"),
        "restart_hand": gettext("Seat %(s)s restarts the hand"),
        "new_match": gettext("Seat %(s)s starts a new match"),
    }
    return texts[kind] % {"s": s} if kind in texts else ""


def hand_result_text(result: dict) -> str:
    """The engine's result of a hand, as a sentence."""
    values = {"team": result["team"], "points": result["points"]}
    if result["result"] == "tie":
        return gettext("Tied block: scores unchanged")
    if result["result"] == "block":
        return (
            ngettext(
                "Team %(team)s wins the block: %(points)s point",
                "Team %(team)s wins the block: %(points)s points",
                result["points"],
            )
            % values
        )
    if result["dekabes"]:
        return (
            ngettext(
                "Dékabès! Team %(team)s scores %(points)s point",
                "Dékabès! Team %(team)s scores %(points)s points",
                result["points"],
            )
            % values
        )
    return (
        ngettext(
            "Domino: team %(team)s scores %(points)s point",
            "Domino: team %(team)s scores %(points)s points",
            result["points"],
        )
        % values
    )


@register.simple_tag
def hand_result(result: dict):
    return hand_result_text(result)


def handover_text(
    seat: int, player: str | None, previous: str | None, hand: int | None, move: int | None
) -> str:
    """A seat changing hands, as a sentence: where (hand and move, once the match is
    over), which seat, who for whom."""
    where = {"seat": seat, "player": player or "—", "previous": previous or "—"}
    if hand is None:  # a match in progress: who, not where
        return gettext("Seat %(seat)s: %(player)s for %(previous)s") % where
    return gettext(
        "From hand %(hand)s, move %(move)s — seat %(seat)s: %(player)s for %(previous)s"
    ) % {**where, "hand": hand, "move": move}


@register.simple_tag
def handover_line(holder) -> str:
    """``handover_text`` of a match answer's ``seat_holders`` entry."""
    return handover_text(
        holder["seat"],
        holder["player"],
        holder["previous"],
        holder["from_hand"],
        holder["from_move"],
    )


@register.filter
def seat_changes(match_data: dict) -> list[dict]:
    """The ``seat_holders`` of a match answer that began with a handover, in the order
    they happened (none when the answer has no ``seat_holders``)."""
    changed = [h for h in match_data.get("seat_holders") or () if h["reason"]]
    return sorted(changed, key=lambda h: (h["from_step"] is None, h["from_step"] or 0, h["seat"]))


@register.simple_tag
def holding_line(holding) -> str:
    """``handover_text`` of a ``holders.Holding`` (a finished table's replay)."""
    return handover_text(holding.seat, holding.player, holding.previous, holding.hand, holding.move)


def _handovers_html(entry) -> str:
    return format_html_join(
        "",
        '<strong class="handover">{}</strong> ',
        ((handover_text(h.seat, h.player, h.previous, h.hand, h.move),) for h in entry.handovers),
    )


@register.simple_tag
def replay_log(entries):
    """The ``<li>`` of every log line (``data-step`` for the replay script); a seat that
    changed hands is told on the line of the first event after it."""
    return format_html_join(
        "",
        '<li data-step="{}">{}{}{}</li>',
        (
            (
                e.step,
                _handovers_html(e),
                _log_text(e),
                format_html(" — <strong>{}</strong>", hand_result_text(e.result))
                if e.result
                else "",
            )
            for e in entries
        ),
    )


@register.simple_tag
def chart_points(chart, match_url_prefix: str = "/matches/"):
    """One linked circle per rating point (hundreds on a long history)."""
    return format_html_join(
        "",
        '<a href="{}{}"><circle cx="{}" cy="{}" r="4" data-match="{}">'
        "<title>{}</title></circle></a>",
        (
            (match_url_prefix, p.match, f"{p.x:.1f}", f"{p.y:.1f}", p.match, f"{p.ordinal:.2f}")
            for p in chart.points
        ),
    )


@register.simple_tag
def team_names(seats: list[dict], team: str, pairs: dict | None = None):
    """One team of a match answer: its pair's name (pairs seasons), then its players,
    each linked, bots tagged "bot" and house bots filling a seat "fill-in bot". (A tag,
    not an include: a match list draws it twice a row.)"""
    parts = []
    pair = (pairs or {}).get(team)
    if pair:
        parts.append(format_html('<span class="pair-name">{}</span>:', pair["name"]))
    for s in seats:
        if s["team"] != team:
            continue
        name = s["player"]
        link = format_html('<a href="/players/{}">{}</a>', quote(name), name)
        if s.get("filler"):
            link = format_html(
                '{} <span class="tag bot filler" title="{}">{}</span>',
                link,
                gettext("a house bot filling the seat"),
                gettext("fill-in bot"),
            )
        elif s.get("is_bot"):
            link = format_html('{} <span class="tag bot">{}</span>', link, gettext("bot"))
        parts.append(link)
    return mark_safe(" ".join(parts))  # noqa: S308 -- every part went through format_html
