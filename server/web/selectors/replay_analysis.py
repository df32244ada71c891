"""What the replay page shows of a match's analysis (``server.league`` stores it; the
engine computed it from each deciding seat's view only): per step, the decision made
there; per hand, a graph of team A's chances; the list of mistakes and blunders.

Everything is read from the stored report; nothing here values a move."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext

from server.league.models import LeagueMatch
from server.league.selectors import analysis_report
from server.tables.models import Table
from server.web.selectors.replay import Replay

GRAPH_WIDTH, GRAPH_HEIGHT = 300, 80
SERIOUS = ("mistake", "blunder")


@dataclass(frozen=True)
class GraphPoint:
    step: int
    x: float
    y: float
    mark: str
    team_a: float


@dataclass(frozen=True)
class HandGraph:
    index: int  # the hand's position in replay.hands (0-based)
    number: int
    points: list[GraphPoint]

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass(frozen=True)
class ReplayAnalysis:
    by_step: dict[int, dict]  # for the script: json_script "replay-analysis"
    graphs: list[HandGraph]
    mistakes: list[dict]  # mistakes and blunders, in order
    iterations: int

    @property
    def midline(self) -> float:
        return GRAPH_HEIGHT / 2


def move_text(event: dict) -> str:
    """A decision's event as words: "3-5 (left end)", "opener: seat 3"."""
    if event.get("type") == "choose_opener":
        return gettext("opener: seat %(seat)s") % {"seat": event.get("opener")}
    end = event.get("end")
    if end == "left":
        return gettext("%(tile)s, left end") % {"tile": event.get("tile")}
    if end == "right":
        return gettext("%(tile)s, right end") % {"tile": event.get("tile")}
    return str(event.get("tile"))


def mark_text(mark: str) -> str:
    return {
        "good": gettext("good"),
        "inaccuracy": gettext("inaccuracy"),
        "mistake": gettext("mistake"),
        "blunder": gettext("blunder"),
    }.get(mark, mark)


def replay_analysis(table: Table, replay: Replay) -> ReplayAnalysis | None:
    """The analysis the replay of ``table`` shows, or None while there is none."""
    match = LeagueMatch.objects.filter(table=table).first()
    report = analysis_report(match) if match is not None else None
    if report is None:
        return None
    by_step: dict[int, dict] = {}
    for d in report["decisions"]:
        if d["at"] >= replay.steps:
            continue
        by_step[d["at"]] = {
            "seat": d["seat"],
            "played": move_text(d["played"]),
            "best": move_text(d["best"]),
            "same": d["played"] == d["best"],
            "loss": d["loss"],
            "mark": d["mark"],
            "mark_text": mark_text(d["mark"]),
            "win_played": d["win_played"],
            "team_a": d["team_a"],
        }
    graphs = []
    for index, hand in enumerate(replay.hands):
        steps = [s for s in sorted(by_step) if hand.first_step <= s <= hand.end_step]
        count = max(len(steps) - 1, 1)
        points = [
            GraphPoint(
                s,
                round(GRAPH_WIDTH * i / count, 1),
                round(GRAPH_HEIGHT * (1 - by_step[s]["team_a"]), 1),
                by_step[s]["mark"],
                by_step[s]["team_a"],
            )
            for i, s in enumerate(steps)
        ]
        graphs.append(HandGraph(index, hand.number, points))
    mistakes = [
        {"step": s, "hand_no": d["hand_no"], **by_step[s]}
        for s, d in ((d["at"], d) for d in report["decisions"])
        if s in by_step and by_step[s]["mark"] in SERIOUS
    ]
    return ReplayAnalysis(by_step, graphs, mistakes, report["iterations"])
