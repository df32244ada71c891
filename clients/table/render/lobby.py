"""The lobby's screens (sign-in, and the lobby itself), drawn from the lobby (a
``context.LobbyView``); ``draw`` returns the tap targets of the frame and changes
nothing in the lobby. The league page is ``league.py``; what both draw alike is
``lobby_parts.py``."""

from __future__ import annotations

import time

import pygame

from clients.table import draw as d
from clients.table.context import LobbyView
from clients.table.lobby_service import TableEntry
from clients.table.render.league import draw_league
from clients.table.render.lobby_parts import (
    GAP,
    ROW_H,
    Frame,
    lobby_button,
    status_line,
    text_field,
)
from clients.table.render.settings import draw_card
from clients.table.ui import (
    ChooseSetting,
    CloseSettings,
    CreateTable,
    FocusField,
    Hit,
    JoinByCode,
    LobbyTap,
    NextLanguage,
    NextLevel,
    OpenReplay,
    OpenSettings,
    OpenTable,
    Refresh,
    Register,
    Screen,
    ShowPage,
    SignIn,
    SignOut,
    TakeOpenSeat,
    ToggleSeat,
)


def draw(lobby: LobbyView, screen: Screen) -> list[Hit[LobbyTap]]:
    """The lobby's screen (sign-in, home, the league page), the settings over it when
    open; returns the frame's tap targets."""
    surface = lobby.screen_surface
    assert surface is not None
    d.use_theme(lobby.settings.theme)
    frame = Frame()
    surface.fill(d.FELT)
    if screen.kind == "signin":
        draw_sign_in(lobby, surface, frame)
    elif screen.kind == "league":
        draw_league(lobby, surface, frame)
    else:
        draw_home(lobby, surface, frame)
    if lobby.settings_open:
        frame.hits.clear()  # nothing behind the settings answers
        draw_card(
            surface,
            lobby.tr,
            lobby.settings,
            lambda rect, name, value: frame.hit(rect, ChooseSetting(name, value)),
            lambda rect: frame.hit(rect, CloseSettings()),
        )
    focus_ring(lobby, surface, frame)
    draw_toasts(lobby, surface)
    return frame.hits


def focus_ring(lobby: LobbyView, surface: pygame.Surface, frame: Frame) -> None:
    """The control the keyboard is on (Tab moved there), ringed; a text field shows its
    own focus (a gold border and the caret)."""
    focused = lobby.keyboard_focus([hit.action for hit in frame.hits])
    if focused is None or isinstance(focused, FocusField):
        return
    for hit in frame.hits:
        if hit.action == focused:
            ring = hit.rect.inflate(8, 8)
            pygame.draw.rect(surface, d.GOLD, ring, width=3, border_radius=10)
            return


