"""Every screen of the table client, drawn from the app's state (``draw(app, screen)``).

Drawing reads the app and changes nothing in it. ``draw`` returns the clickable regions
of the frame (``Hit``) in drawing order; a modal screen drops what lies under it, so
nothing behind it can be tapped. Other seats' tiles are drawn face down (backs, counts
only) until the hand-end reveal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache

import pygame

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.i18n.catalog import MESSAGES
from clients.table.i18n.rules import RULES
from clients.table.screens import ends_before_last_tile, finished_view
from clients.table.ui import (
    Accept,
    Answer,
    BackToLobby,
    ChooseOpener,
    ClaimRedeal,
    ClosePanel,
    Continue,
    HandOver,
    Hit,
    MatchSeen,
    NewMatch,
    PickTile,
    PlaceAt,
    Press,
    SkipLanding,
    Tap,
)

BUTTONS = (
    "hint",
    "undo",
    "redo",
    "restart_hand",
    "new_match",
    "rules",
    "log",
    "language",
    "sound",
    "speed",
)
BUTTON_TEXT = {
    "hint": "btn.hint",
    "undo": "btn.undo",
    "redo": "btn.redo",
    "restart_hand": "btn.restart",
    "new_match": "btn.new_game",
    "rules": "btn.rules",
    "log": "btn.log",
    "language": "btn.language",
    "lobby": "btn.lobby",
}


def buttons(app) -> tuple[str, ...]:
    """The toolbar: a Lobby button too when a lobby opened this table."""
    return BUTTONS + (("lobby",) if getattr(app, "on_lobby", None) else ())


class Hits:
    """The tap targets of one frame (topmost last), collected by the drawing functions it
    is handed to: ``draw`` makes one per frame and returns what it gathered."""

    def __init__(self) -> None:
        self.items: list[Hit[Tap]] = []

    def add(self, rect, tap: Tap) -> None:
        self.items.append(Hit(pygame.Rect(rect), tap))

    def keep(self, keep: Callable[[Hit[Tap]], bool]) -> None:
        self.items = [h for h in self.items if keep(h)]

    def modal(self) -> None:
        """What is drawn next covers the table: keep only the toolbar tappable."""
        self.keep(lambda h: isinstance(h.action, Press))

    def clear(self) -> None:
        self.items = []


def table_layout(app) -> lay.TableLayout:
    return lay.layout_table(app.size[0], app.size[1], len(buttons(app)))


def seat_anchor(app, seat: int | None) -> tuple[int, int]:
    """Where a tile played by ``seat`` comes from on the viewer's screen."""
    layout = table_layout(app)
    if seat is None or app.shown is None:
        return layout.board.center
    position = lay.seat_position(app.shown, seat)
    if position == "bottom":
        return layout.hand.center
    return layout.seats[position].center


def draw(app, screen, surface: pygame.Surface | None = None) -> list[Hit]:
    """Draw one frame (on ``surface``, the window by default) at ``app.size``; returns its
    hits (topmost last), in the drawing's pixels."""
    surface = surface or app.screen_surface
    hits = Hits()
    surface.fill(d.FELT)
    kind = screen.kind
    modal = kind in ("reveal", "accept", "opener", "match_over") or bool(app.panel or app.confirm)
    if kind == "connecting":
        _centre_message(app, surface, app.tr("status.connecting"))
    elif kind == "handoff":
        draw_handoff(app, surface, hits, screen.seat)
    elif kind in ("landing", "reveal"):
        # The finished board of the hand that just ended, not the next deal.
        draw_table(
            app, surface, hits, screen.seat, private=False, view=finished_view(app.newest.view)
        )
        if kind == "landing":
            draw_landing(app, surface, hits, screen.seat)
        else:
            draw_reveal(app, surface, hits, screen.seat)
    else:
        draw_table(app, surface, hits, screen.seat, private=(kind != "match_over"))
        if kind == "accept":
            draw_accept(app, surface, hits, screen.seat)
        elif kind == "opener":
            draw_opener(app, surface, hits, screen.seat)
        elif kind == "match_over":
            draw_match_over(app, surface, hits, screen.seat)
    if app.panel and kind != "handoff":
        draw_panel(app, surface, hits)
    if app.confirm:
        draw_confirm(app, surface, hits)
    draw_toasts(app, surface, modal)
    return hits.items


