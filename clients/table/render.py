"""Every screen of the table client, drawn from the app's state (``draw(app, screen)``).

Each frame also records the clickable regions (``app.hits``) in drawing order; a modal
screen drops what lies under it, so nothing behind it can be tapped.
Other seats' tiles are drawn face down (backs, counts only) until the hand-end reveal.
"""

from __future__ import annotations

import time
from functools import lru_cache

import pygame

from clients.table import draw as d
from clients.table import layout as lay
from clients.table.i18n.catalog import MESSAGES
from clients.table.i18n.rules import RULES

BUTTONS = ("hint", "undo", "redo", "restart_hand", "new_match", "rules", "log", "language",
           "sound", "speed")
BUTTON_TEXT = {"hint": "btn.hint", "undo": "btn.undo", "redo": "btn.redo",
               "restart_hand": "btn.restart", "new_match": "btn.new_game", "rules": "btn.rules",
               "log": "btn.log", "language": "btn.language"}


def _hit(app, rect, *action) -> None:
    from clients.table.app import Hit
    app.hits.append(Hit(pygame.Rect(rect), tuple(action)))


def _modal(app) -> None:
    """What is drawn next covers the table: keep only the toolbar tappable."""
    app.hits = [h for h in app.hits if h.action[0] == "button"]


def table_layout(app) -> lay.TableLayout:
    return lay.layout_table(app.size[0], app.size[1], len(BUTTONS))


def seat_anchor(app, seat: int | None) -> tuple[int, int]:
    """Where a tile played by ``seat`` comes from on the viewer's screen."""
    layout = table_layout(app)
    if seat is None or app.shown is None:
        return layout.board.center
    position = lay.seat_position(app.shown, seat)
    if position == "bottom":
        return layout.hand.center
    return layout.seats[position].center


def draw(app, screen) -> None:
    surface = app.screen_surface
    app.hits = []
    surface.fill(d.FELT)
    kind = screen.kind
    if kind == "connecting":
        _centre_message(app, surface, app.tr("status.connecting"))
    elif kind == "handoff":
        draw_handoff(app, surface, screen.seat)
    else:
        draw_table(app, surface, screen.seat, private=(kind != "reveal"))
        if kind == "accept":
            draw_accept(app, surface, screen.seat)
        elif kind == "opener":
            draw_opener(app, surface, screen.seat)
        elif kind == "reveal":
            draw_reveal(app, surface, screen.seat)
    if app.panel and kind != "handoff":
        draw_panel(app, surface)
    if app.confirm:
        draw_confirm(app, surface)
    draw_toasts(app, surface)