# ---------------------------------------------------------------------------- sign in
def draw_sign_in(lobby: LobbyView, surface: pygame.Surface, frame: Frame) -> None:
    w, h = surface.get_size()
    tr = lobby.tr
    fields = [
        ("server", "lobby.server"),
        ("username", "lobby.username"),
        ("password", "lobby.password"),
    ]
    if lobby.invite_needed:  # the server registers by invite: a field for its code
        fields.append(("server_invite", "lobby.server_invite"))
    card = pygame.Rect(0, 0, min(560, w - 24), min(h - 24, 470 + 78 * (len(fields) - 3)))
    card.center = (w // 2, h // 2)
    pygame.draw.rect(surface, d.FELT_DARK, card, border_radius=16)
    inner = card.inflate(-40, 0)
    d.text(
        surface,
        tr("lobby.title"),
        (card.centerx, card.y + 16),
        26,
        d.WHITE,
        bold=True,
        anchor="midtop",
        within=inner,
    )
    language = pygame.Rect(w - 150, 8, 140, 44)
    lobby_button(surface, frame, language, tr("btn.language"), NextLanguage())
    settings = pygame.Rect(language.x - 150, 8, 140, 44)
    if settings.x > 8:
        lobby_button(surface, frame, settings, tr("btn.settings"), OpenSettings())
    y = card.y + 86
    roomy = card.h >= 440 + 78 * (len(fields) - 3)
    field_h = 44 if roomy else 38
    step = field_h + 34 if roomy else field_h + 28
    for name, key in fields:
        text_field(lobby, surface, frame, pygame.Rect(inner.x, y, inner.w, field_h), name, tr(key))
        y += step
    buttons = pygame.Rect(inner.x, y - 10, inner.w, 50)
    half = (buttons.w - GAP) // 2
    lobby_button(
        surface,
        frame,
        pygame.Rect(buttons.x, buttons.y, half, buttons.h),
        tr("btn.sign_in"),
        SignIn(),
        enabled=not lobby.busy,
    )
    lobby_button(
        surface,
        frame,
        pygame.Rect(buttons.right - half, buttons.y, half, buttons.h),
        tr("btn.register"),
        Register(),
        enabled=not lobby.busy,
    )
    y = buttons.bottom + 12
    if lobby.message:
        text, error = lobby.message
        d.text(
            surface,
            text,
            (card.centerx, y),
            16,
            (255, 190, 180) if error else d.WHITE,
            anchor="midtop",
            wrap=inner.w,
        )
    status = status_line(lobby)
    if status and not lobby.message:
        d.text(surface, status[0], (card.centerx, y), 16, status[1], anchor="midtop", within=inner)


# ---------------------------------------------------------------------------- the lobby
def draw_home(lobby: LobbyView, surface: pygame.Surface, frame: Frame) -> None:
    w, h = surface.get_size()
    tr = lobby.tr
    bar = pygame.Rect(0, 0, w, 56)
    pygame.draw.rect(surface, d.FELT_DARK, bar)
    labels = [
        (tr("btn.sign_out"), SignOut()),
        (tr("btn.settings"), OpenSettings()),
        (tr("btn.refresh"), Refresh()),
    ]
    x = w - 8
    for label, action in labels:
        bw = min(170, max(100, d.text_width(label, 16, True) + 28))
        x -= bw
        lobby_button(surface, frame, pygame.Rect(x, 6, bw, 44), label, action, size=16)
        x -= 8
    who = tr("lobby.signed_in", user=lobby.username, server=lobby.server)
    d.text(
        surface,
        who,
        (12, bar.centery),
        17,
        d.WHITE,
        bold=True,
        anchor="midleft",
        within=pygame.Rect(12, 0, max(40, x - 20), bar.h),
    )
    top = bar.bottom + 8
    status = status_line(lobby)
    if status:
        d.text(
            surface, status[0], (12, top), 16, status[1], within=pygame.Rect(12, top, w - 24, 20)
        )
        top += 26
    if w >= 600:  # two columns: the forms stay reachable
        left = pygame.Rect(12, top, int(w * (0.56 if w >= 900 else 0.5)) - 18, h - top - 12)
        right = pygame.Rect(left.right + 12, top, w - left.right - 24, h - top - 12)
        y = draw_join(lobby, surface, frame, left, left.y)
        draw_tables(lobby, surface, frame, pygame.Rect(left.x, y, left.w, left.bottom - y))
        draw_side(lobby, surface, frame, right)
    else:  # one column: the forms first, the lists below them
        column = pygame.Rect(12, top, w - 24, h - top - 12)
        y = draw_join(lobby, surface, frame, column, column.y)
        y = draw_side(lobby, surface, frame, pygame.Rect(column.x, y, column.w, column.bottom - y))
        draw_tables(
            lobby,
            surface,
            frame,
            pygame.Rect(column.x, y + GAP, column.w, max(0, column.bottom - y - GAP)),
        )


def _section(surface: pygame.Surface, title: str, area: pygame.Rect, y: int) -> int:
    d.text(surface, title, (area.x, y), 20, d.WHITE, bold=True, within=area)
    return y + 30


def _row(
    surface: pygame.Surface,
    frame: Frame,
    area: pygame.Rect,
    y: int,
    text: str,
    sub: str,
    button: tuple[str, LobbyTap] | None,
) -> int:
    row = pygame.Rect(area.x, y, area.w, ROW_H - 6)
    pygame.draw.rect(surface, d.PANEL, row, border_radius=8)
    room = row.w - 20
    if button:
        bw = min(150, max(96, d.text_width(button[0], 16, True) + 28))
        rect = pygame.Rect(row.right - bw - 4, row.y + 1, bw, row.h - 2)
        lobby_button(surface, frame, rect, button[0], button[1], size=16)
        room = rect.x - row.x - 16
    box = pygame.Rect(row.x + 10, row.y, room, row.h)
    d.text(surface, text, (row.x + 10, row.y + 4), 16, d.INK, bold=True, within=box)
    d.text(surface, sub, (row.x + 10, row.y + 25), 14, d.MUTED, within=box)
    return y + ROW_H


def _players(lobby: LobbyView, entry: TableEntry) -> str:
    names = []
    for n, info in sorted(entry.table.seats.items()):
        if n in entry.seats:
            continue
        if info.is_bot or info.kind == "bot":
            names.append(lobby.tr("seat.computer"))
        elif info.player is None:
            names.append(lobby.tr("seat.open"))
        else:
            names.append(info.player)
    return ", ".join(names)


def draw_tables(lobby: LobbyView, surface: pygame.Surface, frame: Frame, area: pygame.Rect) -> int:
    tr = lobby.tr
    if area.h < 60:
        return area.y
    y = _section(surface, tr("lobby.my_tables"), area, area.y)
    casual = [e for e in lobby.unfinished if not e.table.rated]
    rows_left = max(1, (area.h // 2) // ROW_H)
    if not casual:
        d.text(surface, tr("lobby.no_tables"), (area.x, y), 16, d.SOFT, within=area)
        y += 30
    for entry in casual[:rows_left]:
        phase = tr(f"lobby.phase.{entry.table.phase}") if entry.table.phase else ""
        title = f"{entry.table.code} · {phase}"
        if entry.my_turn:  # marked by a sign and a word, not by colour alone
            title = f"▶ {tr('lobby.your_turn')} · {title}"
            pygame.draw.rect(
                surface, d.GOLD, pygame.Rect(area.x - 3, y - 3, area.w + 6, ROW_H), 3, 10
            )
        y = _row(
            surface,
            frame,
            area,
            y,
            title,
            _players(lobby, entry),
            (tr("btn.open"), OpenTable(entry.table.code)),
        )
    y = draw_open_seats(lobby, surface, frame, area, y)
    y = _section(surface, tr("lobby.finished"), area, y + GAP)
    if not lobby.finished:
        d.text(surface, tr("lobby.no_finished"), (area.x, y), 16, d.SOFT, within=area)
        y += 30
    room = max(0, (area.bottom - y) // ROW_H)
    for entry in lobby.finished[:room]:
        result = ""
        if entry.winner and entry.scores:
            result = tr("lobby.winner", team=entry.winner, a=entry.scores[0], b=entry.scores[1])
        button = (tr("btn.replay"), OpenReplay(entry.replay)) if entry.replay else None
        created = (entry.table.raw.get("created_at") or "")[:16].replace("T", " ")
        y = _row(
            surface,
            frame,
            area,
            y,
            f"{entry.table.code} · {result}".rstrip(" ·"),
            f"{created} · {_players(lobby, entry)}".strip(" ·"),
            button,
        )
    return y


OPEN_SEAT_ROWS = 2  # the oldest few; the web's /tables/open lists them all


def draw_open_seats(
    lobby: LobbyView, surface: pygame.Surface, frame: Frame, area: pygame.Rect, y: int
) -> int:
    """Tables seeking players that I may join (people or anyone wanted): a tap sits me
    down with the ordinary join. Nothing is drawn while there are none."""
    seeks = [s for s in lobby.open_seats if s.get("wanted") in ("people", "any")]
    if not seeks:
        return y
    tr = lobby.tr
    y = _section(surface, tr("lobby.open_seats"), area, y + GAP)
    for seek in seeks[:OPEN_SEAT_ROWS]:
        seated = [
            str(info.get("player"))
            for _, info in sorted((seek.get("seats") or {}).items())
            if info.get("player")
        ]
        open_count = len(seek.get("open_seats") or [])
        title = f"{seek.get('table')} · {tr('lobby.seeking.' + str(seek.get('wanted')))}"
        y = _row(
            surface,
            frame,
            area,
            y,
            title,
            f"{', '.join(seated)} · {tr('seat.open')} × {open_count}",
            (tr("btn.take_seat"), TakeOpenSeat(str(seek.get("table")))),
        )
    return y


def _card(surface: pygame.Surface, area: pygame.Rect, y: int, height: int) -> pygame.Rect:
    card = pygame.Rect(area.x, y, area.w, height)
    pygame.draw.rect(surface, d.FELT_DARK, card, border_radius=12)
    return card


def draw_side(lobby: LobbyView, surface: pygame.Surface, frame: Frame, area: pygame.Rect) -> int:
    """League, new table, join: returns where they end."""
    tr = lobby.tr
    y = area.y
    # League: my clubs and my table of the current round, one tap away.
    league = lobby.league
    tables = list(league.tables) if league.supported else []
    height = 76 if not league.supported else 80 + ROW_H * max(1, len(tables[:2]))
    card = _card(surface, area, y, height)
    inner = card.inflate(-24, 0)
    head = inner.copy()
    if league.supported:
        label = tr("btn.league_page")
        bw = min(inner.w // 2, max(120, d.text_width(label, 15, True) + 28))
        page = pygame.Rect(inner.right - bw, card.y + 6, bw, 44)
        lobby_button(surface, frame, page, label, ShowPage("league"), size=15)
        head.width = page.x - 8 - head.x
    d.text(surface, tr("lobby.league"), (inner.x, card.y + 10), 20, d.WHITE, bold=True, within=head)
    if not league.supported:
        d.text(
            surface,
            tr("lobby.league_unsupported" if league.known else "log.loading"),
            (inner.x, card.y + 44),
            15,
            d.SOFT,
            within=inner,
        )
    else:
        clubs = ", ".join(league.clubs) if league.clubs else tr("lobby.no_clubs")
        d.text(
            surface,
            f"{tr('lobby.clubs')}: {clubs}",
            (inner.x, card.y + 44),
            15,
            d.SOFT,
            within=head,
        )
        ty = card.y + 72
        if not tables:
            d.text(
                surface,
                tr("lobby.league_none"),
                (inner.x, ty + 6),
                15,
                d.SOFT,
                within=inner,
            )
        for table in tables[:2]:
            text = tr(
                "lobby.league_table",
                club=table.get("club") or "",
                round=table.get("round") or "",
                code=table.get("code"),
            )
            ty = _row(
                surface,
                frame,
                inner,
                ty,
                text,
                tr("lobby.rated"),
                (tr("btn.play_now"), OpenTable(str(table.get("code") or ""))),
            )
    y = card.bottom + GAP
    # A new casual table: who sits where, how strong the computers are.
    card = _card(surface, area, y, 44 + 150 + 48 + 14)
    inner = card.inflate(-24, 0)
    d.text(
        surface, tr("lobby.new_table"), (inner.x, card.y + 10), 20, d.WHITE, bold=True, within=inner
    )
    half = (inner.w - GAP) // 2
    by = card.y + 44
    d.button(surface, pygame.Rect(inner.x, by, half, 44), tr("lobby.seat_me"), False, size=15)
    for i, n in enumerate((2, 3, 4)):
        col, line = divmod(i + 1, 2)
        rect = pygame.Rect(inner.x + col * (half + GAP), by + line * 50, half, 44)
        key = "lobby.seat_bot" if lobby.create_seats[n] == "bot" else "lobby.seat_human"
        lobby_button(surface, frame, rect, tr(key, n=n), ToggleSeat(n), size=15)
    level = pygame.Rect(inner.x, by + 100, inner.w, 44)
    lobby_button(
        surface,
        frame,
        level,
        tr("lobby.level", level=tr(f"level.{lobby.level}")),
        NextLevel(),
        enabled="bot" in lobby.create_seats.values(),
        size=15,
    )
    lobby_button(
        surface,
        frame,
        pygame.Rect(inner.x, by + 150, inner.w, 48),
        tr("btn.create"),
        CreateTable(),
        enabled=not lobby.busy,
    )
    return card.bottom + GAP


def draw_join(
    lobby: LobbyView, surface: pygame.Surface, frame: Frame, area: pygame.Rect, y: int
) -> int:
    """Join one by its code; returns where the next thing goes."""
    tr = lobby.tr
    card = _card(surface, area, y, 100)
    inner = card.inflate(-24, 0)
    d.text(
        surface, tr("lobby.join_title"), (inner.x, card.y + 6), 18, d.WHITE, bold=True, within=inner
    )
    bw = min(150, max(96, d.text_width(tr("btn.join"), 17, True) + 28))
    field = pygame.Rect(inner.x, card.bottom - 50, inner.w - bw - GAP, 42)
    text_field(lobby, surface, frame, field, "code", tr("lobby.join_code"))
    lobby_button(
        surface,
        frame,
        pygame.Rect(field.right + GAP, field.y, bw, 42),
        tr("btn.join"),
        JoinByCode(),
        enabled=not lobby.busy,
    )
    return card.bottom + GAP


def draw_toasts(lobby: LobbyView, surface: pygame.Surface) -> None:
    now = time.monotonic()
    w, h = surface.get_size()
    y = h - 10
    for toast in reversed([t for t in lobby.toasts if t.until > now]):
        value, size = d.fit(toast.text, w - 80, 17)
        rect = pygame.Rect(0, 0, d.text_width(value, size) + 32, size + 18)
        rect.midbottom = (w // 2, y)
        pygame.draw.rect(surface, d.DANGER if toast.error else d.TOAST, rect, border_radius=10)
        d.text(surface, value, rect.center, size, d.WHITE, anchor="center")
        y = rect.top - 6
