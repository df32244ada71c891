"""A hand's result and a match's in words, as the server reported them (``last_hand``,
``results``): shared by the landing, the reveal, the match end and the log. The client
never judges a result itself (the Dékabès verdict is the engine's)."""

from __future__ import annotations

from typing import Any

from clients.table import draw as d
from clients.table.i18n import Translator
from clients.table.screens import ends_before_last_tile


def seat_team(seat_view: dict[str, Any], seat: int) -> str:
    """The team of ``seat`` as the seat view tells it (no seat rule of the client's own):
    the view's ``team`` for its own seat and its ``partner``, the other team otherwise."""
    own = str(seat_view.get("team", "A"))
    if seat in (seat_view.get("seat"), seat_view.get("partner")):
        return own
    return "B" if own == "A" else "A"


def team_label(tr: Translator, team: str | None) -> str:
    """ "● Team A": the team's name with its mark (never told apart by colour alone)."""
    return d.team_text(tr("team.label", team=team), str(team))


def result_banner(tr: Translator, last: dict[str, Any]) -> str:
    team = last.get("team")
    if last.get("result") == "tie":
        return tr("result.tie")
    if last.get("dekabes"):
        return tr("result.dekabes", team=team)
    return tr("result.domino" if last.get("result") == "domino" else "result.block", team=team)


def why_line(tr: Translator, last: dict[str, Any]) -> str | None:
    """The Dékabès question of a domino: the engine's verdict (``last_hand.dekabes``) with
    the two ends the last tile met. The client never judges it itself."""
    before = ends_before_last_tile(last) if last.get("result") == "domino" else None
    if before is None:
        return None
    tile, left, right = before
    key = "reveal.why_dekabes" if last.get("dekabes") else "reveal.why_not_dekabes"
    return tr(key, tile=tile, left=left, right=right)


def banner_colour(last: dict[str, Any]) -> tuple[int, ...]:
    if last.get("dekabes"):
        return d.GOLD
    if last.get("result") == "tie":
        return d.MUTED
    return d.TEAM_COLOURS.get(str(last.get("team")), d.MUTED)


def match_summary(seat_view: dict[str, Any]) -> dict[str, Any]:
    """Counts over the match's hand results as the server reported them."""
    results = seat_view.get("results") or []
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


def match_result_line(tr: Translator, seat_view: dict[str, Any]) -> str | None:
    """ "Match over: Team A wins 4–2" when the view's match is over."""
    if seat_view.get("phase") != "match_over" or not seat_view.get("winner"):
        return None
    scores = seat_view.get("scores") or {}
    return tr(
        "log.match_result",
        team=seat_view["winner"],
        a=scores.get("A", 0),
        b=scores.get("B", 0),
    )