def _centre_message(app, surface, value: str) -> None:
    w, h = surface.get_size()
    d.text(surface, value, (w // 2, h // 2), 28, d.WHITE, bold=True, anchor="center")


# ---------------------------------------------------------------------------- the table
def draw_table(app, surface, seat: int, private: bool = True) -> None:
    """The table as ``seat`` sees it; ``private=False`` leaves its hand face down."""
    layout = table_layout(app)
    view = app.view_of(seat)
    draw_topbar(app, surface, layout, view)
    for position in ("right", "top", "left"):
        draw_seat_box(app, surface, layout.seats[position], view, lay.seat_at(seat, position))
    draw_line(app, surface, layout, view, seat)
    if private:
        draw_hand(app, surface, layout, view, seat)
    else:
        pygame.draw.rect(surface, d.FELT_DARK, layout.hand)
    draw_guidance(app, surface, layout, view, seat)
    draw_toolbar(app, surface, layout, seat, view)
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
        d.text(surface, label, chip.center, size, d.WHITE, bold=True, anchor="center")
        x = chip.right + 8
    status = app.tr(f"status.{app.conn.status}") if app.conn.status in ("online", "connecting", "offline") else ""
    newest = app.newest
    if newest is not None and newest.paused:
        status = app.tr("status.paused") + " · " + status
    if app.conn.busy.is_set():
        status = app.tr("status.sending") + " · " + status
    colour = (255, 170, 160) if app.conn.status == "offline" else (210, 230, 215)
    status_text = f"{status}  {app.conn.code}"
    status_size = d.fit_size(status_text, max(60, bar.w // 3), size - 2)
    status_rect = d.text(surface, status_text, (bar.right - 10, bar.centery), status_size,
                         colour, anchor="midright")
    parts = [app.tr("score.hand", n=max(1, view.get("hand_no", 1))),
             app.tr("score.base", base=view.get("base", 1)), app.tr("score.goal")]
    room = status_rect.left - x - 16
    centre = " · ".join(parts)
    if d.text_width(centre, size) > room:
        centre = " · ".join(parts[:2])           # the goal is in the rules; the base is not
    d.text(surface, centre, ((x + status_rect.left) // 2, bar.centery),
           d.fit_size(centre, room, size), d.WHITE, anchor="center")


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
    pygame.draw.rect(surface, d.GOLD if to_act else d.TEAM_COLOURS[team], box,
                     width=5 if to_act else 2, border_radius=10)
    size = 15 if box.w >= 150 else 13
    label = _seat_label(app, view, seat)
    room = box.w - 14 - (110 if box.w > 1.6 * box.h else 0)
    d.text(surface, label, (box.x + 8, box.y + 6), d.fit_size(label, room, size), d.INK,
           bold=True)
    team_text = app.tr("team.label", team=team)
    if seat == view.get("partner"):
        team_text += f" · {app.tr('seat.partner')}"
    d.text(surface, team_text, (box.x + 8, box.y + 8 + size + 2), size - 2, d.TEAM_COLOURS[team])
    count = view.get("tile_counts", {}).get(str(seat), 0)
    compact = box.w > 1.6 * box.h          # the partner's wide box on top: two columns
    y = box.y + (8 + size + 2 if compact else 12 + 2 * (size + 2))
    count_text = app.tr("tiles.count", n=count)
    if compact:
        d.text(surface, count_text, (box.right - 8, y), size - 1, d.MUTED, anchor="topright")
    else:
        d.text(surface, count_text, (box.x + 8, y), size - 1, d.MUTED)
    back_w = 8 if compact else max(6, min(14, (box.w - 16) // 8))
    backs_y = box.bottom - 2 * back_w - 6 if compact else y + size + 4
    for i in range(count if not compact or box.h >= 66 else 0):   # too low: the count says it
        d.tile_back(surface, pygame.Rect(box.x + 8 + i * (back_w + 2), backs_y, back_w,
                                         2 * back_w))
    flag_y = box.y + 6 if compact else box.bottom - size - 10
    flag_x, flag_anchor = (box.right - 8, "topright") if compact else (box.x + 8, "topleft")
    if to_act:
        word = app.tr("turn.to_play" if view.get("phase") == "play" else "turn.choosing")
        d.text(surface, "▶ " + word, (flag_x, flag_y), size, (150, 100, 0), bold=True,
               anchor=flag_anchor)
    elif view.get("phase") == "accept" and view.get("accepted", {}).get(str(seat)):
        d.text(surface, "✓ " + app.tr("turn.accepted"), (flag_x, flag_y), size - 1, d.MUTED,
               anchor=flag_anchor)
    elif _last_turn_was_pass(view, seat):
        tag = app.tr("turn.passed")
        rect = pygame.Rect(0, 0, d.text_width(tag, size, True) + 14, size + 8)
        setattr(rect, flag_anchor, (flag_x, flag_y - 2))
        pygame.draw.rect(surface, d.DANGER, rect, border_radius=5)
        d.text(surface, tag, rect.center, size, d.WHITE, bold=True, anchor="center")
    flashed = app.pass_flash.get(seat)
    if flashed is not None:
        age = time.monotonic() - flashed
        if age < 1.6:
            grow = min(1.0, age * 1000 / max(1, app.settings.anim_ms)) if app.settings.anim_ms else 1
            tag = app.tr("turn.passed")
            size_big = int(14 + 12 * grow)
            rect = pygame.Rect(0, 0, d.text_width(tag, size_big, True) + 24, size_big + 16)
            rect.center = (box.centerx, box.centery)
            pygame.draw.rect(surface, d.DANGER, rect, border_radius=12)
            d.text(surface, tag, rect.center, size_big, d.WHITE, bold=True, anchor="center")
        else:
            app.pass_flash.pop(seat, None)


def _ease(t: float) -> float:
    return 1 - (1 - t) ** 3


def draw_line(app, surface, layout, view: dict, seat: int) -> None:
    board = layout.board
    pygame.draw.rect(surface, d.FELT_DARK, board, border_radius=16)
    line = view.get("line", [])
    placed = lay.layout_line(line, board.inflate(-16, -16), max_unit=40)
    now = time.monotonic()
    duration = max(1, app.settings.anim_ms) / 1000
    for item in placed.tiles:
        rect = pygame.Rect(item.rect)
        flight = app.flights.get(item.tile)
        if flight is not None:
            t = (now - flight.started) / duration
            if t >= 1 or app.settings.anim_ms == 0:
                app.flights.pop(item.tile, None)
            else:
                k = _ease(max(0.0, t))
                ox, oy = flight.origin
                rect.center = (round(ox + (rect.centerx - ox) * k), round(oy + (rect.centery - oy) * k))
        d.tile(surface, rect, item.left, item.right, item.across)
    draw_targets(app, surface, placed, view, seat)


def draw_targets(app, surface, placed, view: dict, seat: int) -> None:
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
            d.tile(surface, ghost, numbers[0], numbers[1], numbers[2], alpha=170, shadow=False,
                   outline=d.GOLD if chosen else d.WHITE, width=3 if chosen else 2)
            if hinted and chosen:
                d.text(surface, app.tr("btn.hint"), (ghost.centerx, ghost.top - 4), 14, d.GOLD,
                       bold=True, anchor="midbottom")
            _hit(app, lay.touch_rect(ghost.union(rect)), "target", key)
            continue
        colour = (255, 255, 255) if my_turn else (150, 190, 165)
        d.dashed_rect(surface, rect, colour, width=2)
        if ends and key in ("left", "right"):
            value = ends[0] if key == "left" else ends[1]
            d.text(surface, str(value), rect.center, max(12, rect.h // 2), colour, bold=True,
                   anchor="center")
        if my_turn:
            _hit(app, lay.touch_rect(rect), "target", key)


def hand_rects(app, layout, hand: list[str]) -> list[pygame.Rect]:
    return lay.layout_hand(layout.hand, len(hand))


def draw_hand(app, surface, layout, view: dict, seat: int) -> None:
    area = layout.hand
    pygame.draw.rect(surface, d.FELT_DARK, area)
    hand = view.get("hand", [])
    my_turn = app.my_turn(seat)
    legal = app.legal_plays(seat) if my_turn else {}
    me = f"{app.tr('seat.name', n=seat)} ({app.tr('seat.you')}) · " \
         f"{app.tr('team.label', team=view.get('team', 'A'))}"
    if my_turn:
        me = "▶ " + me + " · " + app.tr("turn.to_play")
    d.text(surface, me, (layout.me_label.x, layout.me_label.y), 16,
           d.GOLD if my_turn else d.WHITE, bold=True)
    for tile, rect in zip(hand, hand_rects(app, layout, hand)):
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
        d.tile(surface, rect, a, b, True, face=face, outline=outline,
               width=4 if tile == app.selected else 1)
        if playable:
            d.marker_triangle(surface, rect.centerx, rect.top, max(5, rect.w // 6), d.GOLD)
        _hit(app, lay.touch_rect(rect), "tile", tile)


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
        d.text(surface, value, layout.message.center, size, d.WHITE, bold=True, anchor="center")


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


def draw_toolbar(app, surface, layout, seat, view) -> None:
    pygame.draw.rect(surface, (16, 40, 30), layout.toolbar)
    for name, rect in zip(BUTTONS, layout.buttons):
        enabled = button_enabled(app, name, seat, view)
        d.button(surface, rect, button_label(app, name), enabled,
                 hot=(app.panel == name))
        _hit(app, rect, "button", name)


# ---------------------------------------------------------------------------- private screens
def _dialog(surface, width: int, height: int) -> pygame.Rect:
    w, h = surface.get_size()
    box = pygame.Rect(0, 0, min(width, w - 24), min(height, h - 24))
    box.center = (w // 2, h // 2)
    veil = pygame.Surface((w, h), pygame.SRCALPHA)
    veil.fill((0, 0, 0, 140))
    surface.blit(veil, (0, 0))
    pygame.draw.rect(surface, d.PANEL, box, border_radius=14)
    pygame.draw.rect(surface, d.GOLD, box, width=2, border_radius=14)
    return box


def _buttons(app, surface, area: pygame.Rect, items: list[tuple[str, tuple]]) -> None:
    rects = lay.centered_buttons(area, [d.text_width(label, 18, True) for label, _ in items])
    for (label, action), rect in zip(items, rects):
        d.button(surface, rect, label, size=18)
        _hit(app, rect, *action)


def _big_hand(surface, area: pygame.Rect, hand: list[str]) -> None:
    for tile, rect in zip(hand, lay.layout_hand(area, len(hand), lift=0, max_unit=40)):
        a, b = (int(x) for x in tile.split("-"))
        d.tile(surface, rect, a, b, True)


def draw_accept(app, surface, seat: int) -> None:
    _modal(app)
    view = app.view_of(seat)
    box = _dialog(surface, 720, 430)
    y = box.y + 20
    d.text(surface, app.tr("accept.title", n=seat), (box.centerx, y), 26, d.INK, bold=True,
           anchor="midtop")
    y += 44
    d.text(surface, app.tr("accept.prompt"), (box.centerx, y), 17, d.INK, anchor="midtop",
           wrap=box.w - 40)
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
    items = [(app.tr("btn.accept"), ("accept", seat))]
    if view.get("can_claim_redeal"):
        items.append((app.tr("btn.claim_redeal"), ("claim_redeal", seat)))
    _buttons(app, surface, pygame.Rect(box.x, box.bottom - 76, box.w, 60), items)


def draw_opener(app, surface, seat: int) -> None:
    _modal(app)
    view = app.view_of(seat)
    partner = view.get("partner")
    box = _dialog(surface, 720, 400)
    d.text(surface, app.tr("opener.title"), (box.centerx, box.y + 20), 26, d.INK, bold=True,
           anchor="midtop")
    d.text(surface, app.tr("opener.prompt"), (box.centerx, box.y + 64), 17, d.INK,
           anchor="midtop", wrap=box.w - 40)
    area = pygame.Rect(box.x + 20, box.y + 130, box.w - 40, 120)
    pygame.draw.rect(surface, d.FELT, area, border_radius=10)
    _big_hand(surface, area, view.get("hand", []))
    _buttons(app, surface, pygame.Rect(box.x, box.bottom - 76, box.w, 60),
             [(app.tr("btn.opener_self", n=seat), ("opener", seat, seat)),
              (app.tr("btn.opener_partner", n=partner), ("opener", seat, partner))])


def draw_handoff(app, surface, seat: int) -> None:
    """Pass-and-play: nothing private on screen, no tile at all, until the tap."""
    w, h = surface.get_size()
    surface.fill((18, 28, 40))
    d.text(surface, app.tr("handoff.title", n=seat), (w // 2, h // 2 - 70),
           d.fit_size(app.tr("handoff.title", n=seat), w - 40, 40), d.WHITE, bold=True,
           anchor="center")
    d.text(surface, app.tr("handoff.private"), (w // 2, h // 2 - 20), 20, (200, 210, 220),
           anchor="center")
    ready = pygame.Rect(0, 0, min(w - 40, 460), 72)
    ready.center = (w // 2, h // 2 + 60)
    d.button(surface, ready, app.tr("btn.ready", n=seat), size=22)
    d.text(surface, app.tr("handoff.tap"), (w // 2, ready.bottom + 24), 18, (200, 210, 220),
           anchor="center")
    _hit(app, surface.get_rect(), "handoff", seat)


def result_banner(app, last: dict) -> str:
    team = last.get("team")
    if last.get("result") == "tie":
        return app.tr("result.tie")
    if last.get("dekabes"):
        return app.tr("result.dekabes", team=team)
    return app.tr("result.domino" if last.get("result") == "domino" else "result.block", team=team)


def draw_reveal(app, surface, seat: int | None) -> None:
    """End of hand: all four hands, pips, result, points, scores, next base."""
    _modal(app)
    view = app.newest.view
    last = view.get("last_hand") or {}
    box = _dialog(surface, 900, 660)
    d.text(surface, app.tr("reveal.title", n=last.get("hand_no", "")), (box.centerx, box.y + 14),
           22, d.INK, bold=True, anchor="midtop")
    banner = result_banner(app, last)
    strip = pygame.Rect(box.x + 16, box.y + 48, box.w - 32, 46)
    colour = d.GOLD if last.get("dekabes") else (d.MUTED if last.get("result") == "tie" else
                                                 d.TEAM_COLOURS.get(last.get("team"), d.MUTED))
    pygame.draw.rect(surface, colour, strip, border_radius=10)
    d.text(surface, banner, strip.center, d.fit_size(banner, strip.w - 20, 24), d.WHITE,
           bold=True, anchor="center")
    y = strip.bottom + 12
    row_h = max(40, min(76, (box.h - 300) // 4))
    for seat in (1, 2, 3, 4):
        team = "A" if seat in (1, 3) else "B"
        row = pygame.Rect(box.x + 16, y, box.w - 32, row_h - 6)
        pygame.draw.rect(surface, (236, 232, 222), row, border_radius=8)
        pygame.draw.rect(surface, d.TEAM_COLOURS[team], row, width=2, border_radius=8)
        d.text(surface, f"{app.tr('seat.name', n=seat)} · {app.tr('team.label', team=team)}",
               (row.x + 10, row.centery), 15, d.INK, bold=True, anchor="midleft")
        pips = (last.get("pips") or {}).get(str(seat), 0)
        d.text(surface, app.tr("pips.count", n=pips), (row.right - 10, row.centery), 16, d.INK,
               bold=True, anchor="midright")
        unit = max(10, min((row.h - 8) // 2, (row.w - 330) // 15))
        x = row.x + 220
        for tile in (last.get("hands") or {}).get(str(seat), []):
            a, b = (int(v) for v in tile.split("-"))
            d.tile(surface, pygame.Rect(x, row.centery - unit // 2, 2 * unit, unit), a, b, False,
                   shadow=False)
            x += 2 * unit + 4
        y += row_h
    lines = []
    if last.get("result") == "tie":
        lines.append(app.tr("reveal.tie_points"))
    else:
        lines.append(app.tr("reveal.points", team=last.get("team"),
                            points=app.tr("points.count", n=last.get("points", 0))))
    scores = view.get("scores", {})
    lines.append(app.tr("reveal.scores", a=scores.get("A", 0), b=scores.get("B", 0)) + " · " +
                 app.tr("reveal.next_base", base=view.get("base", 1)))
    plays = [t for t in last.get("turns", []) if t.get("type") == "play"]
    if plays:
        lines.append(app.tr("reveal.last_tile", tile=plays[-1]["tile"]))
    if view.get("phase") == "match_over":
        lines.append(app.tr("match.over", team=view.get("winner")))
        lines.append(app.tr("match.you_won" if view.get("winner") == view.get("team")
                            else "match.you_lost"))
    for value in lines:
        d.text(surface, value, (box.centerx, y + 4), 17, d.INK, anchor="midtop")
        y += 24
    items = [(app.tr("btn.continue"), ("continue",))]
    if view.get("phase") == "match_over" and app.allowed(seat, "new_match"):
        items.append((app.tr("btn.new_game"), ("new_match",)))
    _buttons(app, surface, pygame.Rect(box.x, box.bottom - 70, box.w, 60), items)


# ---------------------------------------------------------------------------- panels
@lru_cache(maxsize=16)
def _rules_surface(lang: str, width: int) -> pygame.Surface:
    blocks = []
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
        return app.tr("log.play", seat=who, tile=event.get("tile"),
                      end=app.tr(f"end.{event['end']}"))
    if kind == "choose_opener":
        return app.tr("log.choose_opener", seat=who,
                      opener=app.tr("seat.name", n=event.get("opener")))
    if f"log.{kind}" in MESSAGES:
        return app.tr(f"log.{kind}", seat=who)
    return app.tr("log.other", seat=who, type=kind)


def log_lines(app) -> list[str]:
    if app.log_events is None:
        return [app.tr("log.loading")]
    if not app.log_events:
        return [app.tr("log.empty")]
    lines, opening = [], False
    for entry in app.log_events:
        kind = entry.get("type")
        lines.append(f"{entry.get('seq', '')}. {describe(app, entry, opening and kind == 'play')}")
        if kind == "deal":
            opening = True
        elif kind == "play":
            opening = False
    return lines


def draw_panel(app, surface) -> None:
    _modal(app)
    w, h = surface.get_size()
    box = pygame.Rect(0, 0, min(900, w - 24), h - 24)
    box.center = (w // 2, h // 2)
    veil = pygame.Surface((w, h), pygame.SRCALPHA)
    veil.fill((0, 0, 0, 150))
    surface.blit(veil, (0, 0))
    pygame.draw.rect(surface, d.PANEL, box, border_radius=14)
    title = app.tr("rules.title" if app.panel == "rules" else "log.title")
    d.text(surface, title, (box.x + 20, box.y + 14), 24, d.INK, bold=True)
    d.text(surface, app.tr("panel.paused_note"), (box.x + 20, box.y + 48), 15, d.MUTED)
    close = pygame.Rect(box.right - 150, box.y + 12, 136, 48)
    d.button(surface, close, app.tr("btn.close"))
    content = pygame.Rect(box.x + 20, box.y + 76, box.w - 40, box.h - 92)
    if app.panel == "rules":
        image = _rules_surface(app.tr.lang, content.w)
    else:
        image = _log_surface(tuple(log_lines(app)), content.w)
    app.panel_scroll = max(0, min(app.panel_scroll, max(0, image.get_height() - content.h)))
    surface.set_clip(content)
    surface.blit(image, (content.x, content.y - app.panel_scroll))
    surface.set_clip(None)
    if image.get_height() > content.h:          # a scroll bar: where we are in the text
        bar_h = max(30, content.h * content.h // image.get_height())
        top = content.y + (content.h - bar_h) * app.panel_scroll // max(1, image.get_height() - content.h)
        pygame.draw.rect(surface, d.MUTED, (box.right - 12, top, 6, bar_h), border_radius=3)
    _hit(app, close, "close_panel")
    # the toolbar under the panel stays reachable only for the panel buttons themselves
    app.hits = [h for h in app.hits if h.action[0] != "button" or h.action[1] in ("rules", "log")]


@lru_cache(maxsize=8)
def _log_surface(lines: tuple, width: int) -> pygame.Surface:
    images = [d.font(16).render(line, True, d.INK, None, width) for line in lines]
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


def draw_confirm(app, surface) -> None:
    _modal(app)
    app.hits = []
    box = _dialog(surface, 560, 220)
    question = app.tr("confirm.restart" if app.confirm == "restart_hand" else "confirm.new_game")
    d.text(surface, question, (box.centerx, box.y + 40), 20, d.INK, bold=True, anchor="midtop",
           wrap=box.w - 40)
    _buttons(app, surface, pygame.Rect(box.x, box.bottom - 80, box.w, 60),
             [(app.tr("btn.yes"), ("confirm", True)), (app.tr("btn.no"), ("confirm", False))])


def draw_toasts(app, surface) -> None:
    now = time.monotonic()
    app.toasts = [t for t in app.toasts if t.until > now]
    w, h = surface.get_size()
    layout = table_layout(app)
    y = layout.message.y - 8
    for toast in reversed(app.toasts):
        size = d.fit_size(toast.text, w - 80, 17)
        width = d.text_width(toast.text, size) + 32
        rect = pygame.Rect(0, 0, width, size + 18)
        rect.midbottom = (w // 2, y)
        pygame.draw.rect(surface, d.DANGER if toast.error else (40, 44, 52), rect, border_radius=10)
        d.text(surface, toast.text, rect.center, size, d.WHITE, anchor="center")
        y = rect.top - 6
