"""The lobby's league page: join a club with an invite link or code; each of my clubs'
standings (its newest season) and ratings; my league tables in play; my finished league
matches with their results; my statistics by club and overall. Drawn from ``Lobby``
(``lobby.details``, loaded by ``lobby_service``); returns nothing, its tap targets go to
the frame it is handed."""

from __future__ import annotations

from typing import Any

import pygame

from clients.table import draw as d
from clients.table.context import LobbyView
from clients.table.render.lobby_parts import Frame, lobby_button, status_line, text_field
from clients.table.stats import CASUAL, Line
from clients.table.ui import (
    JoinClub,
    OpenSettings,
    OpenTable,
    Refresh,
    ShowClub,
    ShowPage,
    WatchTable,
)

GAP = 12
LINE_H = 24


def draw_league(lobby: LobbyView, surface: pygame.Surface, frame: Frame) -> None:
    tr = lobby.tr
    w, h = surface.get_size()
    bar = pygame.Rect(0, 0, w, 56)
    pygame.draw.rect(surface, d.FELT_DARK, bar)
    back = pygame.Rect(8, 6, min(160, max(100, d.text_width(tr("btn.back"), 16, True) + 28)), 44)
    lobby_button(surface, frame, back, "◀ " + tr("btn.back"), ShowPage("home"), size=16)
    x = w - 8
    for label, action in ((tr("btn.settings"), OpenSettings()), (tr("btn.refresh"), Refresh())):
        bw = min(170, max(100, d.text_width(label, 16, True) + 28))
        x -= bw
        lobby_button(surface, frame, pygame.Rect(x, 6, bw, 44), label, action, size=16)
        x -= 8
    title = pygame.Rect(back.right + 12, 0, max(40, x - back.right - 20), bar.h)
    d.text(
        surface,
        tr("lobby.league_title", user=lobby.username or ""),
        (title.x, bar.centery),
        18,
        d.WHITE,
        bold=True,
        anchor="midleft",
        within=title,
    )
    top = bar.bottom + 8
    status = status_line(lobby)
    if status:
        d.text(
            surface, status[0], (12, top), 16, status[1], within=pygame.Rect(12, top, w - 24, 20)
        )
        top += 26
    if w >= 760:
        left = pygame.Rect(12, top, int(w * 0.55) - 18, h - top - 12)
        right = pygame.Rect(left.right + 12, top, w - left.right - 24, h - top - 12)
    else:
        left = pygame.Rect(12, top, w - 24, (h - top) // 2 - 12)
        right = pygame.Rect(12, left.bottom + 12, w - 24, h - left.bottom - 24)
    # the join form first where space is short: it is what a newcomer comes for
    y = _join_card(lobby, surface, frame, right, right.y)
    y = _my_tables(lobby, surface, frame, right, y)
    y = _my_matches(lobby, surface, right, y)
    _my_stats(lobby, surface, right, y)
    _clubs(lobby, surface, frame, left)


def _card(surface: pygame.Surface, area: pygame.Rect, y: int, height: int) -> pygame.Rect:
    card = pygame.Rect(area.x, y, area.w, max(0, min(height, area.bottom - y)))
    pygame.draw.rect(surface, d.FELT_DARK, card, border_radius=12)
    return card


def _title(surface: pygame.Surface, text: str, card: pygame.Rect) -> int:
    inner = card.inflate(-24, 0)
    d.text(surface, text, (inner.x, card.y + 8), 18, d.WHITE, bold=True, within=inner)
    return card.y + 36


def _line(
    surface: pygame.Surface,
    text: str,
    area: pygame.Rect,
    y: int,
    bold: bool = False,
    colour: tuple[int, ...] | None = None,
) -> int:
    inner = area.inflate(-24, 0)
    d.text(surface, text, (inner.x, y), 15, colour or d.SOFT, bold=bold, within=inner)
    return y + LINE_H


def _join_card(
    lobby: LobbyView,
    surface: pygame.Surface,
    frame: Frame,
    area: pygame.Rect,
    y: int,
) -> int:
    tr = lobby.tr
    card = _card(surface, area, y, 128)
    inner = card.inflate(-24, 0)
    y = _title(surface, tr("lobby.join_club"), card)
    bw = min(170, max(100, d.text_width(tr("btn.join_club"), 16, True) + 28))
    box = pygame.Rect(inner.x, y + 18, inner.w - bw - GAP, 42)
    text_field(lobby, surface, frame, box, "invite", tr("lobby.invite"))
    lobby_button(
        surface,
        frame,
        pygame.Rect(box.right + GAP, box.y, bw, 42),
        tr("btn.join_club"),
        JoinClub(),
        enabled=not lobby.busy,
        size=16,
    )
    d.text(surface, tr("lobby.invite_help"), (inner.x, box.bottom + 4), 13, d.SOFT, within=inner)
    return card.bottom + GAP


def _my_tables(
    lobby: LobbyView, surface: pygame.Surface, frame: Frame, area: pygame.Rect, y: int
) -> int:
    tr = lobby.tr
    tables = list(lobby.league.tables)[:2]
    if not tables or area.bottom - y < 90:
        return y
    card = _card(surface, area, y, 40 + 50 * len(tables))
    inner = card.inflate(-24, 0)
    ty = _title(surface, tr("lobby.league_tables"), card)
    for table in tables:
        code = str(table.get("code") or "")
        bw = min(150, max(96, d.text_width(tr("btn.play_now"), 16, True) + 28))
        rect = pygame.Rect(inner.right - bw, ty, bw, 44)
        lobby_button(surface, frame, rect, tr("btn.play_now"), OpenTable(code), size=16)
        text = tr(
            "lobby.league_table",
            club=table.get("club") or "",
            round=table.get("round") or "",
            code=code,
        )
        box = pygame.Rect(inner.x, ty, rect.x - inner.x - 8, 44)
        d.text(
            surface,
            "★ " + text,
            (box.x, box.centery),
            15,
            d.WHITE,
            bold=True,
            anchor="midleft",
            within=box,
        )
        ty += 50
    return card.bottom + GAP


def match_line(lobby: LobbyView, match: dict[str, Any]) -> str:
    """ "Tuesday club, round 3: 4–2, won" from my side of a finished match."""
    tr = lobby.tr
    me = lobby.username or ""
    team = next((s.get("team") for s in match.get("seats") or [] if s.get("player") == me), None)
    score = match.get("score") or {}
    other = "B" if team == "A" else "A"
    mine, theirs = score.get(team or "A", 0), score.get(other, 0)
    outcome = tr("lobby.match_won" if match.get("winner") == team else "lobby.match_lost")
    names = dict(zip(lobby.league.slugs, lobby.league.clubs, strict=False))
    club = names.get(match.get("club") or "", match.get("club") or "")
    return tr(
        "lobby.match_row",
        club=club,
        round=match.get("round") or "—",
        mine=mine,
        theirs=theirs,
        outcome=outcome,
    )


def _my_matches(lobby: LobbyView, surface: pygame.Surface, area: pygame.Rect, y: int) -> int:
    tr = lobby.tr
    details = lobby.details
    matches = list(details.matches) if details else []
    room = max(0, (area.bottom - y - 40 - 150) // LINE_H)
    shown = matches[: max(1, min(6, room))]
    card = _card(surface, area, y, 40 + LINE_H * max(1, len(shown)) + 6)
    ty = _title(surface, tr("lobby.my_matches"), card)
    if details is None:
        _line(surface, tr("log.loading"), card, ty)
    elif not matches:
        _line(surface, tr("lobby.no_matches"), card, ty)
    for match in shown:
        ty = _line(surface, match_line(lobby, match), card, ty)
    return card.bottom + GAP


def stats_text(lobby: LobbyView, line: Line) -> str:
    tr = lobby.tr
    return " · ".join(
        [
            tr("stats.matches", n=line.matches) + ", " + tr("stats.won", n=line.won),
            tr("stats.hands_won", n=line.hands_won),
            tr("stats.dekabes", n=line.dekabes),
        ]
    )


def _my_stats(lobby: LobbyView, surface: pygame.Surface, area: pygame.Rect, y: int) -> int:
    tr = lobby.tr
    details = lobby.details
    if area.bottom - y < 70:
        return y
    rows: list[tuple[str, Line]] = []
    if details is not None:
        names = {
            **details.stats.names,
            **dict(zip(lobby.league.slugs, lobby.league.clubs, strict=False)),
        }
        rows.append((tr("lobby.stats_overall"), details.stats.overall))
        for slug, line in sorted(details.stats.by_club.items(), key=lambda kv: kv[0] == CASUAL):
            rows.append(
                (tr("lobby.stats_casual") if slug == CASUAL else names.get(slug, slug), line)
            )
    card = _card(surface, area, y, 40 + 2 * LINE_H * max(1, len(rows)) + 6)
    ty = _title(surface, tr("lobby.stats"), card)
    if details is None:
        _line(surface, tr("log.loading"), card, ty)
    for i, (name, line) in enumerate(rows):
        if ty + 2 * LINE_H > card.bottom:
            break
        ty = _line(surface, name, card, ty, bold=True, colour=d.WHITE if i == 0 else d.SOFT)
        ty = _line(surface, "   " + stats_text(lobby, line), card, ty)
    return card.bottom + GAP


def _clubs(lobby: LobbyView, surface: pygame.Surface, frame: Frame, area: pygame.Rect) -> None:
    """Tabs of my clubs; the chosen one's standings and ratings."""
    tr = lobby.tr
    details = lobby.details
    clubs = list(details.clubs) if details else []
    if details is None:
        _line(surface, tr("log.loading"), area, area.y + 6)
        return
    if not clubs:
        card = _card(surface, area, area.y, 76)
        _line(surface, tr("lobby.no_clubs_yet"), card, card.y + 14)
        return
    x, y = area.x, area.y
    for club in clubs:
        chosen = club.slug == lobby.club
        label = ("✓ " if chosen else "") + club.name
        bw = min(area.w, max(110, min(260, d.text_width(label, 15, True) + 28)))
        if x + bw > area.right:
            x, y = area.x, y + 50
        rect = pygame.Rect(x, y, bw, 44)
        d.button(surface, rect, label, hot=chosen, size=15)
        frame.hit(rect, ShowClub(club.slug))
        x += bw + 8
    y += 56
    club = next((c for c in clubs if c.slug == lobby.club), clubs[0])
    y = _live_tables(lobby, surface, frame, area, y, club.live)
    half = max(0, (area.bottom - y - GAP) // 2)
    season = club.season or tr("lobby.no_season")
    card = _card(surface, area, y, half)
    ty = _title(surface, tr("lobby.standings", season=season), card)
    me = lobby.username
    rows = list(club.standings)
    room = max(0, (card.bottom - ty - 6) // LINE_H)
    if not rows:
        _line(surface, tr("lobby.no_standings"), card, ty)
    for row in _top_and_me(rows, me, room, lambda r: _entrant_names(r)):
        names = _entrant_names(row)
        mine = me in names
        diff = int(row.get("hands_won") or 0) - int(row.get("hands_lost") or 0)
        text = tr(
            "lobby.standing_row",
            pos=row.get("position"),
            name=" & ".join(names),
            wins=row.get("wins", 0),
            played=row.get("played", 0),
            diff=f"{diff:+d}",
            points=row.get("points", 0),
        )
        ty = _line(
            surface,
            ("▶ " if mine else "") + text,
            card,
            ty,
            bold=mine,
            colour=d.WHITE if mine else None,
        )
    card = _card(surface, area, card.bottom + GAP, area.bottom - card.bottom - GAP)
    ty = _title(surface, tr("lobby.ratings"), card)
    ratings = list(club.ratings)
    room = max(0, (card.bottom - ty - 6) // LINE_H)
    if not ratings:
        _line(surface, tr("lobby.no_ratings"), card, ty)
    for rank, row in _top_and_me(
        list(enumerate(ratings, 1)), me, room, lambda r: [r[1].get("player")]
    ):
        mine = row.get("player") == me
        name = str(row.get("player"))
        if row.get("is_bot"):
            name += f" ({tr('seat.computer')})"
        text = tr(
            "lobby.rating_row",
            pos=rank,
            name=name,
            rating=f"{float(row.get('ordinal') or 0):.1f}",
            matches=tr("stats.matches", n=int(row.get("matches") or 0)),
        )
        ty = _line(
            surface,
            ("▶ " if mine else "") + text,
            card,
            ty,
            bold=mine,
            colour=d.WHITE if mine else None,
        )


LIVE_ROW_H = 50  # a row with its Watch button (a 44 px target)


def _live_tables(
    lobby: LobbyView,
    surface: pygame.Surface,
    frame: Frame,
    area: pygame.Rect,
    y: int,
    live: tuple[dict[str, Any], ...],
) -> int:
    """The club's tables in play, each with Watch (a read-only table, ``watch.py``); at
    most what leaves the standings and ratings room."""
    if not live:
        return y
    tr = lobby.tr
    room = max(0, (area.bottom - y - 340) // LIVE_ROW_H)  # standings and ratings keep room
    shown = list(live)[: min(3, room)]
    if not shown:
        return y
    card = _card(surface, area, y, 40 + LIVE_ROW_H * len(shown) + 4)
    ty = _title(surface, tr("lobby.live_tables"), card)
    label = tr("btn.watch")
    bw = min(160, max(100, d.text_width(label, 15, True) + 28))
    for match in shown:
        score = match.get("score") or {}
        text = tr(
            "lobby.live_row",
            code=match.get("table") or "",
            round=match.get("round") or "–",
            a=d.team_text(f"{score.get('A', 0)}", "A"),
            b=d.team_text(f"{score.get('B', 0)}", "B"),
        )
        button = pygame.Rect(card.right - bw - 10, ty, bw, 44)
        d.text(
            surface,
            text,
            (card.x + 12, button.centery),
            16,
            d.WHITE,
            anchor="midleft",
            within=pygame.Rect(card.x + 12, ty, button.x - card.x - 20, 44),
        )
        d.button(surface, button, label, size=15)
        frame.hit(button, WatchTable(str(match.get("table") or "")))
        ty += LIVE_ROW_H
    return card.bottom + GAP


def _entrant_names(row: dict[str, Any]) -> list[str]:
    if "player" in row:
        return [str((row.get("player") or {}).get("username"))]
    pair = row.get("pair") or {}
    return [str(p.get("username")) for p in pair.get("players") or []]


def _top_and_me(rows: list[Any], me: str | None, room: int, names: Any) -> list[Any]:
    """The first rows that fit, my own row kept in sight (last) when it is further down."""
    if room <= 0:
        return []
    top = rows[:room]
    if me and not any(me in names(r) for r in top):
        mine = [r for r in rows if me in names(r)]
        if mine:
            top = rows[: room - 1] + mine[:1]
    return top
