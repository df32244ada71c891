"""The panels over the table: the rules, and the log in words (grouped by match and
hand, each hand closed by its result, opened at the newest entry). Opening one pauses
the computer players (``panels.py``)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pygame

from clients.table import draw as d
from clients.table.context import TableView
from clients.table.i18n import Translator
from clients.table.i18n.catalog import MESSAGES
from clients.table.i18n.rules import RULES
from clients.table.people import TAKEBACK_WHAT, handover_text
from clients.table.render.frame import TOAST_STRIP, Hits, table_layout
from clients.table.render.results import match_result_line, result_banner
from clients.table.ui import ClosePanel, Press

HEADER = "§ "  # a log line starting with it is a heading (drawn bold, no prefix)
QUIET = ("pause", "resume", "watchable")  # in the log, but not worth a line


@lru_cache(maxsize=16)
def rules_surface(lang: str, width: int, theme: str) -> pygame.Surface:
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


def describe(tr: Translator, entry: dict[str, Any], opening: bool = False) -> str:
    """One log entry in words (``opening``: the first play after a deal)."""
    event = entry.get("event") or {}
    kind = entry.get("type") or event.get("type")
    seat = entry.get("seat") or event.get("seat")
    who = tr("seat.name", n=seat) if seat else tr("log.server")
    if kind == "play":
        if opening or not event.get("end"):
            return tr("log.open", seat=who, tile=event.get("tile"))
        return tr("log.play", seat=who, tile=event.get("tile"), end=tr(f"end.{event['end']}"))
    if kind == "choose_opener":
        return tr("log.choose_opener", seat=who, opener=tr("seat.name", n=event.get("opener")))
    payload = event or entry  # issue 22's server events: takeback, handovers, forfeit
    if kind == "takeback_request":
        what = tr(TAKEBACK_WHAT.get(str(payload.get("command")), "takeback.undo"))
        return tr("log.takeback_request", seat=who, what=what)
    if kind == "takeback_answer":
        return tr("log.takeback_yes" if payload.get("accept") else "log.takeback_no", seat=who)
    if kind == "seat_handover":
        return handover_text(tr, payload)
    if kind == "forfeit":
        return tr("status.forfeited")
    if f"log.{kind}" in MESSAGES:
        return tr(f"log.{kind}", seat=who)
    return tr("log.other", seat=who, type=kind)


def log_lines(
    tr: Translator, events: list[dict[str, Any]] | None, seat_view: dict[str, Any]
) -> list[str]:
    """The log in words, grouped by match and hand, each hand of the current match closed
    by its result and the match by its winner (as the server's view reports them);
    pauses are left out."""
    if events is None:
        return [tr("log.loading")]
    events = [e for e in events if e.get("type") not in QUIET]
    if not events:
        return [tr("log.empty")]
    results = {r.get("hand_no"): r for r in seat_view.get("results") or []}
    starts = ("match_started", "new_match")  # a new match begins after either
    matches = sum(1 for e in events if e.get("type") in starts)
    lines: list[str] = []
    match_no = hand_no = 0
    opening = same_hand = False

    def close_hand() -> None:
        result = results.get(hand_no) if match_no == max(1, matches) else None
        if result is not None:
            lines.append(HEADER + tr("log.result", result=result_banner(tr, result)))

    for entry in events:
        kind = entry.get("type")
        if kind in starts:
            if hand_no:
                close_hand()
            match_no, hand_no = match_no + 1, 0
            if kind == "new_match":
                lines.append(f"{entry.get('seq', '')}. {describe(tr, entry)}")
            lines.append(HEADER + "— " + tr("log.match_header", n=match_no) + " —")
            if kind == "new_match":
                continue
        elif kind == "deal" and not same_hand:
            close_hand()
            hand_no += 1
            lines.append(HEADER + tr("log.hand_header", n=hand_no))
        lines.append(f"{entry.get('seq', '')}. {describe(tr, entry, opening and kind == 'play')}")
        # A deal after a redeal claim or a restart is the same hand again.
        same_hand = kind in ("claim_redeal", "restart_hand")
        if kind == "deal":
            opening = True
        elif kind == "play":
            opening = False
    if hand_no:
        close_hand()
    over = match_result_line(tr, seat_view)
    if over:
        lines.append(HEADER + over)
    return lines


def view_log_lines(view: TableView) -> list[str]:
    newest = view.newest
    return log_lines(view.tr, view.panel.log_events, newest.view if newest else {})


def draw_log_line(line: str, width: int) -> pygame.Surface:
    if line.startswith(HEADER):
        return d.font(17, True).render(line[len(HEADER) :], True, d.INK, None, width)
    return d.font(16).render(line, True, d.INK, None, width)


@lru_cache(maxsize=8)
def log_surface(lines: tuple[str, ...], width: int, theme: str) -> pygame.Surface:
    images = [draw_log_line(line, width) for line in lines]
    out = pygame.Surface((width, sum(i.get_height() + 4 for i in images) + 10), pygame.SRCALPHA)
    y = 0
    for image in images:
        out.blit(image, (0, y))
        y += image.get_height() + 4
    return out


def panel_boxes(view: TableView) -> tuple[pygame.Rect, pygame.Rect]:
    """The panel and its text area: below the top bar (its "paused" stays in sight) and
    above a strip kept free for toasts."""
    w, h = view.window.size
    top = table_layout(view).topbar.bottom + 6
    box = pygame.Rect(0, top, min(900, w - 24), max(120, h - top - TOAST_STRIP))
    box.centerx = w // 2
    return box, pygame.Rect(box.x + 20, box.y + 76, box.w - 40, box.h - 92)


def panel_image(view: TableView, width: int) -> pygame.Surface:
    if view.panel.name == "rules":
        return rules_surface(view.tr.lang, width, d.current_theme())
    return log_surface(tuple(view_log_lines(view)), width, d.current_theme())


def panel_scroll_max(view: TableView) -> int:
    if view.panel.name not in ("rules", "log"):
        return 0
    _, content = panel_boxes(view)
    return max(0, panel_image(view, content.w).get_height() - content.h)


def draw_panel(view: TableView, surface: pygame.Surface, hits: Hits) -> None:
    hits.modal()
    tr = view.tr
    w, h = surface.get_size()
    box, content = panel_boxes(view)
    veil = pygame.Surface((w, h - box.y + 6), pygame.SRCALPHA)
    veil.fill((0, 0, 0, 150))
    surface.blit(veil, (0, box.y - 6))
    pygame.draw.rect(surface, d.PANEL, box, border_radius=14)
    title = tr("rules.title" if view.panel.name == "rules" else "log.title")
    close = pygame.Rect(box.right - 150, box.y + 12, 136, 48)
    header = pygame.Rect(box.x + 20, box.y, close.x - box.x - 30, 70)
    d.text(surface, title, (box.x + 20, box.y + 14), 24, d.INK, bold=True, within=header)
    d.text(surface, tr("panel.paused_note"), (box.x + 20, box.y + 48), 15, d.MUTED, within=header)
    d.button(surface, close, tr("btn.close"))
    image = panel_image(view, content.w)
    scroll = max(0, min(view.panel.scroll, max(0, image.get_height() - content.h)))
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


def clear_caches() -> None:
    rules_surface.cache_clear()
    log_surface.cache_clear()