def _centre_message(app, surface, value: str) -> None:
    w, h = surface.get_size()
    d.text(
        surface,
        value,
        (w // 2, h // 2),
        28,
        d.WHITE,
        bold=True,
        anchor="center",
        within=surface.get_rect().inflate(-24, 0),
    )


# ---------------------------------------------------------------------------- the table
def draw_table(
    app, surface, hits: Hits, seat: int, private: bool = True, view: dict | None = None
) -> None:
    """The table as ``seat`` sees it; ``private=False`` leaves its hand face down;
    ``view`` replaces the seat's current view (the finished board of the last hand)."""
    layout = table_layout(app)
    view = app.view_of(seat) if view is None else view
    draw_topbar(app, surface, layout, view)
    for position in ("right", "top", "left"):
        draw_seat_box(app, surface, layout.seats[position], view, lay.seat_at(seat, position))
    draw_line(app, surface, hits, layout, view, seat)
    if private:
        draw_hand(app, surface, hits, layout, view, seat)
    else:
        pygame.draw.rect(surface, d.FELT_DARK, layout.hand)
    draw_guidance(app, surface, layout, view, seat)
    draw_toolbar(app, surface, hits, layout, seat, view)
    if app.drag and app.drag.active:
        a, b = (int(x) for x in app.drag.tile.split("-"))
        unit = max(24, layout.hand.h // 4)
        rect = pygame.Rect(0, 0, unit, 2 * unit)
        rect.center = app.drag.pos
        d.tile(surface, rect, a, b, True, outline=d.GOLD, width=3)


def _seat_label(app, view: dict, seat: int) -> str:
    newest = app.newest
    table = newest.table if newest else None
    info = table.seats.get(seat) if table else None
    name = app.tr("seat.name", n=seat)
    if info is None:
        return name
    if info.kind == "bot" or info.is_bot:
        return f"{name} · {app.tr('seat.computer')}"
    if info.player is None:
        return f"{name} · {app.tr('seat.open')}"
    return f"{name} · {info.player}"


def draw_topbar(app, surface, layout, view: dict) -> None:
    bar = layout.topbar
    pygame.draw.rect(surface, d.FELT_DARK, bar)
    scores = view.get("scores", {"A": 0, "B": 0})
    x = 10
    size = 18 if bar.h >= 44 else 15
    for team in ("A", "B"):
        label = app.tr("team.label", team=team) + f": {scores.get(team, 0)}"
        if view.get("team") == team:
            label += f" ({app.tr('seat.you')})"
        width = d.text_width(label, size, True) + 20
        chip = pygame.Rect(x, bar.y + 6, width, bar.h - 12)
        pygame.draw.rect(surface, d.TEAM_COLOURS[team], chip, border_radius=6)
        d.text(
            surface,
            label,
            chip.center,
            size,
            d.WHITE,
            bold=True,
            anchor="center",
            within=chip.inflate(-8, 0),
        )
        x = chip.right + 8
    status = (
        app.tr(f"status.{app.conn.status}")
        if app.conn.status in ("online", "connecting", "offline")
        else ""
    )
    newest = app.newest
    if newest is not None and newest.paused:
        status = app.tr("status.paused") + " · " + status
    if app.conn.busy.is_set():
        status = app.tr("status.sending") + " · " + status
    colour = (255, 170, 160) if app.conn.status == "offline" else (210, 230, 215)
    status_text = f"{status}  {app.conn.code}"
    status_box = pygame.Rect(max(x, bar.right - 10 - max(60, bar.w // 3)), bar.y, 0, bar.h)
    status_box.width = bar.right - 10 - status_box.x
    status_rect = d.text(
        surface,
        status_text,
        (bar.right - 10, bar.centery),
        size - 2,
        colour,
        anchor="midright",
        within=status_box,
    )
    parts = [
        app.tr("score.hand", n=max(1, view.get("hand_no", 1))),
        app.tr("score.base", base=view.get("base", 1)),
        app.tr("score.goal"),
    ]
    room = status_rect.left - x - 16
    centre = " · ".join(parts)
    if d.text_width(centre, size) > room:
        centre = " · ".join(parts[:2])  # the goal is in the rules; the base is not
    if room > 20:
        d.text(
            surface,
            centre,
            ((x + status_rect.left) // 2, bar.centery),
            size,
            d.WHITE,
            anchor="center",
            within=pygame.Rect(x + 8, bar.y, room, bar.h),
        )


def _last_turn_was_pass(view: dict, seat: int) -> bool:
    for turn in reversed(view.get("turns", [])):
        if turn["seat"] == seat:
            return turn["type"] == "pass"
    return False


def draw_seat_box(app, surface, box: pygame.Rect, view: dict, seat: int) -> None:
    to_act = view.get("to_act") == seat and view.get("phase") in ("play", "choose_opener")
    team = "A" if seat in (1, 3) else "B"
    pygame.draw.rect(surface, (0, 0, 0), box.move(2, 3), border_radius=10)
    pygame.draw.rect(surface, d.PANEL, box, border_radius=10)
    pygame.draw.rect(
        surface,
        d.GOLD if to_act else d.TEAM_COLOURS[team],
        box,
        width=5 if to_act else 2,
        border_radius=10,
    )
    size = 15 if box.w >= 150 else 13
    label = _seat_label(app, view, seat)
    room = box.w - 14 - (110 if box.w > 1.6 * box.h else 0)
    d.text(
        surface,
        label,
        (box.x + 8, box.y + 6),
        size,
        d.INK,
        bold=True,
        within=pygame.Rect(box.x + 8, box.y, room, box.h),
    )
    inner = box.inflate(-16, 0)
    team_text = app.tr("team.label", team=team)
    if seat == view.get("partner"):
        team_text += f" · {app.tr('seat.partner')}"
    d.text(
        surface,
        team_text,
        (box.x + 8, box.y + 8 + size + 2),
        size - 2,
        d.TEAM_COLOURS[team],
        within=inner,
    )
    count = view.get("tile_counts", {}).get(str(seat), 0)
    compact = box.w > 1.6 * box.h  # the partner's wide box on top: two columns
    y = box.y + (8 + size + 2 if compact else 12 + 2 * (size + 2))
    count_text = app.tr("tiles.count", n=count)
    if compact:
        d.text(
            surface,
            count_text,
            (box.right - 8, y),
            size - 1,
            d.MUTED,
            anchor="topright",
            within=inner,
        )
    else:
        d.text(surface, count_text, (box.x + 8, y), size - 1, d.MUTED, within=inner)
    back_w = 8 if compact else max(6, min(14, (box.w - 16) // 8))
    backs_y = box.bottom - 2 * back_w - 6 if compact else y + size + 4
    for i in range(count if not compact or box.h >= 66 else 0):  # too low: the count says it
        d.tile_back(surface, pygame.Rect(box.x + 8 + i * (back_w + 2), backs_y, back_w, 2 * back_w))
    flag_y = box.y + 6 if compact else box.bottom - size - 10
    flag_x, flag_anchor = (box.right - 8, "topright") if compact else (box.x + 8, "topleft")
    if to_act:
        word = app.tr("turn.to_play" if view.get("phase") == "play" else "turn.choosing")
        d.text(
            surface,
            "▶ " + word,
            (flag_x, flag_y),
            size,
            (150, 100, 0),
            bold=True,
            anchor=flag_anchor,
            within=inner,
        )
    elif view.get("phase") == "accept" and view.get("accepted", {}).get(str(seat)):
        d.text(
            surface,
            "✓ " + app.tr("turn.accepted"),
            (flag_x, flag_y),
            size - 1,
            d.MUTED,
            anchor=flag_anchor,
            within=inner,
        )
    elif _last_turn_was_pass(view, seat):
        tag = app.tr("turn.passed")
        rect = pygame.Rect(0, 0, d.text_width(tag, size, True) + 14, size + 8)
        setattr(rect, flag_anchor, (flag_x, flag_y - 2))
        pygame.draw.rect(surface, d.DANGER, rect, border_radius=5)
        d.text(surface, tag, rect.center, size, d.WHITE, bold=True, anchor="center")
    _pass_flash(app, surface, seat, box.center)


def _pass_flash(app, surface, seat: int, centre) -> None:
    """A big PASS growing over the seat for a moment after it passed."""
    flashed = app.pass_flash.get(seat)
    if flashed is None:
        return
    age = time.monotonic() - flashed
    grow = min(1.0, age * 1000 / max(1, app.settings.anim_ms)) if app.settings.anim_ms else 1
    tag = app.tr("turn.passed")
    size_big = int(14 + 12 * grow)
    rect = pygame.Rect(0, 0, d.text_width(tag, size_big, True) + 24, size_big + 16)
    rect.center = centre
    pygame.draw.rect(surface, d.DANGER, rect, border_radius=12)
    d.text(surface, tag, rect.center, size_big, d.WHITE, bold=True, anchor="center")


def _ease(t: float) -> float:
    return 1 - (1 - t) ** 3


def draw_line(app, surface, hits: Hits, layout, view: dict, seat: int) -> None:
    board = layout.board
    pygame.draw.rect(surface, d.FELT_DARK, board, border_radius=16)
    line = view.get("line", [])
    placed = lay.layout_line(line, board.inflate(-16, -16), max_unit=40)
    now = time.monotonic()
    duration = max(1, app.settings.anim_ms) / 1000
    for item in placed.tiles:
        rect = pygame.Rect(item.rect)
        flight = app.flights.get(item.tile)
        if flight is not None and app.settings.anim_ms and now - flight.started < duration:
            k = _ease(max(0.0, (now - flight.started) / duration))
            ox, oy = flight.origin
            rect.center = (round(ox + (rect.centerx - ox) * k), round(oy + (rect.centery - oy) * k))
        d.tile(surface, rect, item.left or 0, item.right or 0, item.across)
    if view.get("phase") == "hand_over":
        _mark_last_ends(app, surface, placed, view)
    else:
        draw_targets(app, surface, hits, placed, view, seat)


def _mark_last_ends(app, surface, placed, view: dict) -> None:
    """The finished board: frame the last tile and the other open end, each with the
    number it showed before that tile was played (why it was, or was not, a Dékabès)."""
    last = (app.newest.view.get("last_hand") if app.newest else None) or {}
    before = ends_before_last_tile(last) if last.get("result") == "domino" else None
    if before is None or len(placed.tiles) < 2:
        return
    tile, left, right = before
    colour = d.GOLD if last.get("dekabes") else (235, 235, 235)
    first, final = placed.tiles[0], placed.tiles[-1]
    for item, value in ((first, left), (final, right)):
        rect = item.rect.inflate(8, 8)
        pygame.draw.rect(
            surface, colour, rect, width=3 if item.tile == tile else 2, border_radius=6
        )
        badge = pygame.Rect(0, 0, max(22, placed.unit), max(22, placed.unit))
        badge.midbottom = (rect.centerx, rect.top - 2)
        if badge.top < placed.tiles[0].rect.top - 4 * placed.unit:
            badge.midtop = (rect.centerx, rect.bottom + 2)
        pygame.draw.ellipse(surface, colour, badge)
        d.text(
            surface,
            str(value),
            badge.center,
            max(12, badge.h * 2 // 3),
            d.INK,
            bold=True,
            anchor="center",
        )


def draw_targets(app, surface, hits: Hits, placed, view: dict, seat: int) -> None:
    my_turn = app.my_turn(seat)
    ends = view.get("ends")
    legal = app.legal_plays(seat) if my_turn else {}
    options = legal.get(app.selected, []) if app.selected else []
    hinted = app.hint and app.hint["event"].get("tile") == app.selected
    for key, slot in placed.targets.items():
        rect = slot.rect
        chosen = app.chosen_end == key
        if key in options:
            numbers = lay.ghost_numbers(app.selected, slot.end, ends, slot)
            ghost = lay.ghost_rect(slot, numbers[2])
            d.tile(
                surface,
                ghost,
                numbers[0],
                numbers[1],
                numbers[2],
                alpha=170,
                shadow=False,
                outline=d.GOLD if chosen else d.WHITE,
                width=3 if chosen else 2,
            )
            if hinted and chosen:
                d.text(
                    surface,
                    app.tr("btn.hint"),
                    (ghost.centerx, ghost.top - 4),
                    14,
                    d.GOLD,
                    bold=True,
                    anchor="midbottom",
                )
            hits.add(lay.touch_rect(ghost.union(rect)), PlaceAt(key))
            continue
        colour = (255, 255, 255) if my_turn else (150, 190, 165)
        d.dashed_rect(surface, rect, colour, width=2)
        if ends and key in ("left", "right"):
            value = ends[0] if key == "left" else ends[1]
            d.text(
                surface,
                str(value),
                rect.center,
                max(12, rect.h // 2),
                colour,
                bold=True,
                anchor="center",
            )
        if my_turn:
            hits.add(lay.touch_rect(rect), PlaceAt(key))


def hand_rects(app, layout, hand: list[str]) -> list[pygame.Rect]:
    return lay.layout_hand(layout.hand, len(hand))


def draw_hand(app, surface, hits: Hits, layout, view: dict, seat: int) -> None:
    area = layout.hand
    pygame.draw.rect(surface, d.FELT_DARK, area)
    hand = view.get("hand", [])
    my_turn = app.my_turn(seat)
    legal = app.legal_plays(seat) if my_turn else {}
    me = (
        f"{app.tr('seat.name', n=seat)} ({app.tr('seat.you')}) · "
        f"{app.tr('team.label', team=view.get('team', 'A'))}"
    )
    if my_turn:
        me = "▶ " + me + " · " + app.tr("turn.to_play")
    label = d.text(
        surface,
        me,
        (layout.me_label.x, layout.me_label.y),
        16,
        d.GOLD if my_turn else d.WHITE,
        bold=True,
        within=pygame.Rect(layout.me_label.x, area.y, area.w - 110, area.h),
    )
    if view.get("phase") == "play" and _last_turn_was_pass(view, seat):
        tag = app.tr("turn.passed")
        rect = pygame.Rect(label.right + 10, label.y - 2, d.text_width(tag, 15, True) + 14, 23)
        pygame.draw.rect(surface, d.DANGER, rect, border_radius=5)
        d.text(surface, tag, rect.center, 15, d.WHITE, bold=True, anchor="center")
    _pass_flash(app, surface, seat, (area.centerx, area.y + 14))
    for tile, rect in zip(hand, hand_rects(app, layout, hand), strict=False):
        a, b = (int(x) for x in tile.split("-"))
        rect = pygame.Rect(rect)
        playable = tile in legal
        if playable:
            rect.y -= 14
        if tile == app.selected:
            rect.y -= 10
        if app.drag and app.drag.active and app.drag.tile == tile:
            d.tile(surface, rect, a, b, True, alpha=90, shadow=False)
            continue
        face = d.IVORY if (playable or not my_turn) else d.IVORY_DIM
        outline = d.GOLD if tile == app.selected else (60, 60, 60)
        d.tile(
            surface,
            rect,
            a,
            b,
            True,
            face=face,
            outline=outline,
            width=4 if tile == app.selected else 1,
        )
        if playable:
            d.marker_triangle(surface, rect.centerx, rect.top, max(5, rect.w // 6), d.GOLD)
        hits.add(lay.touch_rect(rect), PickTile(tile))


def guidance(app, view: dict, seat: int) -> str:
    phase = view.get("phase")
    if phase == "match_over":
        return app.tr("match.over", team=view.get("winner"))
    if phase == "accept":
        return app.tr("accept.waiting")
    if phase == "choose_opener":
        return app.tr("opener.waiting", n=view.get("to_act"))
    if phase == "play":
        if view.get("to_act") != seat:
            return app.tr("play.waiting", n=view.get("to_act"))
        if view.get("first_hand") and not view.get("line"):
            return app.tr("play.must_66")
        if not view.get("line") and not app.selected:
            return app.tr("play.open_any")
        if app.selected:
            ends = app.legal_plays(seat).get(app.selected, [])
            if not ends:
                return app.tr("play.not_legal", tile=app.selected)
            if len(ends) > 1 and app.chosen_end not in ends:
                return app.tr("play.choose_end", tile=app.selected)
            return app.tr("play.confirm", tile=app.selected)
        return app.tr("play.your_turn")
    return ""


def draw_guidance(app, surface, layout, view: dict, seat: int) -> None:
    value = guidance(app, view, seat)
    if value:
        size = d.fit_size(value, layout.message.w, 18)
        d.text(
            surface,
            value,
            layout.message.center,
            size,
            d.WHITE,
            bold=True,
            anchor="center",
            within=layout.message,
        )


def button_label(app, name: str) -> str:
    if name == "sound":
        return app.tr("btn.sound_on" if app.settings.sound else "btn.sound_off")
    if name == "speed":
        return app.tr("btn.speed", speed=app.tr(f"speed.{app.settings.speed}"))
    return app.tr(BUTTON_TEXT[name])


def button_enabled(app, name: str, seat: int | None, view: dict) -> bool:
    if name == "hint":
        return bool(view.get("legal")) and not view.get("rated")
    if name in ("undo", "redo", "restart_hand", "new_match"):
        return app.allowed(seat, name)
    return True


def draw_toolbar(app, surface, hits: Hits, layout, seat, view) -> None:
    pygame.draw.rect(surface, (16, 40, 30), layout.toolbar)
    for name, rect in zip(buttons(app), layout.buttons, strict=False):
        enabled = button_enabled(app, name, seat, view)
        d.button(surface, rect, button_label(app, name), enabled, hot=(app.panel == name))
        hits.add(rect, Press(name))


# ---------------------------------------------------------------------------- private screens
def _dialog(surface, width: int, height: int) -> pygame.Rect:
    """A centred dialog over a veil; it leaves the toast strip at the bottom free."""
    w, h = surface.get_size()
    box = pygame.Rect(0, 0, min(width, w - 24), min(height, h - TOAST_STRIP - 12))
    box.center = (w // 2, h // 2)
    if box.bottom > h - TOAST_STRIP:
        box.bottom = h - TOAST_STRIP
    veil = pygame.Surface((w, h), pygame.SRCALPHA)
    veil.fill((0, 0, 0, 140))
    surface.blit(veil, (0, 0))
    pygame.draw.rect(surface, d.PANEL, box, border_radius=14)
    pygame.draw.rect(surface, d.GOLD, box, width=2, border_radius=14)
    return box


def _buttons(app, surface, hits: Hits, area: pygame.Rect, items: list[tuple[str, Tap]]) -> None:
    rects = lay.centered_buttons(area, [d.text_width(label, 18, True) for label, _ in items])
    for (label, action), rect in zip(items, rects, strict=False):
        d.button(surface, rect, label, size=18)
        hits.add(rect, action)


def _big_hand(surface, area: pygame.Rect, hand: list[str]) -> None:
    for tile, rect in zip(
        hand, lay.layout_hand(area, len(hand), lift=0, max_unit=40), strict=False
    ):
        a, b = (int(x) for x in tile.split("-"))
        d.tile(surface, rect, a, b, True)


def draw_accept(app, surface, hits: Hits, seat: int) -> None:
    hits.modal()
    view = app.view_of(seat)
    box = _dialog(surface, 720, 430)
    y = box.y + 20
    d.text(
        surface,
        app.tr("accept.title", n=seat),
        (box.centerx, y),
        26,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    y += 44
    d.text(
        surface,
        app.tr("accept.prompt"),
        (box.centerx, y),
        17,
        d.INK,
        anchor="midtop",
        wrap=box.w - 40,
    )
    y += 34
    hand = view.get("hand", [])
    area = pygame.Rect(box.x + 20, y, box.w - 40, 120)
    pygame.draw.rect(surface, d.FELT, area, border_radius=10)
    _big_hand(surface, area, hand)
    y = area.bottom + 10
    notes = []
    if view.get("first_hand"):
        notes.append(app.tr("accept.first_hand"))
    if view.get("can_claim_redeal"):
        doubles = sum(1 for t in hand if t.split("-")[0] == t.split("-")[1])
        notes.append(app.tr("accept.redeal", doubles=app.tr("doubles.count", n=doubles)))
    for note in notes:
        rect = d.text(surface, note, (box.centerx, y), 16, d.INK, anchor="midtop", wrap=box.w - 40)
        y = rect.bottom + 6
    items: list[tuple[str, Tap]] = [(app.tr("btn.accept"), Accept(seat))]
    if view.get("can_claim_redeal"):
        items.append((app.tr("btn.claim_redeal"), ClaimRedeal(seat)))
    _buttons(app, surface, hits, pygame.Rect(box.x, box.bottom - 76, box.w, 60), items)


def draw_opener(app, surface, hits: Hits, seat: int) -> None:
    hits.modal()
    view = app.view_of(seat)
    partner = view.get("partner")
    box = _dialog(surface, 720, 400)
    d.text(
        surface,
        app.tr("opener.title"),
        (box.centerx, box.y + 20),
        26,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    d.text(
        surface,
        app.tr("opener.prompt"),
        (box.centerx, box.y + 64),
        17,
        d.INK,
        anchor="midtop",
        wrap=box.w - 40,
    )
    area = pygame.Rect(box.x + 20, box.y + 130, box.w - 40, 120)
    pygame.draw.rect(surface, d.FELT, area, border_radius=10)
    _big_hand(surface, area, view.get("hand", []))
    _buttons(
        app,
        surface,
        hits,
        pygame.Rect(box.x, box.bottom - 76, box.w, 60),
        [
            (app.tr("btn.opener_self", n=seat), ChooseOpener(seat, seat)),
            (app.tr("btn.opener_partner", n=partner), ChooseOpener(seat, partner)),
        ],
    )


def draw_handoff(app, surface, hits: Hits, seat: int) -> None:
    """Pass-and-play: nothing private on screen, no tile at all, until the tap."""
    w, h = surface.get_size()
    surface.fill((18, 28, 40))
    d.text(
        surface,
        app.tr("handoff.title", n=seat),
        (w // 2, h // 2 - 70),
        40,
        d.WHITE,
        bold=True,
        within=surface.get_rect().inflate(-40, 0),
        anchor="center",
    )
    d.text(
        surface,
        app.tr("handoff.private"),
        (w // 2, h // 2 - 20),
        20,
        (200, 210, 220),
        anchor="center",
        within=surface.get_rect().inflate(-40, 0),
    )
    ready = pygame.Rect(0, 0, min(w - 40, 460), 72)
    ready.center = (w // 2, h // 2 + 60)
    d.button(surface, ready, app.tr("btn.ready", n=seat), size=22)
    d.text(
        surface,
        app.tr("handoff.tap"),
        (w // 2, ready.bottom + 24),
        18,
        (200, 210, 220),
        anchor="center",
        within=surface.get_rect().inflate(-40, 0),
    )
    hits.add(surface.get_rect(), HandOver(seat))


def result_banner(app, last: dict) -> str:
    team = last.get("team")
    if last.get("result") == "tie":
        return app.tr("result.tie")
    if last.get("dekabes"):
        return app.tr("result.dekabes", team=team)
    return app.tr("result.domino" if last.get("result") == "domino" else "result.block", team=team)


def why_line(app, last: dict) -> str | None:
    """The Dékabès question of a domino: the engine's verdict (``last_hand.dekabes``) with
    the two ends the last tile met. The client never judges it itself."""
    before = ends_before_last_tile(last) if last.get("result") == "domino" else None
    if before is None:
        return None
    tile, left, right = before
    key = "reveal.why_dekabes" if last.get("dekabes") else "reveal.why_not_dekabes"
    return app.tr(key, tile=tile, left=left, right=right)


def _banner_colour(last: dict):
    if last.get("dekabes"):
        return d.GOLD
    if last.get("result") == "tie":
        return d.MUTED
    return d.TEAM_COLOURS.get(str(last.get("team")), d.MUTED)


def draw_landing(app, surface, hits: Hits, seat: int | None) -> None:
    """The hand's last tile lands on the finished board; the result follows (tap: now)."""
    hits.modal()
    last = app.newest.view.get("last_hand") or {}
    layout = table_layout(app)
    lines = [result_banner(app, last)]
    why = why_line(app, last)
    if why:
        lines.append(why)
    # In the hand's place (empty now), so the whole finished line stays in sight.
    strip = pygame.Rect(
        layout.hand.x + 12,
        layout.hand.y + 8,
        layout.hand.w - 24,
        min(layout.hand.h - 16, 34 + 24 * (len(lines) - 1)),
    )
    pygame.draw.rect(surface, _banner_colour(last), strip, border_radius=10)
    y = strip.y + 4
    for i, value in enumerate(lines):
        d.text(
            surface,
            value,
            (strip.centerx, y),
            20 if i == 0 else 15,
            d.WHITE if i == 0 else d.INK,
            bold=(i == 0),
            anchor="midtop",
            within=strip.inflate(-16, 0),
        )
        y += 26 if i == 0 else 22
    d.text(
        surface,
        app.tr("landing.tap"),
        layout.message.center,
        16,
        d.WHITE,
        anchor="center",
        within=layout.message,
    )
    hits.add(surface.get_rect(), SkipLanding())


def draw_reveal(app, surface, hits: Hits, seat: int | None) -> None:
    """End of hand: all four hands, pips, result, points, scores, next base."""
    hits.modal()
    view = app.newest.view
    last = view.get("last_hand") or {}
    box = _dialog(surface, 900, 660)
    d.text(
        surface,
        app.tr("reveal.title", n=last.get("hand_no", "")),
        (box.centerx, box.y + 14),
        22,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    banner = result_banner(app, last)
    strip = pygame.Rect(box.x + 16, box.y + 48, box.w - 32, 46)
    pygame.draw.rect(surface, _banner_colour(last), strip, border_radius=10)
    d.text(
        surface,
        banner,
        strip.center,
        24,
        d.WHITE,
        bold=True,
        anchor="center",
        within=strip.inflate(-20, 0),
    )
    y = strip.bottom + 12
    lines = []
    why = why_line(app, last)
    plays = [t for t in last.get("turns", []) if t.get("type") == "play"]
    if why:
        lines.append(why)
    elif plays:
        lines.append(app.tr("reveal.last_tile", tile=plays[-1]["tile"]))
    if last.get("result") == "tie":
        lines.append(app.tr("reveal.tie_points"))
    else:
        lines.append(
            app.tr(
                "reveal.points",
                team=last.get("team"),
                points=app.tr("points.count", n=last.get("points", 0)),
            )
        )
    scores = view.get("scores", {})
    lines.append(
        app.tr("reveal.scores", a=scores.get("A", 0), b=scores.get("B", 0))
        + " · "
        + app.tr("reveal.next_base", base=view.get("base", 1))
    )
    line_h = 22
    rows_room = box.bottom - 78 - y - line_h * len(lines) - 8
    row_h = max(30, min(76, rows_room // 4))
    for number in (1, 2, 3, 4):
        team = "A" if number in (1, 3) else "B"
        row = pygame.Rect(box.x + 16, y, box.w - 32, row_h - 6)
        pygame.draw.rect(surface, (236, 232, 222), row, border_radius=8)
        pygame.draw.rect(surface, d.TEAM_COLOURS[team], row, width=2, border_radius=8)
        name = f"{app.tr('seat.name', n=number)} · {app.tr('team.label', team=team)}"
        d.text(
            surface,
            name,
            (row.x + 10, row.centery),
            15,
            d.INK,
            bold=True,
            anchor="midleft",
            within=pygame.Rect(row.x + 10, row.y, 200, row.h),
        )
        pips = (last.get("pips") or {}).get(str(number), 0)
        d.text(
            surface,
            app.tr("pips.count", n=pips),
            (row.right - 10, row.centery),
            16,
            d.INK,
            bold=True,
            anchor="midright",
        )
        unit = max(8, min((row.h - 8) // 2, (row.w - 330) // 15))
        x = row.x + 220
        for tile in (last.get("hands") or {}).get(str(number), []):
            a, b = (int(v) for v in tile.split("-"))
            d.tile(
                surface,
                pygame.Rect(x, row.centery - unit // 2, 2 * unit, unit),
                a,
                b,
                False,
                shadow=False,
            )
            x += 2 * unit + 4
        y += row_h
    for value in lines:
        d.text(
            surface,
            value,
            (box.centerx, y + 4),
            16,
            d.INK,
            anchor="midtop",
            within=box.inflate(-32, 0),
        )
        y += line_h
    _buttons(
        app,
        surface,
        hits,
        pygame.Rect(box.x, box.bottom - 70, box.w, 60),
        [(app.tr("btn.continue"), Continue())],
    )


def match_summary(view: dict) -> dict:
    """Counts over the match's hand results as the server reported them."""
    results = view.get("results") or []
    won = {"A": 0, "B": 0}
    dekabes = {"A": 0, "B": 0}
    ties = 0
    for result in results:
        team = result.get("team")
        if team in won:
            won[team] += 1
            dekabes[team] += 1 if result.get("dekabes") else 0
        else:
            ties += 1
    return {"won": won, "dekabes": dekabes, "ties": ties}


def draw_match_over(app, surface, hits: Hits, seat: int | None) -> None:
    """The match's own moment: winner, final score, hands won, Dékabès; what next."""
    hits.modal()
    view = app.view_of(seat)
    box = _dialog(surface, 720, 420)
    winner = view.get("winner")
    d.text(
        surface,
        app.tr("match.title"),
        (box.centerx, box.y + 18),
        24,
        d.INK,
        bold=True,
        anchor="midtop",
        within=box.inflate(-24, 0),
    )
    strip = pygame.Rect(box.x + 16, box.y + 58, box.w - 32, 50)
    pygame.draw.rect(surface, d.TEAM_COLOURS.get(winner, d.MUTED), strip, border_radius=10)
    title = app.tr("match.over", team=winner)
    d.text(
        surface,
        title,
        strip.center,
        26,
        d.WHITE,
        bold=True,
        anchor="center",
        within=strip.inflate(-20, 0),
    )
    summary = match_summary(view)
    scores = view.get("scores", {})
    lines = [
        app.tr("match.you_won" if winner == view.get("team") else "match.you_lost"),
        app.tr("match.final_score", a=scores.get("A", 0), b=scores.get("B", 0)),
        app.tr(
            "match.hands_won", a=summary["won"]["A"], b=summary["won"]["B"], ties=summary["ties"]
        ),
        app.tr("match.dekabes_count", a=summary["dekabes"]["A"], b=summary["dekabes"]["B"]),
    ]
    y = strip.bottom + 16
    for i, value in enumerate(lines):
        d.text(
            surface,
            value,
            (box.centerx, y),
            18,
            d.INK,
            bold=(i == 0),
            anchor="midtop",
            within=box.inflate(-32, 0),
        )
        y += 30
    items: list[tuple[str, Tap]] = []
    if app.allowed(seat, "new_match"):
        items.append((app.tr("btn.new_game"), NewMatch()))
    if app.on_lobby is not None:
        items.append((app.tr("btn.lobby"), BackToLobby()))
    items.append((app.tr("btn.view_board"), MatchSeen()))
    _buttons(app, surface, hits, pygame.Rect(box.x, box.bottom - 76, box.w, 60), items)


# ---------------------------------------------------------------------------- panels
@lru_cache(maxsize=16)
def _rules_surface(lang: str, width: int) -> pygame.Surface:
    blocks: list[pygame.Surface | tuple[int, pygame.Surface]] = []
    for heading, paragraphs in RULES[lang]:
        blocks.append(d.font(20, True).render(heading, True, d.INK, None, width))
        for paragraph in paragraphs:
            indent = 18 if paragraph.startswith("• ") else 0
            blocks.append((indent, d.font(16).render(paragraph, True, d.INK, None, width - indent)))
    height = sum((b[1] if isinstance(b, tuple) else b).get_height() + 8 for b in blocks) + 20
    out = pygame.Surface((width, height), pygame.SRCALPHA)
    y = 0
    for block in blocks:
        indent, image = block if isinstance(block, tuple) else (0, block)
        if indent == 0 and not isinstance(block, tuple):
            y += 6
        out.blit(image, (indent, y))
        y += image.get_height() + 8
    return out


def describe(app, entry: dict, opening: bool = False) -> str:
    """One log entry in words (``opening``: the first play after a deal)."""
    event = entry.get("event") or {}
    kind = entry.get("type") or event.get("type")
    seat = entry.get("seat") or event.get("seat")
    who = app.tr("seat.name", n=seat) if seat else app.tr("log.server")
    if kind == "play":
        if opening or not event.get("end"):
            return app.tr("log.open", seat=who, tile=event.get("tile"))
        return app.tr(
            "log.play", seat=who, tile=event.get("tile"), end=app.tr(f"end.{event['end']}")
        )
    if kind == "choose_opener":
        return app.tr(
            "log.choose_opener", seat=who, opener=app.tr("seat.name", n=event.get("opener"))
        )
    if f"log.{kind}" in MESSAGES:
        return app.tr(f"log.{kind}", seat=who)
    return app.tr("log.other", seat=who, type=kind)


HEADER = "§ "  # a log line starting with it is a heading (drawn bold, no prefix)


def log_lines(app) -> list[str]:
    """The log in words, grouped by match and hand, each hand closed by its result (the
    results of the current match, as the server's view reports them)."""
    if app.log_events is None:
        return [app.tr("log.loading")]
    if not app.log_events:
        return [app.tr("log.empty")]
    view = app.newest.view if app.newest else {}
    results = {r.get("hand_no"): r for r in view.get("results") or []}
    starts = ("match_started", "new_match")  # a new match begins after either
    matches = sum(1 for e in app.log_events if e.get("type") in starts)
    lines: list[str] = []
    match_no = hand_no = 0
    opening = same_hand = False

    def close_hand() -> None:
        result = results.get(hand_no) if match_no == max(1, matches) else None
        if result is not None:
            lines.append(HEADER + app.tr("log.result", result=result_banner(app, result)))

    for entry in app.log_events:
        kind = entry.get("type")
        if kind in starts:
            if hand_no:
                close_hand()
            match_no, hand_no = match_no + 1, 0
            if kind == "new_match":
                lines.append(f"{entry.get('seq', '')}. {describe(app, entry)}")
            lines.append(HEADER + "— " + app.tr("log.match_header", n=match_no) + " —")
            if kind == "new_match":
                continue
        elif kind == "deal" and not same_hand:
            close_hand()
            hand_no += 1
            lines.append(HEADER + app.tr("log.hand_header", n=hand_no))
        lines.append(f"{entry.get('seq', '')}. {describe(app, entry, opening and kind == 'play')}")
        # A deal after a redeal claim or a restart is the same hand again.
        same_hand = kind in ("claim_redeal", "restart_hand")
        if kind == "deal":
            opening = True
        elif kind == "play":
            opening = False
    if hand_no:
        close_hand()
    return lines


def draw_log_line(line: str, width: int) -> pygame.Surface:
    if line.startswith(HEADER):
        return d.font(17, True).render(line[len(HEADER) :], True, d.INK, None, width)
    return d.font(16).render(line, True, d.INK, None, width)


def _panel_boxes(app) -> tuple[pygame.Rect, pygame.Rect]:
    """The panel and its text area: below the top bar (its "paused" stays in sight) and
    above a strip kept free for toasts."""
    w, h = app.size
    top = table_layout(app).topbar.bottom + 6
    box = pygame.Rect(0, top, min(900, w - 24), max(120, h - top - TOAST_STRIP))
    box.centerx = w // 2
    return box, pygame.Rect(box.x + 20, box.y + 76, box.w - 40, box.h - 92)


def _panel_image(app, width: int) -> pygame.Surface:
    if app.panel == "rules":
        return _rules_surface(app.tr.lang, width)
    return _log_surface(tuple(log_lines(app)), width)


def panel_scroll_max(app) -> int:
    if not app.panel:
        return 0
    _, content = _panel_boxes(app)
    return max(0, _panel_image(app, content.w).get_height() - content.h)


def draw_panel(app, surface, hits: Hits) -> None:
    hits.modal()
    w, h = surface.get_size()
    box, content = _panel_boxes(app)
    veil = pygame.Surface((w, h - box.y + 6), pygame.SRCALPHA)
    veil.fill((0, 0, 0, 150))
    surface.blit(veil, (0, box.y - 6))
    pygame.draw.rect(surface, d.PANEL, box, border_radius=14)
    title = app.tr("rules.title" if app.panel == "rules" else "log.title")
    close = pygame.Rect(box.right - 150, box.y + 12, 136, 48)
    header = pygame.Rect(box.x + 20, box.y, close.x - box.x - 30, 70)
    d.text(surface, title, (box.x + 20, box.y + 14), 24, d.INK, bold=True, within=header)
    note = app.tr("panel.paused_note")
    d.text(surface, note, (box.x + 20, box.y + 48), 15, d.MUTED, within=header)
    d.button(surface, close, app.tr("btn.close"))
    image = _panel_image(app, content.w)
    scroll = max(0, min(app.panel_scroll, max(0, image.get_height() - content.h)))
    surface.set_clip(content)
    surface.blit(image, (content.x, content.y - scroll))
    surface.set_clip(None)
    if image.get_height() > content.h:  # a scroll bar: where we are in the text
        bar_h = max(30, content.h * content.h // image.get_height())
        top = content.y + (content.h - bar_h) * scroll // max(1, image.get_height() - content.h)
        pygame.draw.rect(surface, d.MUTED, (box.right - 12, top, 6, bar_h), border_radius=3)
    hits.add(close, ClosePanel())
    # the toolbar under the panel stays reachable only for the panel buttons themselves
    hits.keep(lambda h: not isinstance(h.action, Press) or h.action.button in ("rules", "log"))


@lru_cache(maxsize=8)
def _log_surface(lines: tuple, width: int) -> pygame.Surface:
    images = [draw_log_line(line, width) for line in lines]
    out = pygame.Surface((width, sum(i.get_height() + 4 for i in images) + 10), pygame.SRCALPHA)
    y = 0
    for image in images:
        out.blit(image, (0, y))
        y += image.get_height() + 4
    return out


def clear_caches() -> None:
    d.clear_caches()
    _rules_surface.cache_clear()
    _log_surface.cache_clear()


def draw_confirm(app, surface, hits: Hits) -> None:
    hits.clear()
    box = _dialog(surface, 560, 220)
    question = app.tr("confirm.restart" if app.confirm == "restart_hand" else "confirm.new_game")
    d.text(
        surface,
        question,
        (box.centerx, box.y + 40),
        20,
        d.INK,
        bold=True,
        anchor="midtop",
        wrap=box.w - 40,
    )
    _buttons(
        app,
        surface,
        hits,
        pygame.Rect(box.x, box.bottom - 80, box.w, 60),
        [(app.tr("btn.yes"), Answer(True)), (app.tr("btn.no"), Answer(False))],
    )


TOAST_STRIP = 52  # px at the bottom kept for toasts while a dialog or panel is up


def draw_toasts(app, surface, modal: bool = False) -> None:
    """Toasts sit above the guidance line; over a dialog or a panel only the newest one,
    in the strip at the bottom, so it never covers their text."""
    now = time.monotonic()
    # Only what anyone may see, and the private screen's own (never another seat's).
    live = [t for t in app.toasts if t.until > now and t.seat in (None, app.shown)]
    w, h = surface.get_size()
    if modal:
        live, y = live[-1:], h - 8
    else:
        y = table_layout(app).message.y - 8
    for toast in reversed(live):
        value, size = d.fit(toast.text, w - 80, 17)
        width = d.text_width(value, size) + 32
        rect = pygame.Rect(0, 0, width, size + 18)
        rect.midbottom = (w // 2, y)
        pygame.draw.rect(surface, d.DANGER if toast.error else (40, 44, 52), rect, border_radius=10)
        d.text(surface, value, rect.center, size, d.WHITE, anchor="center")
        y = rect.top - 6
